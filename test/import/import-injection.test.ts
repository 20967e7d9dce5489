/**
 * Document text never leaves the `//` comment or the string it is written into: every
 * character KDL reads as a newline (not only those JavaScript's `\s` knows) is replaced,
 * and the importer reads its own output back before it hands it out.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from '@bgotink/kdl';
import { describe, expect, it } from 'vitest';
import { verifiedText } from '../../src/import/openapi/import-openapi.js';
import { node, writeKdl } from '../../src/import/openapi/kdl-nodes.js';
import { ImportError } from '../../src/import/openapi/load-document.js';
import { readBackProblem } from '../../src/import/openapi/read-back.js';
import { compileSpecText } from '../../src/compiler/load-spec.js';
import { draft, checkErrors } from './draft-helpers.js';

const INJECTION = join(import.meta.dirname, 'fixtures', 'injection');

/** Every code point KDL 2 reads as a line break, as JSON escapes. */
const NEWLINES: [string, string][] = [
  ['NEL', '\\u0085'],
  ['LF', '\\n'],
  ['CR', '\\r'],
  ['VT', '\\u000b'],
  ['FF', '\\u000c'],
  ['LS (U+2028)', '\\u2028'],
  ['PS (U+2029)', '\\u2029'],
];

/** The fixture with each of its NELs replaced by `newline`, as a file of its own. */
function withNewline(fixture: string, newline: string): string {
  const text = readFileSync(join(INJECTION, fixture), 'utf8').replaceAll('\\u0085', newline);
  const file = join(mkdtempSync(join(tmpdir(), 'beaver-injection-')), fixture);
  writeFileSync(file, text);
  return file;
}

/** What the draft would serve: top-level nodes, and each tool's method, headers and hints. */
function served(text: string) {
  const nodes = parse(text, { as: 'document' }).nodes.map((n) => n.getName());
  const compiled = compileSpecText(text, 'draft.mcp.kdl').compiled;
  const tools = (compiled?.tools ?? []).map((t) => ({
    name: t.name,
    method: t.backend.kind === 'http' ? t.backend.method : 'sql',
    headers: t.backend.kind === 'http' ? t.backend.headers : [],
    readOnly: t.annotations.readOnlyHint,
  }));
  return { nodes, tools, resources: compiled?.resources.length ?? -1 };
}

const ONE_READ = {
  nodes: ['wrap', 'base-url', 'can'],
  tools: [{ name: 'list_items', method: 'GET', headers: [], readOnly: true }],
  resources: 0,
};

describe.each(NEWLINES)('document text holding %s', (_name, newline) => {
  it('in an operationId stays in the source comment: no grant is added', async () => {
    const { text } = await draft(withNewline('operation-id.json', newline));
    expect(checkErrors(text)).toEqual([]);
    expect(served(text)).toEqual(ONE_READ);
  });

  it('in a header parameter name stays in its note: the read-only tool still sends GET', async () => {
    const { text } = await draft(withNewline('header-parameter.json', newline));
    expect(checkErrors(text)).toEqual([]);
    expect(served(text)).toEqual(ONE_READ);
  });

  it('in a server URL stays in the base-url note: no header is added to upstream requests', async () => {
    const { text } = await draft(withNewline('server-url.json', newline));
    expect(checkErrors(text)).toEqual([]);
    expect(served(text)).toEqual(ONE_READ);
  });

  it("in a security scheme's name stays in the auth note: no grant is added", async () => {
    const { text } = await draft(withNewline('security-scheme.json', newline));
    expect(checkErrors(text)).toEqual([]);
    expect(served(text)).toEqual(ONE_READ);
  });

  it('in info.title stays in the header comment and the title string: no grant is added', async () => {
    const { text } = await draft(withNewline('info-title.json', newline));
    expect(checkErrors(text)).toEqual([]);
    expect(served(text)).toEqual(ONE_READ);
  });
});

describe('characters KDL forbids in a document', () => {
  it('are escaped in comments (NUL, DEL, bidi controls, a BOM, lone surrogates), so check accepts the draft', async () => {
    const { text } = await draft(join(INJECTION, 'forbidden-characters.json'));
    expect(checkErrors(text)).toEqual([]);
    expect(served(text)).toEqual(ONE_READ);
    expect(text).toContain(
      '// GET /items (listItems\\u{0}\\u{202e}\\u{2066}\\u{feff}\\u{dc00}\\u{8})',
    );
  });
});

describe('reading the draft back before it is handed out', () => {
  const items = [
    node('wrap', [
      [null, 'items'],
      ['version', '1'],
    ]),
    node(
      'can',
      [
        [null, { ident: 'list' }],
        [null, { ident: 'items' }],
      ],
      [node('path', [[null, '/items']])],
    ),
  ];

  it('accepts the text the writer made of the nodes', () => {
    expect(readBackProblem(items, writeKdl(items))).toBeUndefined();
  });

  it('names the first node the text has that the importer did not write', () => {
    const text = writeKdl(items).replace('    path', '    method "DELETE"\n    path');
    expect(readBackProblem(items, text)).toBe(
      'node 2 (can) > node 1: meant `path "/items"`, read `method "DELETE"`',
    );
  });

  it('names a node the text lacks, a changed value and text that is not KDL', () => {
    expect(readBackProblem(items, 'wrap "items" version="1"\n')).toBe(
      'node 2: meant `can "list" "items"`, read nothing',
    );
    expect(readBackProblem(items, writeKdl(items).replace('"1"', '"2"'))).toBe(
      'node 1: meant `wrap "items" version="1"`, read `wrap "items" version="2"`',
    );
    expect(readBackProblem(items, 'wrap "items\n')).toMatch(/^it is not valid KDL \(/);
  });

  it('makes the import fail with one line that names the document, so the CLI writes nothing', () => {
    // The text an escaped comment would give: one grant more than the importer wrote.
    const text = `${writeKdl(items)}can delete everything {\n    path "/admin"\n}\n`;
    const err = (() => {
      try {
        return verifiedText(items, 'api.json', text);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ImportError);
    expect((err as Error).message).toBe(
      'api.json: the draft does not read back as the importer wrote it, so nothing was written (node 3: meant nothing, read `can "delete" "everything"`)',
    );
    expect(verifiedText(items, 'api.json')).toBe(writeKdl(items));
  });
});
