/**
 * A form body whose encoding would be out of proportion to its arguments (every key
 * path is repeated per value) is an expected failure: buildBody answers it as a value,
 * and the HTTP backend turns it into INVALID_ARGUMENTS without sending anything.
 */
import { describe, expect, it } from 'vitest';
import { buildBody, planBody } from '../../src/engine/backends/http/body.js';
import type { HttpBackend } from '../../src/compiler/descriptor.js';
import { compileSpecText } from '../../src/compiler/load-spec.js';
import { withoutNumberTexts } from '../../src/json/number-text.js';

const SPEC = `
wrap "forms" version="1.0.0"
base-url "http://127.0.0.1:9/v1"
can create form-thing {
    path "/form"
    body encoding="form" {
        meta "raw" kind="object"
    }
}
`;

function plan() {
  const d = compileSpecText(SPEC, 'forms.mcp.kdl').compiled!.tools[0]!;
  return planBody(d.backend as HttpBackend, d.arguments)!;
}

/** `{"meta": {k…: {k…: … {"a": 0}}}}`: few bytes in, each leaf's name repeats every key above it. */
function deep(depth: number, keyLength: number, leaves: number): Record<string, unknown> {
  let inner: Record<string, unknown> = Object.fromEntries(
    Array.from({ length: leaves }, (_, i) => [`f${i}`, 0]),
  );
  for (let d = 0; d < depth; d++) inner = { ['k'.repeat(keyLength)]: inner };
  return { meta: inner };
}

describe('buildBody with a form encoding', () => {
  it('builds bracket notation for a modest object', () => {
    const out = buildBody(plan(), withoutNumberTexts({ meta: { a: { b: 1 }, c: [1, 2] } }));
    expect(out).toEqual({
      contentType: 'application/x-www-form-urlencoded',
      payload: 'meta%5Ba%5D%5Bb%5D=1&meta%5Bc%5D%5B%5D=1&meta%5Bc%5D%5B%5D=2',
    });
  });

  it('refuses, as a value naming the cause, a form that would outgrow its arguments', () => {
    const out = buildBody(plan(), withoutNumberTexts(deep(60, 1000, 2000)));
    expect(out).toEqual({ refused: expect.stringMatching(/form encoding would be 16 times/) });
  });

  it('builds a deep form that stays within proportion', () => {
    const out = buildBody(plan(), withoutNumberTexts(deep(3, 10, 5)));
    expect('payload' in out && out.payload.split('&')).toHaveLength(5);
  });
});
