/**
 * The OpenAPI 3.1 document of the REST surface: valid for a real OpenAPI validator
 * for every example spec, its schemas compile with the engine's own ajv, one document
 * pinned by a golden file, the CLI printing the same document, and GET /openapi.json
 * serving it per caller (tools it may not call left out, 401 without a token).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { compileSpecFile, compileSpecText } from '../../src/compiler/load-spec.js';
import type { CompiledSpec } from '../../src/compiler/descriptor.js';
import {
  buildOpenApi,
  errorCodesFor,
  type OpenApiDocument,
} from '../../src/projection/rest/openapi.js';
import { ERROR_CATALOGUE } from '../../src/engine/error-catalogue.js';
import { createAjv } from '../../src/engine/guards/validate.js';
import { startServer, type RunningServer } from '../../src/server/start.js';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { runCli } from '../helpers/run-cli.js';

const SPECS = 'specs';
const GOLDEN = join('test', 'rest', 'golden');
const update = process.env.UPDATE_GOLDEN === '1';
const specFiles = readdirSync(SPECS).filter((f) => f.endsWith('.mcp.kdl'));

async function compiled(file: string): Promise<CompiledSpec> {
  const result = await compileSpecFile(file);
  if (!result.compiled) throw new Error(`${file} does not compile`);
  return result.compiled;
}

/** Plain JSON, as a client receives it (no shared frozen objects). */
function plain(doc: unknown): Record<string, unknown> {
  return JSON.parse(JSON.stringify(doc)) as Record<string, unknown>;
}

async function validate(doc: unknown): Promise<{ valid: boolean; errors?: unknown }> {
  return new Validator().validate(plain(doc));
}

type Operation = {
  operationId: string;
  requestBody: { content: { 'application/json': { schema: object } } };
  responses: Record<string, { content: { 'application/json': { schema: object } } }>;
};

function operations(doc: OpenApiDocument | Record<string, unknown>): Operation[] {
  const paths = doc.paths as Record<string, { post: Operation }>;
  return Object.values(paths).map((p) => p.post);
}

/** The document's shared components under its URI, so `$ref`s resolve as written. */
function withComponents(ajv: ReturnType<typeof createAjv>, doc: Record<string, unknown>) {
  ajv.addKeyword('components');
  ajv.addSchema({ $id: 'openapi.json', components: doc.components });
  return ajv;
}

describe('buildOpenApi on the example specs', () => {
  it('has example specs to check', () => {
    expect(specFiles.length).toBeGreaterThanOrEqual(3);
  });

  it('the validator is not vacuous: it refuses a broken document', async () => {
    const doc = plain(buildOpenApi(await compiled(join(SPECS, 'github-issues.mcp.kdl'))));
    delete (doc.info as Record<string, unknown>).version;
    expect((await validate(doc)).valid).toBe(false);
    const bad = plain(buildOpenApi(await compiled(join(SPECS, 'github-issues.mcp.kdl'))));
    (bad.paths as Record<string, unknown>)['no-leading-slash'] = { post: {} };
    expect((await validate(bad)).valid).toBe(false);
  });

  for (const spec of specFiles) {
    describe(spec, () => {
      it('is a valid OpenAPI 3.1 document, with and without servers', async () => {
        const c = await compiled(join(SPECS, spec));
        for (const opts of [{}, { serverUrl: 'https://gateway.example.com/beaver' }]) {
          const doc = buildOpenApi(c, opts);
          expect(doc.openapi).toBe('3.1.0');
          const result = await validate(doc);
          expect(result.errors).toBeUndefined();
          expect(result.valid).toBe(true);
        }
      });

      it('has one POST /api/<tool> per tool, in spec order, with the tool schemas, then the resource and prompt routes the spec serves', async () => {
        const c = await compiled(join(SPECS, spec));
        const doc = buildOpenApi(c);
        expect(Object.keys(doc.paths)).toEqual([
          ...c.tools.map((d) => `/api/${d.name}`),
          ...(c.resources.length > 0 ? ['/api/resources/read'] : []),
          ...(c.prompts.length > 0 ? ['/api/prompts/get'] : []),
        ]);
        for (const d of c.tools) {
          const op = doc.paths[`/api/${d.name}`]!.post as Operation & Record<string, unknown>;
          expect(op.operationId).toBe(d.name);
          expect(op.summary).toBe(d.title);
          expect(op['x-mcp-annotations']).toEqual(d.annotations);
          expect(op.requestBody.content['application/json'].schema).toEqual(d.inputSchema);
          // The tool's envelope schema, its terse coverage replaced by the typed component.
          expect(op.responses['200']!.content['application/json'].schema).toEqual({
            ...d.outputSchema,
            properties: {
              ...(d.outputSchema.properties as object),
              coverage: { $ref: '#/components/schemas/Coverage' },
            },
          });
          // Every code the grant can answer with sits under its catalogue status.
          for (const code of errorCodesFor(d, c)) {
            const status = String(ERROR_CATALOGUE[code].status);
            const schema = op.responses[status]!.content['application/json'].schema as {
              properties: { error: { properties: { code: { enum: string[] } } } };
            };
            expect(schema.properties.error.properties.code.enum).toContain(code);
          }
        }
      });

      it('every schema in it compiles with the engine’s ajv (JSON Schema 2020-12, strict)', async () => {
        const doc = plain(buildOpenApi(await compiled(join(SPECS, spec))));
        const ajv = withComponents(createAjv(true), doc);
        const ref = (s: object): object =>
          JSON.parse(
            JSON.stringify(s).replaceAll('"#/components/', '"openapi.json#/components/'),
          ) as object;
        for (const op of operations(doc)) {
          expect(() =>
            ajv.compile(op.requestBody.content['application/json'].schema),
          ).not.toThrow();
          for (const r of Object.values(op.responses))
            expect(() => ajv.compile(ref(r.content['application/json'].schema))).not.toThrow();
        }
      });

      it('is deterministic', async () => {
        const a = JSON.stringify(buildOpenApi(await compiled(join(SPECS, spec))));
        const b = JSON.stringify(buildOpenApi(await compiled(join(SPECS, spec))));
        expect(a).toBe(b);
      });
    });
  }

  it('error answers match the shared Error schema, with codes narrowed per status', async () => {
    const doc = plain(buildOpenApi(await compiled(join(SPECS, 'orders-db.mcp.kdl'))));
    const ajv = withComponents(createAjv(true), doc);
    const check = ajv.getSchema('openapi.json#/components/schemas/Error')!;
    expect(check({ error: { code: 'SQL_CONFLICT', message: 'unique_violation' } })).toBe(true);
    expect(
      check({
        error: {
          code: 'INVALID_ARGUMENTS',
          message: 'bad',
          details: [{ field: '/id', message: 'must be integer' }],
        },
      }),
    ).toBe(true);
    expect(check({ error: { code: 'NOT_A_CODE', message: 'x' } })).toBe(false);
    // A status's answer admits only the codes that status carries.
    const paths = doc.paths as Record<string, { post: Operation }>;
    const conflict = ajv.compile(
      JSON.parse(
        JSON.stringify(
          paths['/api/create_order']!.post.responses['409']!.content['application/json'].schema,
        ).replace('"#/components/', '"openapi.json#/components/'),
      ) as object,
    );
    expect(conflict({ error: { code: 'SQL_CONFLICT', message: 'unique_violation' } })).toBe(true);
    expect(conflict({ error: { code: 'SQL_DATA', message: 'bad value' } })).toBe(false);
    // Read-only statements cannot conflict: no 409 on them.
    expect(paths['/api/get_order']!.post.responses['409']).toBeUndefined();
    // Every catalogue code is in the shared enum.
    const code = (
      doc.components as {
        schemas: { Error: { properties: { error: { properties: { code: { enum: string[] } } } } } };
      }
    ).schemas.Error.properties.error.properties.code;
    expect(code.enum).toEqual(Object.keys(ERROR_CATALOGUE));
  });

  it('matches the reviewed golden document for github-issues', async () => {
    const doc = buildOpenApi(await compiled(join(SPECS, 'github-issues.mcp.kdl')), {
      serverUrl: 'http://127.0.0.1:8080',
    });
    const file = join(GOLDEN, 'github-issues.openapi.json');
    const text = `${JSON.stringify(doc, null, 2)}\n`;
    if (update || !existsSync(file)) {
      mkdirSync(GOLDEN, { recursive: true });
      writeFileSync(file, text);
    }
    expect(text).toBe(readFileSync(file, 'utf8'));
  });
});

describe('mcp-beaver openapi', () => {
  it('prints the same document as buildOpenApi', async () => {
    const file = join(SPECS, 'github-issues.mcp.kdl');
    const r = await runCli(['openapi', file, '--server-url', 'https://gw.example.com/']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const doc = buildOpenApi(await compiled(file), { serverUrl: 'https://gw.example.com' });
    expect(r.stdout).toBe(`${JSON.stringify(doc, null, 2)}\n`);
  });

  it('exits 1 with diagnostics when the spec does not compile', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'beaver-openapi-'));
    const file = join(dir, 'bad.mcp.kdl');
    writeFileSync(
      file,
      'wrap "t" version="1"\nbase-url "https://api.example.com"\ncan list issues {\n    path "/issues"\n    query { per_page "int" }\n}\n',
    );
    const r = await runCli(['openapi', file]);
    rmSync(dir, { recursive: true, force: true });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/bad\.mcp\.kdl:5:\d+: error /);
  });

  it('teaches its usage with --help and is listed in the main help', async () => {
    const r = await runCli(['openapi', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: mcp-beaver openapi <spec.mcp.kdl>');
    const main = await runCli(['--help']);
    expect(main.stdout).toContain('openapi <spec>');
    const bad = await runCli(['openapi']);
    expect(bad.code).toBe(2);
  });
});

// ---------------------------------------------------------------------------------
// GET /openapi.json on a running gateway

async function getDoc(
  url: string,
  token?: string,
): Promise<{ status: number; headers: Headers; json: Record<string, unknown> }> {
  const res = await fetch(`${url}/openapi.json`, {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });
  return { status: res.status, headers: res.headers, json: (await res.json()) as never };
}

describe('GET /openapi.json', () => {
  const specText = readFileSync(join(SPECS, 'github-issues.mcp.kdl'), 'utf8');
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startGateway(specText, { env: { GITHUB_TOKEN: 'upstream-token-1c2d3e' } });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('serves the document with the gateway URL as servers[0].url', async () => {
    const r = await getDoc(gw.url);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    const c = compileSpecText(specText, 'test.mcp.kdl').compiled!;
    expect(r.json).toEqual(plain(buildOpenApi(c, { serverUrl: gw.url })));
    expect((await validate(r.json)).valid).toBe(true);
    // Cached per runtime: the second answer is the same document.
    expect((await getDoc(gw.url)).json).toEqual(r.json);
  });

  it('names the --public-url the gateway is reached at', async () => {
    const c = compileSpecText(specText, 'test.mcp.kdl').compiled!;
    const server: RunningServer = await startServer({
      spec: c,
      listen: { host: '127.0.0.1', port: 0, loopback: true },
      logger: false,
      env: { GITHUB_TOKEN: 'upstream-token-1c2d3e' },
      publicUrl: 'https://beaver.example.com/gw/',
    });
    try {
      const r = await getDoc(server.url);
      expect(r.status).toBe(200);
      expect(r.json.servers).toEqual([{ url: 'https://beaver.example.com/gw' }]);
    } finally {
      await server.shutdown(2_000);
    }
  });
});

describe('GET /openapi.json with access: each caller sees what it may call', () => {
  const READ_KEY = 'openapi-read-key-3f9a1b';
  const ADMIN_KEY = 'openapi-admin-key-7c2e5d';
  const spec = `
wrap "access-openapi" version="2.0.0" {
    title "Access (OpenAPI)"
}
base-url "https://api.example.com"
access {
    api-key env="KEYS_READ" scopes="issues:read"
    api-key env="KEYS_ADMIN" scopes="issues:read issues:write"
}
can list issues {
    describe "List issues."
    path "/repos/{owner}/{repo}/issues"
    scope "issues:read"
}
can create issue-comment {
    describe "Comment on an issue."
    path "/repos/{owner}/{repo}/issues/{number}/comments" {
        number "integer" min=1
    }
    body {
        body "string" required=#true
    }
    scope "issues:read"
    scope "issues:write"
}
can get rate-limit {
    describe "The caller's rate limit."
    path "/rate_limit"
}
`;
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startGateway(spec, { env: { KEYS_READ: READ_KEY, KEYS_ADMIN: ADMIN_KEY } });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('refuses a caller without a token with 401 and a Bearer challenge', async () => {
    const r = await getDoc(gw.url);
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
    expect((r.json.error as { code: string }).code).toBe('UNAUTHENTICATED');
    const wrong = await getDoc(gw.url, 'not-a-key-at-all');
    expect(wrong.status).toBe(401);
  });

  it('shows two keys different paths, each a valid document', async () => {
    const read = await getDoc(gw.url, READ_KEY);
    const admin = await getDoc(gw.url, ADMIN_KEY);
    expect(read.status).toBe(200);
    expect(admin.status).toBe(200);
    expect(read.headers.get('cache-control')).toContain('private');
    expect(Object.keys(read.json.paths as object)).toEqual([
      '/api/list_issues',
      '/api/get_rate_limit',
    ]);
    expect(Object.keys(admin.json.paths as object)).toEqual([
      '/api/list_issues',
      '/api/create_issue_comment',
      '/api/get_rate_limit',
    ]);
    for (const doc of [read.json, admin.json]) expect((await validate(doc)).valid).toBe(true);
    // The same documents as buildOpenApi filtered to each caller's tools.
    const c = compileSpecText(spec, 'test.mcp.kdl').compiled!;
    expect(admin.json).toEqual(plain(buildOpenApi(c, { serverUrl: gw.url })));
    // Asking again (from the cache) gives each key its own document still.
    expect((await getDoc(gw.url, READ_KEY)).json).toEqual(read.json);
  });

  it('declares bearer auth globally and the scopes each operation needs', async () => {
    const admin = (await getDoc(gw.url, ADMIN_KEY)).json as unknown as OpenApiDocument;
    expect(admin.security).toEqual([{ bearer: [] }]);
    expect((admin.components.securitySchemes as Record<string, unknown>).bearer).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });
    const comment = admin.paths['/api/create_issue_comment']!.post;
    expect(comment['x-required-scopes']).toEqual(['issues:read', 'issues:write']);
    expect(comment.security).toEqual([{ bearer: ['issues:read', 'issues:write'] }]);
    expect(comment.description).toContain('Requires scope `issues:read` and `issues:write`.');
    const responses = comment.responses as Record<string, unknown>;
    expect(Object.keys(responses)).toEqual(expect.arrayContaining(['401', '403']));
    const open = admin.paths['/api/get_rate_limit']!.post;
    expect(open['x-required-scopes']).toBeUndefined();
    expect(open.security).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------
// The resource and prompt routes in the document

type Schema = { requestBody: { content: { 'application/json': { schema: object } } } };

function bodyCheck(doc: OpenApiDocument, path: string) {
  const op = doc.paths[path]!.post as unknown as Schema;
  return createAjv(true).compile(op.requestBody.content['application/json'].schema);
}

describe('POST /api/resources/read and /api/prompts/get in the document', () => {
  it('types the read body as the engine matches URIs: a resource, or a URI filling a template', async () => {
    const doc = buildOpenApi(await compiled(join(SPECS, 'demo.mcp.kdl')));
    const read = bodyCheck(doc, '/api/resources/read');
    expect(read({ uri: 'docs://helpdesk/hours' })).toBe(true);
    expect(read({ uri: 'helpdesk://tickets/42' })).toBe(true);
    expect(read({ uri: 'helpdesk://orders/by-status/open' })).toBe(true);
    expect(read({ uri: 'docs://helpdesk/nothing-here' })).toBe(false);
    expect(read({ uri: 'helpdesk://tickets/4/2' })).toBe(false);
    expect(read({})).toBe(false);
    expect(read({ uri: 'docs://helpdesk/hours', as: 'admin' })).toBe(false);
    const op = doc.paths['/api/resources/read']!.post as { responses: Record<string, unknown> };
    // Reading a template runs its grant: get_ticket is a sql grant, so its errors are here.
    const codes = (status: string) =>
      JSON.stringify(op.responses[status] ?? null).match(/"enum":\[([^\]]*)\]/)?.[1] ?? '';
    expect(codes('404')).toContain('RESOURCE_NOT_FOUND');
    expect(codes('404')).not.toContain('UNKNOWN_TOOL');
    expect(codes('502')).toContain('SQL_ERROR');
    expect(codes('400')).toContain('INVALID_ARGUMENTS');
  });

  it('types the get body per prompt: its own string arguments, required ones, none undeclared', async () => {
    const doc = buildOpenApi(await compiled(join(SPECS, 'demo.mcp.kdl')));
    const get = bodyCheck(doc, '/api/prompts/get');
    expect(get({ name: 'triage-ticket', arguments: { id: '12' } })).toBe(true);
    expect(get({ name: 'triage-ticket', arguments: { id: '12', tone: 'formal' } })).toBe(true);
    expect(get({ name: 'triage-ticket', arguments: { id: 'twelve' } })).toBe(false);
    expect(get({ name: 'triage-ticket', arguments: { id: '12', tone: 'rude' } })).toBe(false);
    expect(get({ name: 'triage-ticket', arguments: { id: '12', extra: 'x' } })).toBe(false);
    expect(get({ name: 'triage-ticket', arguments: {} })).toBe(false);
    expect(get({ name: 'no-such-prompt' })).toBe(false);
    expect(get({ name: 'triage-ticket', args: { id: '12' } })).toBe(false);
    const op = doc.paths['/api/prompts/get']!.post as { responses: Record<string, unknown> };
    // It embeds a ticket read: the read's not-found code too.
    expect(JSON.stringify(op.responses['404'])).toContain('UNKNOWN_PROMPT');
    expect(JSON.stringify(op.responses['404'])).toContain('RESOURCE_NOT_FOUND');
  });

  it('leaves both routes out of a spec that serves neither', async () => {
    const doc = buildOpenApi(await compiled(join(SPECS, 'github-issues.mcp.kdl')));
    expect(Object.keys(doc.paths)).not.toContain('/api/resources/read');
    expect(Object.keys(doc.paths)).not.toContain('/api/prompts/get');
    expect(doc.tags.map((t) => t.name)).toEqual(['http']);
  });
});

describe('GET /openapi.json lists the resources and prompts each caller may read', () => {
  const PLAIN_KEY = 'openapi-resource-prompt-plain-4a8c21';
  const AUDIT_KEY = 'openapi-resource-prompt-audit-9d3e70';
  const spec = `
wrap "surfaces-openapi" version="1.0.0"
base-url "https://api.example.com"
access {
    api-key env="PLAIN_KEYS" scopes="notes:read"
    api-key env="AUDIT_KEYS" scopes="notes:read audit:read"
}
can get note {
    describe "One note."
    path "/notes/{id}"
    scope "notes:read"
}
resource "docs://notes/welcome" text="Hello."
resource "docs://notes/audit-log" text="Audited." {
    scope "audit:read"
}
resource "notes://{id}" from="get_note"
prompt "summarize-note" {
    argument "id" required=#true
    message "user" resource="notes://{id}"
}
prompt "review-audit" {
    message "user" resource="docs://notes/audit-log"
}
`;
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startGateway(spec, { env: { PLAIN_KEYS: PLAIN_KEY, AUDIT_KEYS: AUDIT_KEY } });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('types each caller’s read and get bodies with only what that caller may read and get', async () => {
    const plainDoc = (await getDoc(gw.url, PLAIN_KEY)).json as unknown as OpenApiDocument;
    const auditDoc = (await getDoc(gw.url, AUDIT_KEY)).json as unknown as OpenApiDocument;
    for (const doc of [plainDoc, auditDoc]) expect((await validate(doc)).valid).toBe(true);
    const plainRead = bodyCheck(plainDoc, '/api/resources/read');
    const auditRead = bodyCheck(auditDoc, '/api/resources/read');
    expect(plainRead({ uri: 'docs://notes/welcome' })).toBe(true);
    expect(plainRead({ uri: 'notes://7' })).toBe(true);
    expect(plainRead({ uri: 'docs://notes/audit-log' })).toBe(false);
    expect(auditRead({ uri: 'docs://notes/audit-log' })).toBe(true);
    const plainGet = bodyCheck(plainDoc, '/api/prompts/get');
    const auditGet = bodyCheck(auditDoc, '/api/prompts/get');
    expect(plainGet({ name: 'summarize-note', arguments: { id: '7' } })).toBe(true);
    expect(plainGet({ name: 'review-audit' })).toBe(false);
    expect(auditGet({ name: 'review-audit' })).toBe(true);
    // Scoped resources exist, so a read can be refused for a missing scope.
    const read = plainDoc.paths['/api/resources/read']!.post as { responses: object };
    expect(JSON.stringify((read.responses as Record<string, unknown>)['403'])).toContain(
      'INSUFFICIENT_SCOPE',
    );
    // What the document promises is what the route does.
    const res = await postJson(
      `${gw.url}/api/resources/read`,
      { uri: 'docs://notes/welcome' },
      {
        authorization: `Bearer ${PLAIN_KEY}`,
      },
    );
    expect(res.status).toBe(200);
  });
});
