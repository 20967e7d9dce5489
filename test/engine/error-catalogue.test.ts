import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../../src/engine/error-catalogue.js';
import { renderErrorDocs } from '../../scripts/render-error-docs.js';

describe('the error catalogue', () => {
  it('is documented in docs/errors.md exactly as the code has it (run npm run docs:errors)', () => {
    expect(readFileSync('docs/errors.md', 'utf8')).toBe(renderErrorDocs());
  });

  it('gives every code an HTTP error status and a place in MCP', () => {
    for (const [code, entry] of Object.entries(ERROR_CATALOGUE)) {
      expect(entry.status, code).toBeGreaterThanOrEqual(400);
      expect(['tool-error', 'jsonrpc'], code).toContain(entry.mcp);
      expect(entry.summary.length, code).toBeGreaterThan(10);
    }
  });

  it('keeps codes in SCREAMING_SNAKE_CASE so clients can match on them', () => {
    for (const code of Object.keys(ERROR_CATALOGUE)) expect(code).toMatch(/^[A-Z][A-Z_]+$/);
  });
});
