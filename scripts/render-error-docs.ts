/**
 * Renders docs/errors.md from the error catalogue (src/engine/error-catalogue.ts) and
 * MCP's framing of it (src/projection/mcp/rpc-codes.ts), so the documented codes,
 * statuses, JSON-RPC codes and challenges are the ones both surfaces answer with: their
 * reply builders read the same rows.
 * `npm run docs:errors` writes it; test/engine/error-catalogue.test.ts checks it.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  ERROR_CATALOGUE,
  type CatalogueEntry,
  type ErrorCode,
} from '../src/engine/error-catalogue.js';
import { PROTOCOL_ERRORS, rpcRow, type ProtocolEntry } from '../src/projection/mcp/rpc-codes.js';
import {
  CHECK_ERROR_CODES,
  CHECK_WARNING_CODES,
  SPEC_ERROR_CODES,
  SPEC_WARNING_CODES,
} from '../src/compiler/diagnostics.js';
import { STARTUP_REFUSAL_CODES } from '../src/server/workers/shared-state.js';

const CHALLENGES = {
  credentials: '`Bearer`, with `resource_metadata` when `access` has `oauth`',
  scopes: '`insufficient_scope`, every scope the grant needs',
} as const;

function mcpCell(code: ErrorCode, e: CatalogueEntry): string {
  const row = rpcRow(code);
  const note = row.note === undefined ? '' : ` (${row.note})`;
  if (e.audience === 'edge')
    return e.restOnly
      ? 'never on /mcp: the REST routes alone answer it'
      : 'the REST answer, on every path (no message was read)';
  if (e.audience === 'model') {
    const base =
      row.rpc === undefined
        ? 'tool result, `isError: true`'
        : `tool result, \`isError: true\`; outside a call, JSON-RPC error \`${row.rpc}\``;
    // A 2026-07-28 request lacking a capability the call needs is told so as a JSON-RPC error.
    return row.modernRpc === undefined
      ? base
      : `${base}; in 2026-07-28, JSON-RPC error \`${row.modernRpc}\`, HTTP 400${note}`;
  }
  const status = row.status !== undefined ? `, HTTP ${row.status}` : '';
  return `JSON-RPC error \`${row.rpc}\`${status}${note}`;
}

function protocolStatus(e: ProtocolEntry): string {
  return e.legacyStatus === undefined
    ? String(e.status)
    : `${e.status} (${e.legacyStatus} before 2026-07-28)`;
}

export function renderErrorDocs(): string {
  const rows = Object.entries(ERROR_CATALOGUE).map(([code, e]: [string, CatalogueEntry]) => {
    const challenge = e.challenge === undefined ? '' : CHALLENGES[e.challenge];
    return `| \`${code}\` | ${e.status} | ${mcpCell(code as ErrorCode, e)} | ${challenge} | ${e.summary} |`;
  });
  const protocol = Object.entries(PROTOCOL_ERRORS).map(
    ([code, e]: [string, ProtocolEntry]) =>
      `| \`${code}\` | ${protocolStatus(e)} | \`${e.rpc}\` | ${e.summary} |`,
  );
  const table = (codes: Readonly<Record<string, string>>): string =>
    Object.entries(codes)
      .map(([code, summary]) => `| \`${code}\` | ${summary} |`)
      .join('\n');
  return `# Error codes

Generated from \`src/engine/error-catalogue.ts\`, \`src/projection/mcp/rpc-codes.ts\` and
\`src/compiler/diagnostics.ts\` by \`npm run docs:errors\`; a test fails when this file and
the code disagree.

## Call errors

Every failure a call can meet has one stable code. The REST surface answers with the
status below and \`{"error": {"code", "message", "details"?}}\`; \`Retry-After\` comes
with 429 and 503. On MCP, a tool failure is a \`tools/call\` result with \`isError: true\`
whose text starts with the code, so a model can act on it; a malformed call is a
JSON-RPC error with the code below, sent with the same HTTP status unless one is given.
Where a challenge is named, the answer carries \`WWW-Authenticate\` on both surfaces.

| code | REST status | MCP | WWW-Authenticate | meaning |
|---|---|---|---|---|
${rows.join('\n')}

## MCP protocol errors

Refusals of the JSON-RPC message itself, before any tool is involved (\`POST /mcp\`
only). A body that is not JSON at all is \`INVALID_JSON\` above, JSON-RPC \`-32700\`.

| code | HTTP status | JSON-RPC | meaning |
|---|---|---|---|
${protocol.join('\n')}

## Load errors (spec compiler)

\`mcp-beaver check\` prints each as \`file:line:col: error CODE: grant …: field …: what is wrong\`;
a spec with any of them does not load. See docs/spec-language.md for examples.

| code | meaning |
|---|---|
${table(SPEC_ERROR_CODES)}

\`check\` also compiles every input schema as \`serve\` would, and prints in the same form:

| code | meaning |
|---|---|
${table(CHECK_ERROR_CODES)}

## Load warnings

| code | meaning |
|---|---|
${table(SPEC_WARNING_CODES)}

\`check\` also warns of the size of each tools/list it would serve, in the same form
(\`file:line:col: warning CODE: …\`):

| code | meaning |
|---|---|
${table(CHECK_WARNING_CODES)}

## Start-up refusals

\`serve\` stops before it listens, with the code first in its message, when a spec cannot be
served as asked:

| code | meaning |
|---|---|
${table(STARTUP_REFUSAL_CODES)}
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(new URL('../docs/errors.md', import.meta.url), renderErrorDocs());
}
