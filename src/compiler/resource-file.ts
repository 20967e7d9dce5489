/**
 * A resource `file`: a path inside the spec's folder, resolved through symlinks (so a
 * link cannot lead outside the folder either), that is a regular file (not a FIFO, a
 * device, or a procfs/sysfs file), opened once and read through that descriptor, at
 * most 1 MiB. Read at load and at reload; the spec watcher hashes it the same way.
 *
 * Why each step: a FIFO opened without O_NONBLOCK blocks open(2) until a writer comes
 * (the main thread at load, a libuv worker in the watcher, for good); a device or a
 * procfs file has no size to check (/dev/zero never ends, /proc/self/environ stats as
 * 0 bytes and reads the whole environment); and a file checked by path, then read by
 * path again, may have been swapped between the two. So: refuse by path what is plainly
 * no document, open once without blocking or following a last symlink, decide on the
 * descriptor's own fstat and file system, and read through it no more than the cap.
 */
import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readSync,
  realpathSync,
  statSync,
  statfsSync,
  type Stats,
} from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';

export const MAX_RESOURCE_FILE_BYTES = 1024 * 1024;

export type Refused = { readonly ok: false; readonly reason: string };
export type ResolvedFile = { ok: true; path: string } | Refused;
export type FileRead = { ok: true; bytes: Buffer } | Refused;

/** Opened for reading only; a FIFO or a device never blocks the open, a tty is not adopted. */
export const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

/** statfs(2) f_type of kernel pseudo file systems: their files are views, not documents. */
const PSEUDO_FILESYSTEMS: ReadonlyMap<number, string> = new Map([
  [0x9fa0, 'procfs'],
  [0x62656572, 'sysfs'],
  [0x64626720, 'debugfs'],
  [0x74726163, 'tracefs'],
  [0x73636673, 'securityfs'],
  [0x62656570, 'configfs'],
  [0x27e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'],
  [0xde5e81e4, 'efivarfs'],
]);

/** Where procfs and sysfs are mounted: a real path under them is refused before any open. */
const PSEUDO_MOUNTS: readonly (readonly [string, string])[] = [
  ['/proc', 'procfs'],
  ['/sys', 'sysfs'],
];

const quoted = (given: string): string => `file ${JSON.stringify(given)}`;

/** The spec's own rules on the path: relative, no `..`, inside the folder once resolved. */
export function resolveResourceFile(specFile: string, given: string): ResolvedFile {
  if (isAbsolute(given))
    return { ok: false, reason: `${quoted(given)} must be relative to the spec` };
  if (given.split(/[\\/]/).includes('..'))
    return { ok: false, reason: `${quoted(given)} must not contain ".."` };
  let folder: string;
  let path: string;
  try {
    folder = realpathSync(dirname(resolve(specFile)));
  } catch {
    return { ok: false, reason: `the spec's folder cannot be read` };
  }
  try {
    path = realpathSync(resolve(folder, given));
  } catch {
    return { ok: false, reason: `${quoted(given)} does not exist beside the spec` };
  }
  const rel = relative(folder, path);
  if (rel === '' || rel.startsWith(`..${sep}`) || rel === '..' || isAbsolute(rel))
    return { ok: false, reason: `${quoted(given)} leads outside the spec's folder` };
  const mount = PSEUDO_MOUNTS.find(([m]) => path === m || path.startsWith(`${m}/`));
  if (mount) return { ok: false, reason: `${quoted(given)} is on ${mount[1]}, not a document` };
  return { ok: true, path };
}

/** The file's bytes, by the spec's rules: resolved, then opened once and read. */
export function loadResourceFile(specFile: string, given: string): FileRead {
  const resolved = resolveResourceFile(specFile, given);
  if (!resolved.ok) return resolved;
  // The path is already resolved: a symlink at its end now would be a swap, refused.
  return readResourceFile(resolved.path, given, { follow: false });
}

/**
 * One file, opened once and read through its descriptor. `follow` allows a symlink as
 * the last component (the watcher names files as the spec does, links included).
 */
export function readResourceFile(
  path: string,
  given: string,
  opts: { follow?: boolean } = {},
): FileRead {
  // Before any open: opening a device may itself act (a tape rewinds, a watchdog arms).
  const first = statRefusal(() => statSync(path), given);
  if (first) return first;
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS | (opts.follow ? 0 : constants.O_NOFOLLOW));
  } catch (err) {
    return { ok: false, reason: `${quoted(given)} cannot be opened (${codeOf(err)})` };
  }
  try {
    const stat = fstatSync(fd);
    const refused = refusalOfStat(stat, given) ?? refusalOfFilesystem(fsTypeOf(fd, path), given);
    return refused ?? readThroughDescriptor(fd, stat.size, given);
  } finally {
    closeSync(fd);
  }
}

/**
 * At most `size` bytes through `fd`, and exactly that many: one byte more is read to
 * see a file that grew, and a count other than `size` (a pseudo file of no known file
 * system, a file changed meanwhile) is refused. Never more than the cap plus one byte.
 */
export function readThroughDescriptor(fd: number, size: number, given: string): FileRead {
  const tooBig = refusalOfSize(size, given);
  if (tooBig) return tooBig;
  const buffer = Buffer.allocUnsafe(size + 1);
  let total = 0;
  for (;;) {
    let n: number;
    try {
      n = readSync(fd, buffer, total, buffer.length - total, null);
    } catch (err) {
      return { ok: false, reason: `${quoted(given)} cannot be read (${codeOf(err)})` };
    }
    if (n === 0) break;
    total += n;
    if (total === buffer.length) break;
  }
  return countRefusal(total, size, given) ?? { ok: true, bytes: buffer.subarray(0, total) };
}

/** A count other than the size the descriptor reported, as a refusal. */
export function countRefusal(total: number, size: number, given: string): Refused | undefined {
  if (total > size)
    return { ok: false, reason: `${quoted(given)} reads more bytes than its size (${size})` };
  if (total < size)
    return {
      ok: false,
      reason: `${quoted(given)} reads ${total} bytes where its size says ${size}`,
    };
  return undefined;
}

export function refusalOfSize(size: number, given: string): Refused | undefined {
  return size > MAX_RESOURCE_FILE_BYTES
    ? {
        ok: false,
        reason: `${quoted(given)} is ${size} bytes; a resource file may hold at most ${MAX_RESOURCE_FILE_BYTES} (1 MiB)`,
      }
    : undefined;
}

/** A file that is no regular file, or is over the cap, as a refusal. */
export function refusalOfStat(stat: Stats, given: string): Refused | undefined {
  if (!stat.isFile())
    return { ok: false, reason: `${quoted(given)} is not a regular file (${kindOf(stat)})` };
  return refusalOfSize(stat.size, given);
}

export function refusalOfFilesystem(type: number | undefined, given: string): Refused | undefined {
  const name = type === undefined ? undefined : PSEUDO_FILESYSTEMS.get(type);
  return name ? { ok: false, reason: `${quoted(given)} is on ${name}, not a document` } : undefined;
}

/**
 * The file system of the open file itself: Linux's /proc/self/fd/N leads statfs(2) to
 * the descriptor's file. Without /proc, the path's (then the count check remains).
 */
function fsTypeOf(fd: number, path: string): number | undefined {
  for (const p of [`/proc/self/fd/${fd}`, path]) {
    try {
      return statfsSync(p).type;
    } catch {
      // try the next
    }
  }
  return undefined;
}

function statRefusal(stat: () => Stats, given: string): Refused | undefined {
  let s: Stats;
  try {
    s = stat();
  } catch (err) {
    return { ok: false, reason: `${quoted(given)} cannot be read (${codeOf(err)})` };
  }
  return refusalOfStat(s, given);
}

export function kindOf(stat: Stats): string {
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  if (stat.isDirectory()) return 'a folder';
  if (stat.isSymbolicLink()) return 'a symlink';
  return 'not a file';
}

export function codeOf(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? String(err);
}
