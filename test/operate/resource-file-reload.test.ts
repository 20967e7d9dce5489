/**
 * A resource file swapped for something that is no document while the gateway serves:
 * the watcher (wired as `serve` wires it) must neither park a libuv worker on a FIFO nor
 * read a device or a huge file without bound, the reload it starts is refused and
 * logged, and the last good spec keeps serving.
 */
import { execFileSync } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import {
  closeSync,
  constants,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ReloadResult } from '../../src/server/start.js';
import { watchSpecFile, type SpecWatcher } from '../../src/server/spec-watcher.js';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';

let dir: string;
let gw: TestGateway | undefined;
let watcher: SpecWatcher | undefined;
const fifos: string[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'beaver-resource-reload-'));
});

afterEach(async () => {
  watcher?.close();
  watcher = undefined;
  // A read blocked in open(2) on a FIFO (the defect) is released by a writer, so a
  // failing run does not leave the worker process stuck.
  for (const f of fifos.splice(0)) {
    try {
      closeSync(openSync(f, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // no reader waiting
    }
  }
  await gw?.close();
  gw = undefined;
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Bytes this process has read through read(2) and friends so far (Linux accounting). */
function bytesReadByProcess(): number {
  return Number(/^rchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))![1]);
}

/** A served spec with one file resource, watched as `serve` watches it. */
async function serveWatched(prefix: string): Promise<{
  folder: string;
  policy: string;
  reloaded: Promise<ReloadResult>;
}> {
  const folder = mkdtempSync(join(dir, prefix));
  const file = join(folder, 'spec.mcp.kdl');
  const text = 'wrap "files" version="1"\nresource "docs://policy" file="policy.md"\n';
  writeFileSync(file, text);
  writeFileSync(join(folder, 'policy.md'), 'the good version');
  const server = await startGateway(text, { file, specFile: file });
  gw = server;
  let reported!: (r: ReloadResult) => void;
  const reloaded = new Promise<ReloadResult>((resolve) => (reported = resolve));
  watcher = await watchSpecFile(
    file,
    () => void server.reload().then(reported),
    () => server.gateway.spec.resources.flatMap((r) => (r.file ? [r.file] : [])),
  );
  return { folder, policy: join(folder, 'policy.md'), reloaded };
}

async function readPolicy(): Promise<unknown> {
  const r = await postJson(`${gw!.url}/mcp`, {
    jsonrpc: '2.0',
    id: 1,
    method: 'resources/read',
    params: { uri: 'docs://policy' },
  });
  return (r.json as { result: { contents: { text: string }[] } }).result.contents[0]!.text;
}

describe('a resource file swapped while the gateway serves', () => {
  it('refuses the reload a FIFO swapped in starts, without parking a worker, and keeps serving', async () => {
    const { folder, policy, reloaded } = await serveWatched('fifo-');
    const fifo = join(folder, 'swap');
    execFileSync('mkfifo', [fifo]);
    fifos.push(policy);
    renameSync(fifo, policy);
    // On the unfixed watcher the hash never finishes (a worker waits in open(2) for a
    // writer), so no reload is ever reported and this times out.
    const result = await reloaded;
    expect(result).toMatchObject({
      ok: false,
      diagnostics: [
        expect.objectContaining({
          code: 'SPEC_RESOURCE_FILE',
          message: expect.stringContaining('"policy.md" is not a regular file (a FIFO)'),
        }),
      ],
    });
    expect(gw!.logs()).toContain('spec reload rejected; the previous spec keeps serving');
    expect(await readPolicy()).toBe('the good version');
    // The thread pool is free: name resolution (what upstream calls and JWKS need) answers.
    await expect(
      Promise.all(Array.from({ length: 8 }, () => lookup('localhost'))),
    ).resolves.toHaveLength(8);
    expect((await fetch(`${gw!.url}/healthz`)).status).toBe(200);
  });

  it('reads at most the cap of a symlink to /dev/zero swapped in, and refuses the reload', async () => {
    const { folder, policy, reloaded } = await serveWatched('zero-');
    const before = bytesReadByProcess();
    symlinkSync('/dev/zero', join(folder, 'swap'));
    renameSync(join(folder, 'swap'), policy);
    const result = await reloaded;
    expect(bytesReadByProcess() - before).toBeLessThan(4 * 1024 * 1024);
    expect(result).toMatchObject({
      ok: false,
      diagnostics: [
        expect.objectContaining({
          code: 'SPEC_RESOURCE_FILE',
          message: expect.stringContaining("leads outside the spec's folder"),
        }),
      ],
    });
    expect(await readPolicy()).toBe('the good version');
  });

  it('does not read a 1.8 GiB sparse file swapped in, and refuses the reload', async () => {
    const { folder, policy, reloaded } = await serveWatched('sparse-');
    const big = join(folder, 'swap');
    writeFileSync(big, '');
    truncateSync(big, Math.floor(1.8 * 1024 ** 3));
    const before = bytesReadByProcess();
    renameSync(big, policy);
    const result = await reloaded;
    expect(bytesReadByProcess() - before).toBeLessThan(4 * 1024 * 1024);
    expect(result).toMatchObject({
      ok: false,
      diagnostics: [
        expect.objectContaining({
          code: 'SPEC_RESOURCE_FILE',
          message: expect.stringContaining(`"policy.md" is ${Math.floor(1.8 * 1024 ** 3)} bytes`),
        }),
      ],
    });
    expect(await readPolicy()).toBe('the good version');
  });
});
