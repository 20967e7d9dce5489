/**
 * Renders docs/errors.md from the error catalogue (src/engine/error-catalogue.ts), so
 * the documented codes, statuses and meanings are the ones the code answers with.
 * `npm run docs:errors` writes it; test/engine/error-catalogue.test.ts checks it.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ERROR_CATALOGUE } from '../src/engine/error-catalogue.js';
import { SPEC_ERROR_CODES, SPEC_WARNING_CODES } from '../src/spec/diagnostics.js';

export function renderErrorDocs(): string {
  const rows = Object.entries(ERROR_CATALOGUE).map(
    ([code, e]) =>
      `| \`${code}\` | ${e.status} | ${e.mcp === 'tool-error' ? 'tool result, `isError: true`' : 'JSON-RPC error'} | ${e.summary} |`,
  );
  const spec = Object.entries(SPEC_ERROR_CODES).map(
    ([code, summary]) => `| \`${code}\` | ${summary} |`,
  );
  const warnings = Object.entries(SPEC_WARNING_CODES).map(
    ([code, summary]) => `| \`${code}\` | ${summary} |`,
  );
  return `# Error codes

Generated from \`src/engine/error-catalogue.ts\` and \`src/spec/diagnostics.ts\` by
\`npm run docs:errors\`; a test fails when this file and the code disagree.

## Call errors

Every failure a call can meet has one stable code. The REST surface answers with the
status below and \`{"error": {"code", "message", "details"?}}\`; \`Retry-After\` comes
with 429 and 503. On MCP, a tool failure is a \`tools/call\` result with \`isError: true\`
whose text starts with the code, so a model can act on it; a malformed call is a
JSON-RPC error.

| code | REST status | MCP | meaning |
|---|---|---|---|
${rows.join('\n')}

## Load errors (spec compiler)

\`mcp-beaver check\` prints each as \`file:line:col: error CODE: grant …: field …: what is wrong\`;
a spec with any of them does not load. See docs/spec-language.md for examples.

| code | meaning |
|---|---|
${spec.join('\n')}

## Load warnings

| code | meaning |
|---|---|
${warnings.join('\n')}
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(new URL('../docs/errors.md', import.meta.url), renderErrorDocs());
}
