/**
 * The error answers of a shaped sql grant against the machine's real PostgreSQL
 * (spec-language.md, "Shaping results (`pick` and `omit`)"): they carry the SQLSTATE, never a
 * value Postgres quotes from a row (a cast error's message, a unique violation's
 * DETAIL), on REST, on MCP and in the logs. Works in its own schema under the
 * shared-Postgres lock, like the other files here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, type TestGateway } from '../helpers/gateway.js';
import { leaksIn } from '../helpers/leaks.js';
import { postToolCall } from '../helpers/call-tool.js';
import { startGatewayOnSchema } from '../helpers/schema-gateway.js';

const EMAIL = 'omitted-9Zr4@example.test';
const CODE = 'omitted-code-5Hq8';

const SEED = `
CREATE TABLE accounts (
    id    integer PRIMARY KEY,
    email text NOT NULL UNIQUE,
    code  text NOT NULL
);
INSERT INTO accounts VALUES (1, '${EMAIL}', '${CODE}');
CREATE FUNCTION checked(c text) RETURNS boolean LANGUAGE plpgsql AS $fn$
BEGIN
    RAISE EXCEPTION 'code % is not valid', c;
END
$fn$;
`;

// checkout-timeout: the first call opens the pool's connection, which on a busy CI
// machine took over the default 1 s once (DATABASE_UNAVAILABLE); these tests are about
// how a statement's error is answered, not about the wait.
const SPEC = `
wrap "sql-shaping-errors" version="1.0.0"
database env="DATABASE_URL" pool=2 checkout-timeout="30s"
can list accounts {
    describe "Accounts with their numeric code, without email or code text."
    sql "SELECT id, email, code, code::integer AS code_number FROM accounts ORDER BY id"
    omit "email" "code"
}
can list checked-accounts {
    describe "Accounts whose code a function checks (it raises, quoting the code)."
    sql "SELECT id, email, checked(code) AS ok FROM accounts ORDER BY id"
    omit "email"
}
can create account-copy {
    describe "Copies an account under a new id."
    sql "INSERT INTO accounts (id, email, code) SELECT $1, email, code FROM accounts WHERE id = $2 RETURNING id"
    params {
        id "integer" required=#true
        from "integer" required=#true
    }
    pick "id"
}
`;

let gw: TestGateway;
let stop: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ gw, stop } = await startGatewayOnSchema(SEED, SPEC));
}, 150_000);

afterAll(() => stop?.());

interface RestError {
  error: { code: string; message: string; details?: Record<string, unknown> };
}
interface McpAnswer {
  result: { isError?: boolean; content: { text: string }[] };
}

/** The call over REST and over MCP; neither answer nor the logs hold a row value. */
async function callBoth(tool: string, args: Record<string, unknown>) {
  const rest = await postJson(`${gw.url}/api/${tool}`, args);
  const mcp = await postToolCall(gw.url, tool, args, { era: 'legacy' });
  expect(leaksIn(rest.text, [EMAIL, CODE])).toEqual([]);
  expect(leaksIn(mcp.text, [EMAIL, CODE])).toEqual([]);
  expect(leaksIn(gw.logs(), [EMAIL, CODE])).toEqual([]);
  return { rest: rest.json as RestError, mcp: (mcp.json as McpAnswer).result, status: rest.status };
}

describe('a shaped sql grant whose statement fails on a row value', () => {
  it('answers a cast error of an omitted column with the SQLSTATE and no quote of the value', async () => {
    const { rest, mcp } = await callBoth('list_accounts', {});
    expect(rest.error.code).toBe('SQL_DATA');
    expect(rest.error.details).toEqual({ sqlstate: '22P02' });
    expect(rest.error.message).toContain('SQLSTATE 22P02');
    expect(mcp.isError).toBe(true);
    expect(mcp.content[0]!.text).toContain('SQLSTATE 22P02');
  });

  it('answers an exception raised with a row value with the SQLSTATE and no message', async () => {
    const { rest, mcp } = await callBoth('list_checked_accounts', {});
    expect(rest.error.code).toBe('SQL_ERROR');
    expect(rest.error.details).toEqual({ sqlstate: 'P0001' });
    expect(mcp.isError).toBe(true);
  });

  it('answers a unique violation on a copied row with the SQLSTATE and no DETAIL', async () => {
    const { rest, mcp, status } = await callBoth('create_account_copy', { id: 2, from: 1 });
    expect(status).toBe(409);
    expect(rest.error.code).toBe('SQL_CONFLICT');
    expect(rest.error.details).toMatchObject({ sqlstate: '23505' });
    expect(mcp.isError).toBe(true);
  });
});
