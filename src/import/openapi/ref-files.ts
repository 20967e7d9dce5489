/**
 * The files a document's `$ref`s may name, read by us and not by the bundler's own
 * resolvers: a regular file inside the ref root (the document's folder, or the folder
 * `--ref-root` names above it) once symlinks are resolved, named .json, .yaml or .yml,
 * at most 16 MiB. No URL is followed (http, https, file:),
 * so a document cannot make the importer fetch anything or read /etc/passwd, a `.env`
 * beside or above it, /proc/self/environ, or hang on /dev/zero or a FIFO.
 */
import { constants } from 'node:fs';
import { open, realpath, stat } from 'node:fs/promises';
import { dirname, extname, resolve, sep } from 'node:path';

export const MAX_REF_FILE_BYTES = 16 * 1024 * 1024;
/** The document itself: GitHub's description is 13 MB. */
export const MAX_DOCUMENT_BYTES = 64 * 1024 * 1024;

const EXTENSIONS = new Set(['.json', '.yaml', '.yml']);

/** A file that may not be read: why, in words that follow `the $ref "…" `. */
export class RefusedFile extends Error {}

/** Whether a reference or path is a URL (`file:`, `http:`...), not a path. */
function isUrl(text: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:/.test(text);
}

/**
 * A regular file's bytes, at most `cap` of them. Opened without following a link and
 * without blocking (a FIFO opens at once), then checked on the open descriptor, so what
 * is read is what was checked; read to its end, not to its stated size (/proc files
 * say 0).
 */
export async function readRegularFile(path: string, cap: number): Promise<Buffer> {
  const fh = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new RefusedFile('is not a regular file');
    if (st.size > cap) throw new RefusedFile(`names a file over ${cap / 1024 / 1024} MiB`);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const { bytesRead, buffer } = await fh.read(Buffer.alloc(64 * 1024), 0, 64 * 1024, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > cap) throw new RefusedFile(`names a file over ${cap / 1024 / 1024} MiB`);
      chunks.push(buffer.subarray(0, bytesRead));
    }
    return Buffer.concat(chunks);
  } finally {
    await fh.close();
  }
}

/** The folder every referenced file must be in, and the document's own real path. */
export interface RefRoot {
  /** The folder as given (or as the document's path names it), and its real path. */
  readonly named: string;
  readonly folder: string;
  readonly document: string;
  /** Whether --ref-root chose the folder: the refusal then names the flag's folder. */
  readonly chosen: boolean;
}

/** --ref-root that cannot be a ref root: the message, for a usage error. */
export class BadRefRoot extends Error {}

/**
 * The ref root of `file`: `dir` when given (a folder holding the document, once links
 * are resolved), else the document's own folder.
 */
export async function refRoot(file: string, dir?: string): Promise<RefRoot> {
  const absolute = resolve(file);
  const document = await realpath(absolute);
  if (dir === undefined) {
    const named = dirname(absolute);
    return { named, folder: await realpath(named), document, chosen: false };
  }
  const named = resolve(dir);
  const folder = await realpath(named).catch(() => {
    throw new BadRefRoot(`--ref-root ${dir}: no such folder`);
  });
  if (!(await stat(folder)).isDirectory()) throw new BadRefRoot(`--ref-root ${dir}: not a folder`);
  // A root beside the document would let its $refs reach a tree it is not part of.
  if (!inside(document, folder))
    throw new BadRefRoot(
      `--ref-root ${dir} does not hold ${file}; name the document's folder or one above it`,
    );
  return { named, folder, document, chosen: true };
}

function inside(path: string, folder: string): boolean {
  // The file system's root is the one folder that already ends with the separator.
  return path.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

/**
 * The bytes of the file a bundler asks for (`url` as it resolved it), or RefusedFile.
 * A missing file is the ENOENT error of realpath, which the caller words.
 */
export async function readRefFile(url: string, root: RefRoot): Promise<Buffer> {
  const where = root.chosen ? `--ref-root ${root.named}` : "the document's folder";
  if (isUrl(url)) throw new RefusedFile(`is a URL; only files inside ${where} are followed`);
  let path: string;
  try {
    path = decodeURI(url);
  } catch {
    throw new RefusedFile('is not a well-formed file reference');
  }
  const outside = new RefusedFile(
    root.chosen
      ? `is outside --ref-root ${root.named}; only files inside it are followed`
      : `is outside ${root.named}; pass --ref-root <dir> to allow refs under a parent folder`,
  );
  // Named outside, it is refused before the file system is asked (whether it exists is
  // not the document's business); named inside, its real path must be inside too. The
  // root is named as given and as its links resolve, so either spelling of a path
  // through a linked folder is asked about.
  const absolute = resolve(path);
  const named = (folder: string) => absolute === folder || inside(absolute, folder);
  if (!named(root.named) && !named(root.folder)) {
    if ((await realpath(absolute).catch(() => '')) !== root.document) throw outside;
  }
  const real = await realpath(absolute);
  if (real === root.document) return readRegularFile(real, MAX_DOCUMENT_BYTES);
  if (!inside(real, root.folder)) throw outside;
  if (!EXTENSIONS.has(extname(real).toLowerCase()))
    throw new RefusedFile('is not a .json, .yaml or .yml file');
  return readRegularFile(real, MAX_REF_FILE_BYTES);
}
