/**
 * Redaction on the sql side (issue 14): a row or a database error that holds a secret
 * the gateway knows (here an inbound API key, in the embedded database) leaves with the
 * secret replaced, in every spelling, on both surfaces.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { leaksIn } from '../helpers/leaks.js';
import { postToolCall } from '../helpers/call-tool.js';

const READER_KEY = 'reader-key/with+symbols_0001';
const OTHER_KEY = 'other-caller-key/9f8e+7d6c';

const SPEC = `
wrap "sql-redaction" version="1.0.0"
database embedded
access {
    api-key env="READER" scopes="read"
    api-key env="OTHER" scopes="read"
}
can query echo {
    describe "Echoes a text, as stored values would."
    sql "SELECT $1::text AS v, encode(convert_to($1, 'UTF8'), 'base64') AS b64, replace($1, '/', '\\\\/') AS escaped"
    params {
        v "string" required=#true
    }
}
can query number {
    describe "Casts a text to an integer: the database quotes a bad one in its error."
    sql "SELECT $1::integer AS n"
    params {
        v "string" required=#true
    }
}
`;

let gw: TestGateway;

beforeAll(async () => {
  gw = await startGateway(SPEC, { env: { READER: READER_KEY, OTHER: OTHER_KEY } });
}, 90_000);

afterAll(async () => {
  await gw?.close();
});

const auth = { authorization: `Bearer ${READER_KEY}` };

async function both(tool: string, args: unknown): Promise<string[]> {
  const rest = await postJson(`${gw.url}/api/${tool}`, args, auth);
  const mcp = await postToolCall(gw.url, tool, args, { era: 'legacy', key: READER_KEY });
  expect(mcp.status).toBe(200);
  return [rest.text, mcp.text];
}

describe('rows and database errors holding a secret of the gateway', () => {
  it('return rows with another caller’s API key replaced, as written, escaped and in base64', async () => {
    const rest = await postJson(`${gw.url}/api/query_echo`, { v: `key: ${OTHER_KEY}` }, auth);
    expect(rest.status).toBe(200);
    expect((rest.json as { result: unknown }).result).toEqual([
      { v: 'key: [REDACTED]', b64: expect.any(String) as unknown, escaped: 'key: [REDACTED]' },
    ]);
    for (const text of await both('query_echo', { v: OTHER_KEY }))
      expect(leaksIn(text, [OTHER_KEY])).toEqual([]);
  });

  it('answer a database error that quotes a secret with the secret replaced', async () => {
    const rest = await postJson(`${gw.url}/api/query_number`, { v: OTHER_KEY }, auth);
    expect(rest.status).toBeGreaterThanOrEqual(400);
    expect(rest.text).toContain('[REDACTED]');
    for (const text of await both('query_number', { v: OTHER_KEY }))
      expect(leaksIn(text, [OTHER_KEY])).toEqual([]);
    expect(leaksIn(gw.logs(), [OTHER_KEY, READER_KEY])).toEqual([]);
  });
});
