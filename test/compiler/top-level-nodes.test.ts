import { getLocation, parse, type Node } from '@bgotink/kdl';
import { describe, expect, it } from 'vitest';
import { compileSpecText } from '../../src/compiler/load-spec.js';
import { NotPlaced, parseSpec, topLevelByPiece } from '../../src/compiler/parse-spec.js';
import { topLevelNodes } from '../../src/compiler/top-level-nodes.js';

const TRICKY = `// a comment with { and "
wrap "tricky" version="1.0.0" {
    describe "braces in a string: { } ; and an escaped quote \\" stay inside"
}
/* a block /* nested */ comment { */ base-url "http://127.0.0.1:9"
auth bearer env="TOP_TOKEN"
/-can list ghosts {
    path "/ghosts"
}
can get item { describe #"raw { "quoted" }"#; path "/items/{id}" { id "integer"; }; }
  can list items \\
      {
    describe """
        multi-line { with a brace
        """
    path "/items"
}
mcp-server tracker url="http://127.0.0.1:9/mcp" { auth bearer env="TRACKER_TOKEN"; }
can search issues {
    describe "Search."
    tool "tracker" "search"
}
`;

describe('the top-level scan that stands in for the parser’s locations', () => {
  it('finds where each top-level node starts, past comments, strings and blocks that hold braces', () => {
    const parsed = parse(TRICKY, { as: 'document', storeLocations: true }).nodes.map((n) => {
      const at = getLocation(n.name)!.start;
      return [at.line, at.column];
    });
    const scanned = topLevelNodes(TRICKY);
    expect(scanned.filter((n) => !n.commented).map((n) => [n.line, n.column])).toEqual(parsed);
    expect(parsed).toHaveLength(7);
    expect(scanned.filter((n) => n.commented).map((n) => n.line)).toEqual([7]);
  });

  it('places grants, servers and variables exactly where a parse with locations does', () => {
    const fast = parseSpec(TRICKY, 'tricky.mcp.kdl', { locations: false });
    const slow = parseSpec(TRICKY, 'tricky.mcp.kdl');
    expect(fast).toBeDefined();
    expect(fast!.spec!.variables).toEqual(slow!.spec!.variables);
    expect(fast!.spec!.variables.map((v) => [v.name, v.line, v.column])).toEqual([
      ['TOP_TOKEN', 6, 13],
      ['TRACKER_TOKEN', 18, 63],
    ]);
    const compiled = compileSpecText(TRICKY, 'tricky.mcp.kdl');
    expect(compiled.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(compiled.compiled!.tools.map((t) => [t.name, t.source.line, t.source.column])).toEqual([
      ['get_item', 10, 1],
      ['list_items', 11, 3],
      ['search_issues', 19, 1],
    ]);
    expect(compiled.compiled!.mcpServers?.map((s) => s.source.line)).toEqual([18]);
  });

  it('reports an error of a spec at its token, not at the scan’s 1:1', () => {
    const bad = TRICKY.replace('id "integer";', 'id "integr";');
    const { diagnostics, compiled } = compileSpecText(bad, 'tricky.mcp.kdl');
    expect(compiled).toBeUndefined();
    const error = diagnostics.find((d) => d.severity === 'error')!;
    expect([error.line, error.column]).toEqual([10, 71]);
  });

  it('falls back to the parser’s locations when the scan cannot be matched to the nodes', () => {
    // A quoted node name: the scan does not read names, so it declines to place the node.
    const quoted = `wrap "q" version="1.0.0" {\n    describe "Q."\n}\n"base-url" "http://127.0.0.1:9"\n`;
    expect(parseSpec(quoted, 'q.mcp.kdl', { locations: false })).toBeUndefined();
    expect(compileSpecText(quoted, 'q.mcp.kdl').compiled).toBeDefined();
  });
});

/** A node as data: what the parser read, without its whitespace or positions. */
function meaning(n: Node): unknown {
  return [
    n.getTag(),
    n.getName(),
    n.entries.map((e) => [e.getName(), e.getTag(), e.getValue()]),
    n.children ? n.children.nodes.map(meaning) : null,
  ];
}

describe('the parse one top-level node at a time', () => {
  it('reads the same nodes as a parse of the whole document', () => {
    const pieces = [...topLevelByPiece(TRICKY)].map((p) => meaning(p.node));
    expect(pieces).toEqual(parse(TRICKY, { as: 'document' }).nodes.map(meaning));
    expect(pieces).toHaveLength(7);
  });

  it('declines a node glued to the block before it, which the whole document refuses', () => {
    const glued = `wrap "g" version="1.0.0" {
    describe "G."
}base-url "http://127.0.0.1:9"
`;
    expect(() => parse(glued, { as: 'document' })).toThrow();
    expect(() => [...topLevelByPiece(glued)]).toThrow(NotPlaced);
    const { compiled, diagnostics } = compileSpecText(glued, 'g.mcp.kdl');
    expect(compiled).toBeUndefined();
    expect(diagnostics.map((d) => d.code)).toContain('SPEC_SYNTAX');
  });

  it('declines a node name the parser checks only after a document’s first token', () => {
    // Alone, `base-url\u2066` or `.5` parses: the parser does not check a document's
    // first token as it does the others.
    for (const name of ['base-url\u2066', '.5']) {
      const hidden = `wrap "h" version="1.0.0" {\n    describe "H."\n}\n${name} "http://127.0.0.1:9"\n`;
      expect(() => parse(hidden.slice(hidden.indexOf(name)), { as: 'document' })).not.toThrow();
      expect(() => parse(hidden, { as: 'document' })).toThrow();
      expect(() => [...topLevelByPiece(hidden)]).toThrow(NotPlaced);
      const { compiled, diagnostics } = compileSpecText(hidden, 'h.mcp.kdl');
      expect(compiled).toBeUndefined();
      expect(diagnostics.map((d) => [d.code, d.line])).toContainEqual(['SPEC_SYNTAX', 4]);
    }
  });

  it('still finds at boot an error inside a grant read piece by piece, at its token', () => {
    const bad = TRICKY.replace('tool "tracker" "search"', 'tool "tracker" "search" timeout="soon"');
    const { compiled, diagnostics } = compileSpecText(bad, 'tricky.mcp.kdl');
    expect(compiled).toBeUndefined();
    const error = diagnostics.find((d) => d.severity === 'error')!;
    expect([error.line, error.column]).toEqual([21, 29]);
  });
});
