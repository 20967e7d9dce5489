/**
 * Resource files (spec-language.md, "Resources and prompts"): inside the spec's folder,
 * at most 1 MiB, read at load and again at every reload; the watcher treats them as
 * part of the spec.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { compileSpecFile } from '../../src/compiler/load-spec.js';
import { MAX_RESOURCE_FILE_BYTES } from '../../src/compiler/resource-file.js';
import { watchSpecFile } from '../../src/server/spec-watcher.js';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'beaver-resource-files-'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function specWith(resource: string): string {
  return `wrap "files" version="1"\n${resource}\n`;
}

async function errorsOf(folder: string, text: string) {
  const file = join(folder, 'spec.mcp.kdl');
  writeFileSync(file, text);
  const result = await compileSpecFile(file);
  return result.diagnostics
    .filter((d) => d.severity === 'error')
    .map(({ code, line, column, message }) => ({ code, line, column, message }));
}

describe('resource files at load', () => {
  it('accepts a file of exactly 1 MiB and refuses one byte more, naming the file at its line', async () => {
    const folder = mkdtempSync(join(dir, 'size-'));
    writeFileSync(join(folder, 'max.txt'), Buffer.alloc(MAX_RESOURCE_FILE_BYTES, 0x61));
    writeFileSync(join(folder, 'over.txt'), Buffer.alloc(MAX_RESOURCE_FILE_BYTES + 1, 0x61));
    expect(await errorsOf(folder, specWith('resource "docs://max" file="max.txt"'))).toEqual([]);
    expect(await errorsOf(folder, specWith('resource "docs://over" file="over.txt"'))).toEqual([
      {
        code: 'SPEC_RESOURCE_FILE',
        line: 2,
        column: 24,
        message: expect.stringContaining('"over.txt" is 1048577 bytes'),
      },
    ]);
  });

  it("refuses a symlink that leads outside the spec's folder", async () => {
    const folder = mkdtempSync(join(dir, 'link-'));
    const outside = mkdtempSync(join(dir, 'outside-'));
    writeFileSync(join(outside, 'secret.txt'), 'not for agents');
    symlinkSync(join(outside, 'secret.txt'), join(folder, 'innocent.txt'));
    expect(await errorsOf(folder, specWith('resource "docs://x" file="innocent.txt"'))).toEqual([
      {
        code: 'SPEC_RESOURCE_FILE',
        line: 2,
        column: 21,
        message: expect.stringContaining("leads outside the spec's folder"),
      },
    ]);
  });

  it('reads a file in a subfolder through a symlink that stays inside the folder', async () => {
    const folder = mkdtempSync(join(dir, 'inside-'));
    mkdirSync(join(folder, 'docs'));
    writeFileSync(join(folder, 'docs', 'real.md'), '# Real');
    symlinkSync(join(folder, 'docs', 'real.md'), join(folder, 'alias.md'));
    const file = join(folder, 'spec.mcp.kdl');
    writeFileSync(file, specWith('resource "docs://alias" file="alias.md"'));
    const { compiled } = await compileSpecFile(file);
    expect(compiled!.resources[0]!.content).toEqual({ kind: 'text', text: '# Real' });
  });
});

describe('resource files at reload', () => {
  let gw: TestGateway;
  afterEach(async () => gw?.close());

  async function read(uri: string): Promise<unknown> {
    const r = await postJson(`${gw.url}/mcp`, {
      jsonrpc: '2.0',
      id: 1,
      method: 'resources/read',
      params: { uri },
    });
    return (r.json as { result: { contents: { text: string }[] } }).result.contents[0]!.text;
  }

  it('serves the changed content of a resource file after a reload', async () => {
    const folder = mkdtempSync(join(dir, 'reload-'));
    const file = join(folder, 'spec.mcp.kdl');
    const text = specWith('resource "docs://policy" file="policy.md"');
    writeFileSync(file, text);
    writeFileSync(join(folder, 'policy.md'), 'version one');
    gw = await startGateway(text, { file, specFile: file });
    expect(await read('docs://policy')).toBe('version one');
    writeFileSync(join(folder, 'policy.md'), 'version two');
    // Until a reload, the prepared content keeps serving.
    expect(await read('docs://policy')).toBe('version one');
    await expect(gw.reload()).resolves.toMatchObject({ ok: true, generation: 2 });
    expect(await read('docs://policy')).toBe('version two');
  });

  it('keeps the last good spec when a reload finds a resource file gone', async () => {
    const folder = mkdtempSync(join(dir, 'gone-'));
    const file = join(folder, 'spec.mcp.kdl');
    const text = specWith('resource "docs://policy" file="policy.md"');
    writeFileSync(file, text);
    writeFileSync(join(folder, 'policy.md'), 'still here');
    gw = await startGateway(text, { file, specFile: file });
    rmSync(join(folder, 'policy.md'));
    await expect(gw.reload()).resolves.toMatchObject({ ok: false });
    expect(await read('docs://policy')).toBe('still here');
  });
});

describe('the spec watcher', () => {
  it('reports a change of a companion file (a resource file) as a change of the spec', async () => {
    const folder = mkdtempSync(join(dir, 'watch-'));
    const file = join(folder, 'spec.mcp.kdl');
    const policy = join(folder, 'policy.md');
    writeFileSync(file, specWith('resource "docs://policy" file="policy.md"'));
    writeFileSync(policy, 'one');
    let changed!: () => void;
    const seen = new Promise<void>((resolve) => (changed = resolve));
    const watcher = await watchSpecFile(
      file,
      () => changed(),
      () => [policy],
    );
    try {
      writeFileSync(policy, 'two');
      await seen;
    } finally {
      watcher.close();
    }
  });
});
