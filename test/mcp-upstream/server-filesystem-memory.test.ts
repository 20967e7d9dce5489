/**
 * Two real third-party stdio servers started by the tests: `@modelcontextprotocol/server-filesystem`
 * on a folder of the test's, and `@modelcontextprotocol/server-memory` with its graph in a
 * file of the test's (the variable it reads is the only one given besides PATH, HOME, LANG).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpUpstream } from '../../src/mcp-upstream/mcp-upstream.js';
import { FILESYSTEM, MEMORY, NODE, open } from './upstream-helpers.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcpb-upstream-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('server-filesystem over stdio', () => {
  let upstream: McpUpstream;
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(dir, 'handbook-'));
    writeFileSync(join(root, 'page.md'), '# Refunds\nWithin 30 days.\n');
    ({ upstream } = open({
      name: 'handbook',
      transport: { kind: 'command', program: NODE, args: [FILESYSTEM, root], cwd: root, env: {} },
    }));
  });
  afterAll(() => upstream.close());

  it('lists read_text_file among its tools', async () => {
    const out = await upstream.listTools();
    expect(out.ok && out.value.map((t) => t.name)).toEqual(
      expect.arrayContaining(['read_text_file', 'list_directory', 'write_file']),
    );
  });

  it('reads a file of its folder, the result being its structuredContent', async () => {
    expect(await upstream.callTool('read_text_file', { path: join(root, 'page.md') })).toEqual({
      ok: true,
      value: { content: '# Refunds\nWithin 30 days.\n' },
    });
  });

  it('writes the file it is told to, as it was told', async () => {
    const out = await upstream.callTool('write_file', {
      path: join(root, 'new.md'),
      content: 'pinned by the gateway',
    });
    expect(out.ok).toBe(true);
    expect(readFileSync(join(root, 'new.md'), 'utf8')).toBe('pinned by the gateway');
  });

  it('refuses a path outside its folder as a tool error with its text', async () => {
    const out = await upstream.callTool('read_text_file', { path: '/etc/passwd' });
    expect(out).toMatchObject({ ok: false, error: { kind: 'tool-error' } });
    expect(!out.ok && out.error.message).toMatch(/Access denied|outside allowed directories/);
  });
});

describe('server-memory over stdio', () => {
  let upstream: McpUpstream;
  let file: string;
  beforeAll(() => {
    file = join(dir, 'memory.jsonl');
    ({ upstream } = open({
      name: 'memory',
      transport: {
        kind: 'command',
        program: NODE,
        args: [MEMORY],
        cwd: dir,
        env: { MEMORY_FILE_PATH: file },
      },
    }));
  });
  afterAll(() => upstream.close());

  it('creates an entity and reads it back from the graph', async () => {
    const created = await upstream.callTool('create_entities', {
      entities: [{ name: 'acme', entityType: 'organisation', observations: ['uses mcp-beaver'] }],
    });
    expect(created).toEqual({
      ok: true,
      value: {
        entities: [{ name: 'acme', entityType: 'organisation', observations: ['uses mcp-beaver'] }],
      },
    });
    const graph = await upstream.callTool('read_graph', {});
    expect(graph).toMatchObject({
      ok: true,
      value: { entities: [{ name: 'acme', observations: ['uses mcp-beaver'] }] },
    });
  });

  it('stored what it received in the file the given variable names', () => {
    expect(readFileSync(file, 'utf8')).toContain('"name":"acme"');
  });
});
