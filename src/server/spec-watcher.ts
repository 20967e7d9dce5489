/**
 * Watches the spec file for changes, including the way Kubernetes updates a mounted
 * ConfigMap: the file is a symlink into `..data`, and an update swaps `..data`
 * atomically, so the file itself never changes in place. We watch the folder, and
 * compare the content's hash so a touch or a duplicate event causes no reload; a slow
 * poll covers file systems where watch events do not arrive. Files the spec reads at
 * load (resource `file`s) are hashed with it: changing one reloads the spec too. They are
 * hashed by the rules they are loaded by (resource-file.ts): stat first, opened without
 * blocking, regular files only, at most the cap read, so a FIFO, a device or a huge file
 * swapped in neither parks a libuv worker nor fills memory; its refusal is hashed instead,
 * and the reload it starts reports it.
 */
import { createHash } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { open, readFile, stat, statfs } from 'node:fs/promises';
import { dirname } from 'node:path';
import {
  codeOf,
  countRefusal,
  OPEN_FLAGS,
  refusalOfFilesystem,
  refusalOfStat,
} from '../compiler/resource-file.js';

export interface SpecWatcher {
  close(): void;
}

const DEBOUNCE_MS = 250;
const POLL_MS = 5_000;

async function digest(file: string, companions: readonly string[]): Promise<string | undefined> {
  try {
    const hash = createHash('sha256').update(await readFile(file));
    for (const c of companions) {
      hash.update(`\0${c}\0`);
      // A companion that is gone or refused changes the digest; the reload then reports it.
      hash.update(await companionBytes(c));
    }
    return hash.digest('hex');
  } catch {
    return undefined; // mid-swap or removed: the next event or poll sees the result
  }
}

/** A companion's bytes, or the reason it cannot be a resource file (to hash). */
async function companionBytes(path: string): Promise<Buffer> {
  const refused = (reason: string): Buffer => Buffer.from(`\0refused ${reason}`);
  try {
    const first = refusalOfStat(await stat(path), path);
    if (first) return refused(first.reason);
    // Named as the spec names it: a symlink inside the folder is followed, as at load.
    const handle = await open(path, OPEN_FLAGS);
    try {
      const s = await handle.stat();
      const bad =
        refusalOfStat(s, path) ??
        refusalOfFilesystem(
          await statfs(`/proc/self/fd/${handle.fd}`).then(
            (f) => f.type,
            () => undefined,
          ),
          path,
        );
      if (bad) return refused(bad.reason);
      const buffer = Buffer.allocUnsafe(s.size + 1);
      let total = 0;
      while (total < buffer.length) {
        const { bytesRead } = await handle.read(buffer, total, buffer.length - total, null);
        if (bytesRead === 0) break;
        total += bytesRead;
      }
      const miscount = countRefusal(total, s.size, path);
      return miscount ? refused(miscount.reason) : buffer.subarray(0, total);
    } finally {
      await handle.close();
    }
  } catch (err) {
    return refused(codeOf(err));
  }
}

/**
 * `companions` names the other files the loaded spec was built from (they change with
 * each reload); a change to one is a change of the spec.
 */
export async function watchSpecFile(
  file: string,
  onChange: () => void,
  companions: () => readonly string[] = () => [],
): Promise<SpecWatcher> {
  const digestNow = (): Promise<string | undefined> => digest(file, companions());
  let last = await digestNow();
  let timer: NodeJS.Timeout | undefined;
  const check = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      void digestNow().then((now) => {
        if (now !== undefined && now !== last) {
          last = now;
          onChange();
        }
      });
    }, DEBOUNCE_MS);
  };
  let watcher: FSWatcher | undefined;
  try {
    // Any event in the folder may be the one (a ConfigMap renames `..data`, editors
    // rename temp files); the hash decides whether the spec really changed.
    watcher = watch(dirname(file), check);
    watcher.on('error', () => undefined);
  } catch {
    watcher = undefined;
  }
  const poll = setInterval(check, POLL_MS);
  poll.unref();
  return {
    close() {
      clearTimeout(timer);
      clearInterval(poll);
      watcher?.close();
    },
  };
}
