import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, type Node } from '@bgotink/kdl';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NotPlaced, topLevelByPiece } from '../../src/compiler/parse-spec.js';

const SPECS = join(import.meta.dirname, '..', '..', 'specs');
const TEXTS = readdirSync(SPECS)
  .filter((f) => f.endsWith('.mcp.kdl'))
  .map((f) => readFileSync(join(SPECS, f), 'utf8'));

/** What could end a node, open or close a block, string or comment, or be refused. */
const SIGNIFICANT = [
  '\n',
  ';',
  '{',
  '}',
  '"',
  '"""',
  '#',
  '#"',
  '"#',
  '/-',
  '//',
  '/*',
  '*/',
  '\\',
  ' ',
  '=',
  '(',
  ')',
  '\r',
  '\u000c',
  '\u0085',
  '\u2066',
  '.5',
  'a',
  '1',
  '-',
];

/** A node as data: what the parser read, without its whitespace or positions. */
function meaning(n: Node): unknown {
  return [
    n.getTag(),
    n.getName(),
    n.entries.map((e) => [e.getName(), e.getTag(), e.getValue()]),
    n.children ? n.children.nodes.map(meaning) : null,
  ];
}

/** The nodes read piece by piece, or 'not placed'. */
function byPiece(text: string): unknown {
  try {
    return [...topLevelByPiece(text)].map((p) => meaning(p.node));
  } catch (err) {
    if (err instanceof NotPlaced) return 'not placed';
    throw err;
  }
}

function whole(text: string): unknown {
  try {
    return parse(text, { as: 'document' }).nodes.map(meaning);
  } catch {
    return 'refused';
  }
}

/** A spec of the project, edited at a few places with what matters to the scan. */
const edited = fc
  .record({
    text: fc.constantFrom(...TEXTS),
    edits: fc.array(
      fc.record({
        at: fc.double({ min: 0, max: 1, noNaN: true }),
        cut: fc.nat({ max: 3 }),
        put: fc.constantFrom(...SIGNIFICANT),
      }),
      { maxLength: 4 },
    ),
  })
  .map(({ text, edits }) =>
    edits.reduce((t, e) => {
      const i = Math.floor(e.at * t.length);
      return t.slice(0, i) + e.put + t.slice(i + e.cut);
    }, text),
  );

describe('the parse one top-level node at a time, held to the whole parse', () => {
  it('reads the project’s specs as the whole parse does', () => {
    expect(TEXTS.length).toBeGreaterThan(3);
    for (const text of TEXTS) expect(byPiece(text)).toEqual(whole(text));
  });

  it('on edited specs, either declines or reads exactly what the whole parse reads', () => {
    fc.assert(
      fc.property(edited, (text) => {
        const pieces = byPiece(text);
        if (pieces !== 'not placed') expect(pieces).toEqual(whole(text));
      }),
      { numRuns: 3_000, seed: 40 },
    );
  });
});
