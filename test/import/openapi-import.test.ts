import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { formatSummary, skippedCount } from '../../src/import/openapi/summary.js';
import type { ImportResult } from '../../src/import/openapi/import-openapi.js';
import { checkErrors, draft, EXAMPLES, FIXTURES, grantText, toolNames } from './draft-helpers.js';

const SHOP = join(FIXTURES, 'shop', 'openapi.yaml');

function tempDoc(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'beaver-import-'));
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

describe('importing the shop fixture (YAML, relative-file $refs, a $ref cycle)', () => {
  let reads: ImportResult;
  let writes: ImportResult;
  beforeAll(async () => {
    reads = await draft(SHOP);
    writes = await draft(SHOP, { writes: true });
  });

  it('drafts a spec that check accepts with no errors, read-only and with --writes', () => {
    expect(checkErrors(reads.text)).toEqual([]);
    expect(checkErrors(writes.text)).toEqual([]);
  });

  it('selects only GET and HEAD operations unless --writes, and says how many writes it left', () => {
    expect(toolNames(reads.text)).toEqual([
      'list_orders',
      'get_order',
      'list_categories',
      'get_category',
      'get_category_legacy',
      'get_compare',
    ]);
    expect(reads.summary.selected).toBe(7); // five GETs, HEAD /orders, the compare GET
    expect(reads.summary.writesLeftOut).toBe(5);
    expect(formatSummary(reads.summary)).toContain(
      '5 operations that write were not selected (--writes drafts them too)',
    );
  });

  it('counts each skip reason and starts the summary with imported N of M; K skipped', () => {
    const s = writes.summary;
    expect(s.seen).toBe(12);
    expect(s.selected).toBe(12);
    expect([s.imported, skippedCount(s)]).toEqual([10, 2]);
    expect(formatSummary(s).split('\n').slice(0, 3)).toEqual([
      'imported 10 of 12 operations; 2 skipped',
      '     1  its request body is only multipart/form-data',
      '     1  method HEAD: grants call GET, POST, PUT, PATCH or DELETE',
    ]);
  });

  it('writes the top of the spec from info, the first server with its variables, and the API key scheme', () => {
    expect(writes.text).toContain(
      [
        'wrap "acme-shop" version="2.1.0" {',
        '    title "Acme Shop API"',
        '    describe "Orders and catalogue of the Acme shop. Prices are in cents."',
        '}',
        '',
        'base-url "https://eu.shop.example.com/v2"',
        'auth query "api_key" env="ACME_SHOP_API_KEY"',
      ].join('\n'),
    );
  });

  it('types query fields and leaves out, with the reason, what a grant cannot hold', () => {
    expect(grantText(reads.text, 'GET /orders (listOrders)')).toBe(
      [
        '// GET /orders (listOrders)',
        'can list orders {',
        '    describe "List orders, newest first."',
        '    // header parameter X-Request-Id left out: callers do not set headers (a fixed value goes in `header` or `set { header }`)',
        '    // cookie parameter session left out: grants do not send cookies',
        '    path "/orders"',
        '    query {',
        '        status "string" default="open" {',
        '            enum "open" "paid" "shipped"',
        '        }',
        '        created_gte "string" format="date-time" as="created[gte]" describe="Only orders created at or after this time."',
        '        tag "string[]" max-length=20 max-items=5',
        '        limit "integer" default=20 min=1 max=100',
        '        // query parameter ids left out: its array is sent comma-separated (explode: false); grants repeat the key',
        '        // query parameter filter left out: it is a deepObject (key[sub]=value) parameter',
        '        // query parameter code left out: its pattern "^(a+)+$" fails our safety check (a repeated group contains a repetition (nested quantifiers), which can take exponential time)',
        '        // query parameter api_key left out: auth sends it',
        '    }',
        '}',
      ].join('\n'),
    );
  });

  it('types a JSON body from a $ref to another file: required, bounds, nested objects to depth 3, raw beyond', () => {
    const g = grantText(writes.text, 'POST /orders (createOrder)');
    expect(g).toContain(
      [
        '    body {',
        '        note "string" max-length=500 describe="A note for the packer."',
        '        items "object[]" required=#true min-items=1 max-items=50 {',
        '            sku "string" required=#true pattern="^[A-Z0-9]{8}$"',
        '            quantity "integer" required=#true min=1 max=999',
        '        }',
        '        shipping "object" {',
        '            address "object" {',
        '                country "string" min-length=2 max-length=2',
        '                geo "object" {',
        '                    lat "number" min=-90 max=90',
        '                    lon "number"',
        '                    // passed through as raw: nested deeper than 3 levels',
        '                    accuracy "raw" kind="object"',
        '                }',
        '            }',
        '        }',
      ].join('\n'),
    );
    expect(g).not.toMatch(/^\s+id "integer"/m); // readOnly: not request input
    expect(g).toContain(
      '        // passed through as raw: a free-form object\n        metadata "raw" kind="object"',
    );
    expect(g).toContain(
      '        // narrowed to string: the document also allows integer\n        priority "string"\n',
    );
  });

  it('turns a $ref cycle into raw instead of expanding it', () => {
    const g = grantText(writes.text, 'POST /categories (createCategory)');
    expect(g).toContain(
      [
        '    body encoding="form" {',
        '        name "string" required=#true min-length=1 max-length=80',
        '        email "string" format="email"',
        '        // passed through as raw: its schema refers to itself (a $ref cycle)',
        '        parent "raw" kind="object"',
        '    }',
      ].join('\n'),
    );
  });

  it('keeps a path parameter whose pattern our safety check refuses as a plain string, with the reason', () => {
    expect(grantText(reads.text, 'GET /categories/{slug} (getCategory)')).toContain(
      [
        '    path "/categories/{slug}" {',
        '        // path parameter slug is a plain string: its pattern "^([a-z]+-?)+$" fails our safety check (a repeated group contains a repetition (nested quantifiers), which can take exponential time)',
        '    }',
      ].join('\n'),
    );
  });

  it('skips an operation it cannot express whole, with a comment where the grant would be', () => {
    expect(writes.text).toContain(
      '// POST /orders/{order_id}/receipt (uploadReceipt)\n// skipped: its request body is only multipart/form-data\n',
    );
    expect(writes.text).toContain(
      '// HEAD /orders (headOrders)\n// skipped: method HEAD: grants call GET, POST, PUT, PATCH or DELETE\n',
    );
  });

  it('takes the verb from the operationId when its hints are as cautious as the method', () => {
    // cancelOrder is a DELETE: `cancel` is ours and implies DELETE, so no method line.
    expect(grantText(writes.text, 'DELETE /orders/{order_id} (cancelOrder)')).toContain(
      'can cancel order {\n    describe "Cancel an order."\n    path',
    );
    // updateOrder is a PUT: `update` (PATCH) is as cautious, so it stays, with the method written.
    expect(grantText(writes.text, 'PUT /orders/{order_id} (updateOrder)')).toContain(
      'can update order {\n    describe "Replace an order."\n    method "PUT"\n',
    );
  });

  it('resolves tool-name collisions from the operationId and reports them', () => {
    expect(toolNames(reads.text)).toContain('get_category_legacy');
    expect(reads.summary.renames).toEqual([
      {
        source: 'GET /v1/categories/{slug} (getCategoryLegacy)',
        from: 'get_category',
        to: 'get_category_legacy',
      },
    ]);
    expect(formatSummary(reads.summary)).toContain(
      '1 tool names collided and were made unique:\n  get_category → get_category_legacy  (GET /v1/categories/{slug} (getCategoryLegacy))',
    );
  });

  it('gives the same bytes on a second run', async () => {
    expect((await draft(SHOP, { writes: true })).text).toBe(writes.text);
  });
});

describe('selecting operations', () => {
  const names = async (opts: Parameters<typeof draft>[1]) =>
    toolNames((await draft(SHOP, opts)).text);

  it('matches --include against METHOD /path and the operationId, with * wildcards', async () => {
    expect(await names({ include: ['GET /orders*'] })).toEqual(['list_orders', 'get_order']);
    expect(await names({ include: ['get /categories/*'] })).toEqual(['get_category']);
    expect(await names({ include: ['getCategory*'] })).toEqual([
      'get_category',
      'get_category_legacy',
    ]);
  });

  it('matches a pattern that starts with / against the path alone', async () => {
    expect(await names({ include: ['/categories*'] })).toEqual(['list_categories', 'get_category']);
  });

  it('treats --tag and --include as a union and lets --exclude win over both', async () => {
    expect(await names({ tags: ['catalogue'], include: ['getOrder'] })).toEqual([
      'get_order',
      'list_categories',
      'get_category',
      'get_category_legacy',
    ]);
    expect(await names({ tags: ['catalogue'], exclude: ['*Legacy', 'GET /categories'] })).toEqual([
      'get_category',
    ]);
  });

  it('drafts write operations only with --writes, even when --include names them', async () => {
    await expect(names({ include: ['POST *'] })).rejects.toThrow(
      /all of them writes: add --writes/,
    );
    expect(await names({ include: ['POST *'], writes: true })).toEqual([
      'create_order',
      'create_category',
    ]);
  });
});

describe('documents of each version', () => {
  it('converts a Swagger 2.0 document: formData parameters become a form body', async () => {
    const r = await draft(join(EXAMPLES, '2.0', 'json', 'petstore.json'), { writes: true });
    expect(checkErrors(r.text)).toEqual([]);
    expect(r.text).toContain('(Swagger 2.0)');
    expect(r.text).toContain('base-url "http://petstore.swagger.io/v2"');
    expect(grantText(r.text, 'POST /pet/{petId} (updatePetWithForm)')).toContain(
      [
        '    body encoding="form" {',
        '        name "string" describe="Updated name of the pet."',
        '        status "string" describe="Updated status of the pet."',
        '    }',
      ].join('\n'),
    );
  });

  it('reads OpenAPI 3.1 type arrays with null as the non-null type', async () => {
    const file = tempDoc(
      'nullable.json',
      JSON.stringify({
        openapi: '3.1.0',
        info: { title: 'Nullable', version: '1' },
        servers: [{ url: 'https://api.example.com' }],
        paths: {
          '/items': {
            get: {
              parameters: [
                {
                  name: 'after',
                  in: 'query',
                  schema: { type: ['string', 'null'], format: 'uuid' },
                },
                {
                  name: 'n',
                  in: 'query',
                  schema: { type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 11 },
                },
              ],
              responses: { '200': { description: 'ok' } },
            },
          },
        },
      }),
    );
    const r = await draft(file);
    expect(checkErrors(r.text)).toEqual([]);
    expect(r.text).toContain(
      '        after "string" format="uuid"\n        n "integer" min=1 max=10\n',
    );
  });

  it('never hangs on a schema that refers to itself through allOf and items', async () => {
    const file = tempDoc(
      'loop.json',
      JSON.stringify({
        openapi: '3.0.0',
        info: { title: 'Loop', version: '1' },
        paths: {
          '/nodes': {
            post: {
              requestBody: {
                content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } },
              },
              responses: { '200': { description: 'ok' } },
            },
          },
        },
        components: {
          schemas: {
            Node: {
              allOf: [{ $ref: '#/components/schemas/Base' }],
              properties: {
                children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
              },
            },
            Base: {
              type: 'object',
              properties: { name: { type: 'string' }, self: { $ref: '#/components/schemas/Base' } },
            },
          },
        },
      }),
    );
    const r = await draft(file, { writes: true });
    expect(checkErrors(r.text)).toEqual([]);
    expect(r.text).toContain(
      '        // passed through as raw: its items: its schema refers to itself (a $ref cycle)\n        children "raw" kind="array"',
    );
    expect(r.text).toContain(
      '        // passed through as raw: its schema refers to itself (a $ref cycle)\n        self "raw" kind="object"',
    );
  });

  it('maps the security scheme to auth with env var names from the title', async () => {
    const doc = (scheme: object) =>
      tempDoc(
        'auth.json',
        JSON.stringify({
          openapi: '3.0.0',
          info: { title: 'The Payments API', version: '1' },
          servers: [{ url: '/relative/base' }],
          security: [{ s: [] }],
          components: { securitySchemes: { s: scheme } },
          paths: { '/x': { get: { responses: { '200': { description: 'ok' } } } } },
        }),
      );
    const auth = async (scheme: object) =>
      (await draft(doc(scheme))).text
        .split('\n')
        .filter((l) => l.startsWith('auth ') || l.startsWith('base-url'));
    expect(await auth({ type: 'http', scheme: 'bearer' })).toEqual([
      'base-url "https://example.invalid/relative/base"',
      'auth bearer env="PAYMENTS_TOKEN"',
    ]);
    expect(await auth({ type: 'http', scheme: 'basic' })).toContain(
      'auth basic username-env="PAYMENTS_USERNAME" password-env="PAYMENTS_PASSWORD"',
    );
    expect(await auth({ type: 'apiKey', in: 'header', name: 'X-Api-Key' })).toContain(
      'auth header "X-Api-Key" env="PAYMENTS_API_KEY"',
    );
    const cookie = await draft(doc({ type: 'apiKey', in: 'cookie', name: 'sid' }));
    expect(cookie.text).toContain('// The API key of s goes in a cookie, which auth cannot fill.');
    expect(cookie.text).toContain(
      '// The first server, "/relative/base", is not an absolute http(s) URL: set the upstream here, or import with --base-url.',
    );
  });

  it('renames fields called exclusive or enum, which a block would read as its own nodes', async () => {
    const file = tempDoc(
      'keywords.json',
      JSON.stringify({
        openapi: '3.0.0',
        info: { title: 'Keywords', version: '1' },
        servers: [{ url: 'https://api.example.com' }],
        paths: {
          '/items': {
            post: {
              parameters: [{ name: 'exclusive', in: 'query', schema: { type: 'boolean' } }],
              requestBody: {
                content: {
                  'application/json': {
                    schema: {
                      type: 'object',
                      properties: {
                        spec: { type: 'object', properties: { enum: { type: 'string' } } },
                      },
                    },
                  },
                },
              },
              responses: { '200': { description: 'ok' } },
            },
          },
        },
      }),
    );
    const r = await draft(file, { writes: true });
    expect(checkErrors(r.text)).toEqual([]);
    expect(r.text).toContain('        exclusive_ "boolean" as="exclusive"\n');
    expect(r.text).toContain('            enum_ "string" as="enum"\n');
  });

  it('uses --base-url instead of the first server', async () => {
    const r = await draft(SHOP, { baseUrl: 'http://127.0.0.1:9999/shop/' });
    expect(r.text).toContain('base-url "http://127.0.0.1:9999/shop"\n');
  });
});

describe('the examples of @readme/oas-examples', () => {
  const json: string[] = [];
  for (const v of ['2.0', '3.0', '3.1'])
    for (const f of readdirSync(join(EXAMPLES, v, 'json')).filter((x) => x.endsWith('.json')))
      json.push(join(EXAMPLES, v, 'json', f));
  const yamlOf = (file: string) => file.replace('/json/', '/yaml/').replace(/\.json$/, '.yaml');
  const petstores = json.filter((f) => /petstore[^/]*\.json$/.test(f));
  const reads = new Map<string, ImportResult>();
  const writes = new Map<string, ImportResult>();
  beforeAll(async () => {
    for (const file of json) {
      reads.set(file, await draft(file));
      writes.set(file, await draft(file, { writes: true }));
    }
  }, 120_000);

  it('imports every example, read-only and with --writes, into a spec check accepts with no errors', () => {
    expect(json.length).toBeGreaterThan(50);
    const failures = json.flatMap((f) =>
      [...checkErrors(reads.get(f)!.text), ...checkErrors(writes.get(f)!.text)].map(
        (e) => `${f}: ${e}`,
      ),
    );
    expect(failures).toEqual([]);
  }, 120_000);

  it('makes grants of at least 90% of the selected operations of all examples together', () => {
    let selected = 0;
    let imported = 0;
    for (const r of reads.values()) {
      selected += r.summary.selected;
      imported += r.summary.imported;
    }
    expect(selected).toBeGreaterThan(300);
    expect(imported / selected).toBeGreaterThanOrEqual(0.9);
  });

  it('makes grants of every read of each Petstore but the login, and of all its writes but the upload and the array bodies', () => {
    const login =
      'it asks the caller for a password, secret, token or API key, which an agent should never hold';
    expect(petstores.length).toBeGreaterThanOrEqual(7);
    for (const file of petstores) {
      const r = reads.get(file)!.summary;
      expect(r.imported + (r.skipped.get(login) ?? 0), file).toBe(r.selected);
    }
    for (const v of ['2.0', '3.0', '3.1']) {
      const w = writes.get(join(EXAMPLES, v, 'json', 'petstore.json'))!.summary;
      expect([w.imported, w.selected], v).toEqual([16, 20]);
      expect([...w.skipped].sort(), v).toEqual([
        [login, 1],
        ['its request body is a JSON array, not an object of named fields', 2],
        [
          `its request body is only ${v === '3.1' ? 'application/octet-stream' : 'multipart/form-data'}`,
          1,
        ],
      ]);
    }
  });

  it('imports the YAML copy of each example into a spec check accepts', async () => {
    const failures: string[] = [];
    const yaml = json.map(yamlOf).filter((f) => existsSync(f));
    expect(yaml.length).toBeGreaterThan(50);
    for (const file of yaml)
      failures.push(...checkErrors((await draft(file)).text).map((e) => `${file}: ${e}`));
    expect(failures).toEqual([]);
    // The same document in either notation gives the same grants.
    const petJson = reads.get(join(EXAMPLES, '3.0', 'json', 'petstore.json'))!.text;
    const petYaml = (await draft(join(EXAMPLES, '3.0', 'yaml', 'petstore.yaml'))).text;
    expect(petYaml.replace('petstore.yaml:', 'petstore.json:')).toBe(petJson);
  }, 120_000);

  it('gives the same bytes on a second run for each Petstore', async () => {
    for (const file of petstores)
      expect((await draft(file, { writes: true })).text, file).toBe(writes.get(file)!.text);
  });
});
