/**
 * What the importer drafts from what a document says: hints no bolder than the method,
 * enums no looser than the document, no path the gateway refuses, no name it reserves.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileSpecText } from '../../src/compiler/load-spec.js';
import { runCli } from '../helpers/run-cli.js';
import { checkErrors, draft, grantText, toolNames } from './draft-helpers.js';

const FIXTURES = join(import.meta.dirname, 'fixtures', 'drafting');

describe('the verb of a write', () => {
  it('never gives idempotentHint (or any hint) bolder than the method: POST and PATCH are not idempotent', async () => {
    const { text } = await draft(join(FIXTURES, 'hints.json'), { writes: true });
    expect(checkErrors(text)).toEqual([]);
    const tools = compileSpecText(text, 'hints.mcp.kdl').compiled!.tools.map((t) => [
      t.name,
      t.backend.kind === 'http' && t.backend.method,
      t.annotations.readOnlyHint,
      t.annotations.destructiveHint,
      t.annotations.idempotentHint,
    ]);
    expect(tools).toEqual([
      // POST drafted as `delete … method "POST"` would claim idempotentHint: true.
      ['create_thing_purge', 'POST', false, false, false],
      // `upsert` is a PUT verb (idempotent); on POST it is not.
      ['create_thing', 'POST', false, false, false],
      // `update` is a PATCH verb: on PUT it claims less than the method (not idempotent).
      ['update_thing', 'PUT', false, true, false],
      // `set` is a PUT verb; on PATCH the verb is the method's own.
      ['update_thing_set', 'PATCH', false, true, false],
      // `cancel` is a DELETE verb: on DELETE it keeps the method's hints.
      ['cancel_thing', 'DELETE', false, true, true],
    ]);
  });
});

describe('an enum with values that break the field’s bounds', () => {
  it('keeps the values that fit and notes the dropped ones', async () => {
    const { text } = await draft(join(FIXTURES, 'enums.json'));
    expect(checkErrors(text)).toEqual([]);
    expect(grantText(text, 'GET /things (listThings)')).toBe(
      [
        '// GET /things (listThings)',
        'can list things {',
        '    describe "GET /things."',
        '    path "/things"',
        '    query {',
        '        size "string" max-length=6 {',
        '            enum "small" "medium"',
        '            // enum value "enormous" dropped: it breaks the field\'s bounds',
        '        }',
        '        level "integer" min=1 max=10 {',
        '            enum 1 5',
        "            // enum values 50, 0 dropped: they break the field's bounds",
        '        }',
        '        // query parameter shade left out: none of its enum values ("light", "dark") fits its bounds',
        '    }',
        '}',
      ].join('\n'),
    );
  });
});

describe('a literal path segment the gateway refuses', () => {
  it('(an encoded dot segment, ..; or an encoded slash) skips the operation, with the reason counted', async () => {
    const { text, summary } = await draft(join(FIXTURES, 'encoded-paths.json'));
    expect(checkErrors(text)).toEqual([]);
    expect(toolNames(text)).toEqual(['get_file']);
    expect([...summary.skipped]).toEqual([
      [
        'its path has a segment the gateway refuses (an encoded dot segment, "..;" or an encoded slash)',
        7,
      ],
    ]);
    expect(text).toContain(
      '// GET /files/%2E%2e/config\n// skipped: path "/files/%2E%2e/config" has a segment the gateway refuses (an encoded dot segment, "..;" or an encoded slash): "%2E%2e"',
    );
  });
});

describe('a parameter or field whose upstream name is reserved', () => {
  it('is left out with a note, so check accepts the draft', async () => {
    const { text } = await draft(join(FIXTURES, 'reserved-names.json'), { writes: true });
    expect(checkErrors(text)).toEqual([]);
    expect(text).not.toContain('as="__proto__"');
    expect(grantText(text, 'GET /things (listThings)')).toContain(
      [
        '    query {',
        '        constructor "string"',
        '        limit "integer"',
        "        // query parameter __proto__ left out: its name __proto__ is reserved (check refuses it: JSON readers treat it as the object's prototype)",
        '    }',
      ].join('\n'),
    );
    expect(grantText(text, 'POST /things (createThing)')).toContain(
      '        // field "__proto__" left out: its name __proto__ is reserved (check refuses it: JSON readers treat it as the object\'s prototype)',
    );
  });
});

describe('terminal control sequences in a document', () => {
  // C0 controls (ESC starts every sequence, BEL ends an OSC, CR rewrites the line) and C1.
  const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/; // eslint-disable-line no-control-regex

  it('reach the terminal escaped, in the summary on stderr and the draft on stdout', async () => {
    const r = await runCli(['import', 'openapi', join(FIXTURES, 'terminal-controls.json')]);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(CONTROL);
    expect(r.stdout).not.toMatch(CONTROL);
    expect(r.stderr).toContain(
      'list_things → list_things_b_52_c_a_gk_imported_9  (GET /Things (b\\u001b]52;c;aGk=\\u0007\\u000dimported 9 of 9))',
    );
  });

  it('reach the terminal escaped in the one-line error', async () => {
    const file = join(FIXTURES, 'terminal-controls-ref.json');
    const r = await runCli(['import', 'openapi', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(CONTROL);
    expect(r.stderr).toBe(
      `mcp-beaver import: ${file}: the $ref "/etc/\\u001b[2Jpasswd\\u009b" is outside ${FIXTURES}; pass --ref-root <dir> to allow refs under a parent folder\n`,
    );
  });
});
