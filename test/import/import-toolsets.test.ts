import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { compileSpecText } from '../../src/compiler/load-spec.js';
import { TOOLSET_NAME } from '../../src/compiler/kinds/toolset.js';
import type { ImportResult } from '../../src/import/openapi/import-openapi.js';
import { formatSummary } from '../../src/import/openapi/summary.js';
import { tagToolsets, toolsetNameOf } from '../../src/import/openapi/tag-toolsets.js';
import { checkErrors, draft } from './draft-helpers.js';

const LONG = `Very ${'long '.repeat(20)}tag`;

/** A document whose tags exercise every naming rule, and operations that make no grant. */
const DOC = {
  openapi: '3.0.3',
  info: { title: 'Tag Shop', version: '1.0.0' },
  servers: [{ url: 'https://shop.example.com' }],
  tags: [
    {
      name: 'Pull Requests',
      description:
        'Work with **pull requests**\nacross repositories. Everything else is [elsewhere](https://x.example).',
    },
    { name: 'pull-requests', description: 'Not used: the first tag with a description wins.' },
    { name: 'Bücher', description: 'Books.' },
    { name: 'unused', description: 'No operation carries it.' },
  ],
  paths: {
    '/pulls': {
      get: { operationId: 'listPulls', tags: ['Pull Requests'], responses: { 200: {} } },
      post: { operationId: 'createPull', tags: ['writes-only'], responses: { 201: {} } },
    },
    '/pulls/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
      get: {
        operationId: 'getPull',
        tags: ['pull-requests', 'Bücher', 'Pull Requests'],
        responses: { 200: {} },
      },
      head: { operationId: 'headPull', tags: ['skipped-only'], responses: { 200: {} } },
    },
    '/books': { get: { operationId: 'listBooks', tags: ['Bücher'], responses: { 200: {} } } },
    '/auth': { get: { operationId: 'getAuth', tags: ['2FA'], responses: { 200: {} } } },
    '/users': { get: { operationId: 'listUsers', tags: ['用户'], responses: { 200: {} } } },
    '/orders': { get: { operationId: 'listOrders', tags: ['订单'], responses: { 200: {} } } },
    '/long': { get: { operationId: 'listLong', tags: [LONG], responses: { 200: {} } } },
    '/plain': { get: { operationId: 'listPlain', responses: { 200: {} } } },
  },
};

function tempDoc(doc: object): string {
  const file = join(mkdtempSync(join(tmpdir(), 'beaver-toolsets-')), 'openapi.json');
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

describe('naming a toolset after a tag', () => {
  it('lowers the tag and turns each run of other characters into one -', () => {
    expect(toolsetNameOf('Pull Requests')).toBe('pull-requests');
    expect(toolsetNameOf('  code_scanning / alerts ')).toBe('code-scanning-alerts');
    expect(toolsetNameOf('repos')).toBe('repos');
  });

  it('drops accents, puts tag- before a leading digit, clips to 64, and gives up on no letters', () => {
    expect(toolsetNameOf('Bücher')).toBe('bucher');
    expect(toolsetNameOf('2FA')).toBe('tag-2fa');
    const long = toolsetNameOf(LONG)!;
    expect(long.length).toBeLessThanOrEqual(64);
    expect(long).toMatch(TOOLSET_NAME);
    expect(long.endsWith('-')).toBe(false);
    expect(toolsetNameOf('用户')).toBeUndefined();
    expect(toolsetNameOf('--')).toBeUndefined();
  });

  it('merges tags that give one name, numbers the nameless ones past a name a tag has, and sorts by name', () => {
    const r = tagToolsets(
      [
        { tool: 'a', tags: ['用户', 'Tag 1'] },
        { tool: 'b', tags: ['Pull Requests'] },
        { tool: 'c', tags: ['pull_requests', 'Pull Requests'] },
        { tool: 'd', tags: [] },
        { tool: 'e', tags: ['订单'] },
      ],
      new Map(),
    );
    expect(r.toolsets.map((t) => [t.name, t.tags, t.tools])).toEqual([
      ['pull-requests', ['Pull Requests', 'pull_requests'], ['b', 'c']],
      ['tag-1', ['Tag 1'], ['a']],
      ['tag-2', ['用户'], ['a']],
      ['tag-3', ['订单'], ['e']],
    ]);
    expect(r.untagged).toBe(1);
    expect(r.renamed.map((x) => [x.tag, x.name])).toEqual([
      ['用户', 'tag-2'],
      ['订单', 'tag-3'],
    ]);
  });
});

describe('import openapi --toolsets=tag', () => {
  let file: string;
  let plain: ImportResult;
  let tagged: ImportResult;
  let again: ImportResult;
  beforeAll(async () => {
    file = tempDoc(DOC);
    plain = await draft(file);
    tagged = await draft(file, { toolsets: 'tag' });
    again = await draft(file, { toolsets: 'tag' });
  });

  it('writes the same bytes twice', () => {
    expect(again.text).toBe(tagged.text);
  });

  it('adds the toolsets after the grants and changes nothing before them', () => {
    expect(plain.text).not.toContain('toolset ');
    expect(tagged.text.startsWith(plain.text)).toBe(true);
    expect(tagged.text.slice(plain.text.length)).toMatch(/^\n\/\/ One toolset per tag/);
  });

  it('drafts toolsets that check accepts, one per tag of an imported operation, in name order', () => {
    expect(checkErrors(tagged.text)).toEqual([]);
    const compiled = compileSpecText(tagged.text, 'draft.mcp.kdl').compiled!;
    expect(compiled.toolsets.map((t) => [t.name, t.tools])).toEqual([
      ['bucher', ['get_pull', 'list_books']],
      ['pull-requests', ['list_pulls', 'get_pull']],
      ['tag-1', ['list_users']],
      ['tag-2', ['list_orders']],
      ['tag-2fa', ['get_auth']],
      ['very-long-long-long-long-long-long-long-long-long-long-long-long', ['list_long']],
    ]);
    // The write (no --writes), the HEAD (skipped) and the unused tag make no toolset.
    for (const t of compiled.toolsets) expect(t.name).toMatch(TOOLSET_NAME);
  });

  it("describes a toolset with its tag's first sentence as one line, and names the tags it stands for", () => {
    expect(tagged.text).toContain(
      [
        '// from the tags "Pull Requests", "pull-requests"',
        'toolset "pull-requests" {',
        '    describe "Work with pull requests across repositories."',
        '    tools "list_pulls"',
        '    tools "get_pull"',
        '}',
      ].join('\n'),
    );
    expect(tagged.text).toContain(
      '// from the tag "Bücher"\ntoolset "bucher" {\n    describe "Books."\n',
    );
    expect(tagged.text).toContain('toolset "tag-1" {\n    tools "list_users"\n}');
  });

  it('says how many toolsets it wrote, the largest, each merge and each name that is not the tag', () => {
    const lines = formatSummary(tagged.summary).split('\n');
    expect(lines).toContain('wrote 6 toolsets, one per tag; the largest: bucher (2 tools)');
    expect(lines).toContain(
      '  toolset pull-requests holds the tags "Pull Requests", "pull-requests": they give one name',
    );
    expect(lines).toContain(
      '  toolset tag-1 is the tag "用户", which has no letter or digit a URL segment can hold',
    );
    expect(lines).toContain('  toolset tag-2fa is the tag "2FA", which starts with a digit');
    expect(lines).toContain(
      `  toolset ${toolsetNameOf(LONG)} is the tag ${JSON.stringify(LONG)}, which is longer than 64 characters`,
    );
    expect(lines).toContain('1 imported tool has no tag: /mcp serves it, no toolset does');
    expect(formatSummary(plain.summary)).not.toContain('toolset');
  });

  it('writes no toolset, and says why, when no imported operation has a tag', async () => {
    const r = await draft(tempDoc({ ...DOC, paths: { '/plain': DOC.paths['/plain'] } }), {
      toolsets: 'tag',
    });
    expect(r.text).not.toContain('toolset ');
    expect(formatSummary(r.summary)).toContain('wrote no toolset: no imported operation has a tag');
  });

  it("keeps a tag's quotes, line breaks and controls inside its comment and its describe", async () => {
    const tag = 'Evil"\n} toolset "x" {\u2028\u0085\u001b[31m';
    const r = await draft(
      tempDoc({
        ...DOC,
        tags: [{ name: tag, description: 'One\u2028line\u0085only\u001b. Two.' }],
        paths: {
          '/evil': { get: { operationId: 'getEvil', tags: [tag], responses: { 200: {} } } },
        },
      }),
      { toolsets: 'tag' },
    );
    expect(checkErrors(r.text)).toEqual([]);
    const compiled = compileSpecText(r.text, 'draft.mcp.kdl').compiled!;
    expect(compiled.toolsets.map((t) => [t.name, t.tools])).toEqual([
      ['evil-toolset-x-31m', ['get_evil']],
    ]);
    expect(compiled.toolsets[0]!.description).toBe('One line only .');
  });
});
