/**
 * What a resource file may be (spec-language.md, "Resources and prompts"): a regular file,
 * not a FIFO, a device or a procfs/sysfs file, opened once and read through that
 * descriptor, at most 1 MiB. Each case is a reproduction of a way the gateway could be
 * made to hang, to read without bound, or to serve what is not the operator's document.
 */
import { spawn, execFileSync } from 'node:child_process';
import {
  closeSync,
  existsSync,
  openSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileSpecText } from '../../src/compiler/load-spec.js';
import {
  readResourceFile,
  readThroughDescriptor,
  resolveResourceFile,
} from '../../src/compiler/resource-file.js';
import { startGateway } from '../helpers/gateway.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'beaver-resource-refusals-'));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const specWith = (resource: string): string => `wrap "files" version="1"\n${resource}\n`;

function errorsAt(file: string, text: string) {
  return compileSpecText(text, file)
    .diagnostics.filter((d) => d.severity === 'error')
    .map(({ code, line, message }) => ({ code, line, message }));
}

/** Bytes this process has read through read(2) and friends so far (Linux accounting). */
function bytesReadByProcess(): number {
  const io = readFileSync('/proc/self/io', 'utf8');
  return Number(/^rchar: (\d+)$/m.exec(io)![1]);
}

/**
 * Opens the FIFO's write end after `ms`, then closes it: a read blocked in open(2) on
 * the FIFO then sees end of file, so a regression fails the test instead of hanging
 * the worker for good. With no reader waiting, the open fails and the child just exits.
 */
function releaseFifoLater(fifo: string, ms: number): void {
  const script = `setTimeout(() => { try { const fs = require('fs'); fs.closeSync(fs.openSync(${JSON.stringify(fifo)}, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK)); } catch {} }, ${ms});`;
  spawn(process.execPath, ['-e', script], { stdio: 'ignore' }).unref();
}

describe('a resource file at load', () => {
  it('refuses a FIFO, naming the resource at its line', () => {
    const folder = mkdtempSync(join(dir, 'fifo-'));
    execFileSync('mkfifo', [join(folder, 'policy.md')]);
    releaseFifoLater(join(folder, 'policy.md'), 3_000);
    expect(
      errorsAt(join(folder, 'spec.mcp.kdl'), specWith('resource "docs://p" file="policy.md"')),
    ).toEqual([
      {
        code: 'SPEC_RESOURCE_FILE',
        line: 2,
        message: expect.stringContaining('"policy.md" is not a regular file (a FIFO)'),
      },
    ]);
  });

  it('refuses a symlink inside the folder that leads to /dev/zero', () => {
    const folder = mkdtempSync(join(dir, 'zero-'));
    symlinkSync('/dev/zero', join(folder, 'zero.md'));
    expect(
      errorsAt(join(folder, 'spec.mcp.kdl'), specWith('resource "docs://z" file="zero.md"')),
    ).toEqual([
      {
        code: 'SPEC_RESOURCE_FILE',
        line: 2,
        message: expect.stringContaining("leads outside the spec's folder"),
      },
    ]);
  });

  it('refuses a device node inside the folder as no regular file', (ctx) => {
    const folder = mkdtempSync(join(dir, 'device-'));
    try {
      execFileSync('mknod', [join(folder, 'zero.md'), 'c', '1', '5'], { stdio: 'ignore' });
    } catch {
      ctx.skip(); // creating a device node needs root
    }
    expect(
      errorsAt(join(folder, 'spec.mcp.kdl'), specWith('resource "docs://z" file="zero.md"')),
    ).toEqual([
      {
        code: 'SPEC_RESOURCE_FILE',
        line: 2,
        message: expect.stringContaining('"zero.md" is not a regular file (a character device)'),
      },
    ]);
  });

  it('refuses a 2 GiB sparse file from its size, without reading it', () => {
    const folder = mkdtempSync(join(dir, 'sparse-'));
    writeFileSync(join(folder, 'big.md'), '');
    truncateSync(join(folder, 'big.md'), 2 * 1024 ** 3);
    const before = bytesReadByProcess();
    const errors = errorsAt(
      join(folder, 'spec.mcp.kdl'),
      specWith('resource "docs://big" file="big.md"'),
    );
    expect(bytesReadByProcess() - before).toBeLessThan(64 * 1024);
    expect(errors).toEqual([
      {
        code: 'SPEC_RESOURCE_FILE',
        line: 2,
        message: expect.stringContaining('"big.md" is 2147483648 bytes'),
      },
    ]);
  });
});

describe('a resource file replaced between its check and its read', () => {
  it('is refused, not blocked on, when a FIFO is renamed over it', () => {
    const folder = mkdtempSync(join(dir, 'race-'));
    const spec = join(folder, 'spec.mcp.kdl');
    writeFileSync(join(folder, 'policy.md'), 'checked');
    const checked = resolveResourceFile(spec, 'policy.md');
    expect(checked).toMatchObject({ ok: true });
    execFileSync('mkfifo', [join(folder, 'swap')]);
    renameSync(join(folder, 'swap'), join(folder, 'policy.md'));
    releaseFifoLater(join(folder, 'policy.md'), 3_000);
    const read = readResourceFile((checked as { path: string }).path, 'policy.md');
    expect(read).toEqual({
      ok: false,
      reason: expect.stringContaining('"policy.md" is not a regular file (a FIFO)'),
    });
  });
});

describe('procfs and sysfs content reached from the folder', () => {
  const SENTINEL = 'environ-sentinel-value-7d1f';

  it('refuses proc/self/environ for a spec in /, so the environment is never served', async () => {
    process.env.BEAVER_REFUSALS_SENTINEL = SENTINEL;
    const text = specWith('resource "docs://env" file="proc/self/environ"');
    expect(errorsAt('/spec.mcp.kdl', text)).toEqual([
      {
        code: 'SPEC_RESOURCE_FILE',
        line: 2,
        message: expect.stringContaining('"proc/self/environ" is on procfs'),
      },
    ]);
    // The gateway refuses to start from it: no surface ever serves the environment.
    await expect(startGateway(text, { file: '/spec.mcp.kdl' })).rejects.toThrow(
      /SPEC_RESOURCE_FILE/,
    );
  });

  it('refuses a sysfs file for a spec in /', (ctx) => {
    const given = 'sys/devices/system/cpu/online';
    if (!existsSync(`/${given}`)) ctx.skip();
    expect(errorsAt('/spec.mcp.kdl', specWith(`resource "docs://cpu" file="${given}"`))).toEqual([
      {
        code: 'SPEC_RESOURCE_FILE',
        line: 2,
        message: expect.stringContaining(`"${given}" is on sysfs`),
      },
    ]);
  });

  it('keeps refusing a symlink to /proc/self inside the folder as leading outside it', () => {
    const folder = mkdtempSync(join(dir, 'proc-link-'));
    symlinkSync('/proc/self', join(folder, 'self'));
    expect(
      errorsAt(join(folder, 'spec.mcp.kdl'), specWith('resource "docs://env" file="self/environ"')),
    ).toEqual([
      {
        code: 'SPEC_RESOURCE_FILE',
        line: 2,
        message: expect.stringContaining("leads outside the spec's folder"),
      },
    ]);
  });

  it('refuses a procfs file by the file system of its descriptor, whatever its path', () => {
    // What a bind mount or another procfs mount would present under a path of its own.
    expect(readResourceFile('/proc/self/status', 'status')).toEqual({
      ok: false,
      reason: 'file "status" is on procfs, not a document',
    });
  });

  it('refuses a file whose bytes read through the descriptor differ from its fstat size', () => {
    // /proc/self/status stats as a regular file of size 0 and reads hundreds of bytes: a
    // pseudo file system not known by its type is still caught by the count.
    const fd = openSync('/proc/self/status', 'r');
    try {
      expect(readThroughDescriptor(fd, 0, 'status')).toEqual({
        ok: false,
        reason: expect.stringContaining('"status" reads more bytes than its size (0)'),
      });
    } finally {
      closeSync(fd);
    }
  });
});
