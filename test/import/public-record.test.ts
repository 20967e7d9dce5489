/**
 * `import openapi` on the public record: each case is the minimal reproduction of a
 * defect found by importing real public API documents (bench/import-corpus.mjs), kept
 * as a small document under fixtures/public-record/.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_GRANT_FIELDS } from '../../src/import/openapi/map-schema.js';
import { checkErrors, draft, grantText, toolNames } from './draft-helpers.js';

const DOC = (name: string) => join(import.meta.dirname, 'fixtures', 'public-record', name);

describe('import openapi on documents of the public record', () => {
  it('drafts a protocol-relative server (a Swagger host without schemes) as https on that host', async () => {
    const r = await draft(DOC('protocol-relative-server.json'));
    expect(r.text).toContain('base-url "https://api.example.com/v2"\n');
    expect(r.text).toContain('names no scheme: https is assumed.');
    expect(checkErrors(r.text)).toEqual([]);
  });

  it('names a tool from its operation, not from the #fragment of its path key', async () => {
    const r = await draft(DOC('fragment-path-key.json'), { writes: true });
    expect(toolNames(r.text)).toContain('create_accept_handshake');
    expect(r.text).not.toContain('x-amz-target');
    expect(checkErrors(r.text)).toEqual([]);
  });

  it('leaves out an integer bound that no double holds (int64 limits, 2^53), keeping the rest', async () => {
    const r = await draft(DOC('int64-bounds.json'));
    expect(checkErrors(r.text)).toEqual([]);
    expect(r.text).toContain('        after "integer"\n');
    expect(r.text).toContain('        page "integer" min=1\n');
    expect(r.text).toContain('        ratio "number" min=0\n');
  });

  it('sends a fixed ?query of the path key and a single-valued required header through set', async () => {
    const r = await draft(DOC('fragment-path-key.json'), { writes: true });
    expect(checkErrors(r.text)).toEqual([]);
    expect(r.summary.imported).toBe(2);
    expect(grantText(r.text, 'GET /widgets?kind=round (listRoundWidgets)')).toContain(
      '    path "/widgets"\n    set {\n        query "kind" "round"\n    }\n',
    );
    expect(r.text).toContain(
      '    set {\n        header "X-Amz-Target" "AWSOrganizationsV20161128.AcceptHandshake"\n    }\n',
    );
    expect(r.text).not.toContain('header parameter X-Amz-Target left out');
  });

  it('drafts operations whose body declares nothing to send, a */* object body and a path parameter under content', async () => {
    const r = await draft(DOC('bodies-to-draft.json'), { writes: true });
    expect(checkErrors(r.text)).toEqual([]);
    // Only the HEAD operation is skipped, for its method.
    expect([...r.summary.skipped.keys()]).toEqual([
      'method HEAD: grants call GET, POST, PUT, PATCH or DELETE',
    ]);
    const getCharges = grantText(r.text, 'GET /v1/charges (GetCharges)');
    expect(getCharges).toContain(
      '// request body not sent: it declares no fields and the operation reads',
    );
    expect(getCharges).not.toContain('body {');
    expect(grantText(r.text, 'POST /v1/charges (PostCharges)')).toContain(
      'request body not sent: it declares no fields and the operation does not require it',
    );
    expect(grantText(r.text, 'GET /v1/search (GetSearch)')).toContain(
      'request body not sent: it is only text/plain and the operation reads',
    );
    expect(grantText(r.text, 'GET /v1/events (GetEvents)')).toContain(
      'request body not sent: it has no schema and the operation reads',
    );
    const patch = grantText(r.text, 'PATCH /v1/pods/{name} (patchPod)');
    expect(patch).toContain('        name "string" max-length=63\n');
    expect(patch).toContain('    body {\n        replicas "integer" min=0\n    }\n');
  });

  it('leaves out a read that asks for a password, and an optional credential parameter of another', async () => {
    const r = await draft(DOC('secret-parameters.json'));
    expect(checkErrors(r.text)).toEqual([]);
    expect(toolNames(r.text)).toEqual(['list_files']);
    expect(r.text).toContain(
      '// skipped: its query parameter password is a password, secret, token or API key, which an agent should never hold',
    );
    const files = grantText(r.text, 'GET /files (listFiles)');
    expect(files).toContain('// query parameter access_token left out: a credential');
    expect(files).toContain('pageToken "string"');
    expect(files).toContain('key "string"');
  });

  it('describes with the sentence after a repeated summary, and keeps a bound stated only in words', async () => {
    const r = await draft(DOC('repeated-summary.json'));
    const grant = grantText(r.text, 'GET /pets/{id} (getPet)');
    expect(grant).toContain(
      '    describe "Get a pet. Returns one pet by its id, with its owner."\n',
    );
    expect(grant).toMatch(/per_page "integer" describe="[^"]*\(max 100\)"/);
    expect(grant).not.toContain('max=100');
  });

  it('takes a $ref inside an example or an x- value as a value, in the document and in a file it refers to', async () => {
    const one = await draft(DOC('ref-in-example.json'));
    expect(toolNames(one.text)).toEqual(['get_schema']);
    const files = await draft(DOC('ref-in-example-files/openapi.json'));
    expect(checkErrors(files.text)).toEqual([]);
    expect(files.text).toContain('        limit "integer" max=50\n');
  });

  it('bounds what one grant expands shared schemas into, so a draft grows with its operations', async () => {
    // Three bodies of one schema 12 wide and 3 deep: 1,728 leaves each when expanded.
    const r = await draft(DOC('wide-shared-schemas.json'), { writes: true });
    expect(checkErrors(r.text)).toEqual([]);
    expect(r.summary.imported).toBe(3);
    for (const n of [0, 1, 2]) {
      const grant = grantText(r.text, `POST /things${n} (createThing${n})`);
      const typed = grant.match(/^\s+\w+ "(string|object)"/gm) ?? [];
      expect(typed.length, `createThing${n}`).toBeLessThanOrEqual(MAX_GRANT_FIELDS);
      expect(grant).toContain(
        "// passed through as raw: the grant's budget of 100 typed fields is spent",
      );
    }
    // Before the budget: 238 kB from a 3.6 kB document.
    expect(r.text.length).toBeLessThan(25_000);
  });

  it('drafts a read whose required token parameter is the credential auth already sends', async () => {
    const r = await draft(DOC('token-beside-auth.json'));
    expect(checkErrors(r.text)).toEqual([]);
    expect(r.text).toContain('auth bearer env="CHAT_TOKEN"');
    const grant = grantText(r.text, 'GET /conversations.list (conversations_list)');
    expect(grant).toContain(
      "// query parameter token left out: a credential, which an agent should never hold (auth sends the upstream's)",
    );
    expect(grant).toContain('limit "integer"');
  });
});
