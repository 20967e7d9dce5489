/**
 * A resource `file`: a path inside the spec's folder, at most 1 MiB. Resolved through
 * symlinks, so a link cannot lead outside the folder either. Read at load and at reload.
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';

export const MAX_RESOURCE_FILE_BYTES = 1024 * 1024;

export type ResolvedFile = { ok: true; path: string } | { ok: false; reason: string };

export function resolveResourceFile(specFile: string, given: string): ResolvedFile {
  if (isAbsolute(given))
    return { ok: false, reason: `file ${JSON.stringify(given)} must be relative to the spec` };
  if (given.split(/[\\/]/).includes('..'))
    return { ok: false, reason: `file ${JSON.stringify(given)} must not contain ".."` };
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
    return { ok: false, reason: `file ${JSON.stringify(given)} does not exist beside the spec` };
  }
  const rel = relative(folder, path);
  if (rel === '' || rel.startsWith(`..${sep}`) || rel === '..' || isAbsolute(rel))
    return { ok: false, reason: `file ${JSON.stringify(given)} leads outside the spec's folder` };
  const stat = statSync(path);
  if (!stat.isFile()) return { ok: false, reason: `file ${JSON.stringify(given)} is not a file` };
  if (stat.size > MAX_RESOURCE_FILE_BYTES)
    return {
      ok: false,
      reason: `file ${JSON.stringify(given)} is ${stat.size} bytes; a resource file may hold at most ${MAX_RESOURCE_FILE_BYTES} (1 MiB)`,
    };
  return { ok: true, path };
}

/** The file's bytes; the size is checked again, since the file may have grown since. */
export function readResourceFile(path: string): Buffer {
  const bytes = readFileSync(path);
  if (bytes.length > MAX_RESOURCE_FILE_BYTES)
    throw new Error(`resource file ${path} grew over 1 MiB while the spec was loading`);
  return bytes;
}
