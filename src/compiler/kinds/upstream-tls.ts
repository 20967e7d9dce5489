/**
 * `tls { ca-file; cert-file; key-file }` of an `upstream` or an `mcp-server` over a URL
 * (spec-language.md, "Many upstreams and databases in one spec"): a private CA trusted
 * beside the system's roots, and a client certificate. Paths are resolved against the
 * spec's folder, as the embedded database's seed is, and each file must be there and
 * readable when the spec loads: a missing CA found at the first call would be an outage
 * found late.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { locatedString, once } from '../common-kinds.js';
import type { Diagnostics, Located, Position, Subject } from '../diagnostics.js';
import type { UpstreamTls } from '../descriptor.js';
import { childNamed, type NodeKind } from '../kdl-reader.js';

export interface TlsSpec {
  readonly at: Position;
  readonly caFile?: Located<string>;
  readonly certFile?: Located<string>;
  readonly keyFile?: Located<string>;
}

const FILE = locatedString('a file path');

export const TLS: NodeKind<TlsSpec> = {
  children: {
    kinds: { 'ca-file': once(FILE), 'cert-file': once(FILE), 'key-file': once(FILE) },
    where: 'in tls',
    twice: 'is given twice',
  },
  inner: (_, subject) => [...subject, 'tls'],
  build: (n) => ({
    at: n.at,
    caFile: childNamed(n.children, 'ca-file'),
    certFile: childNamed(n.children, 'cert-file'),
    keyFile: childNamed(n.children, 'key-file'),
  }),
};

/** The path as the gateway opens it: relative ones beside the spec. */
function resolved(specFile: string, path: string): string {
  return isAbsolute(path) ? path : join(dirname(specFile), path);
}

/** Why the file cannot be read at start-up, or undefined. */
function fileProblem(path: string): string | undefined {
  try {
    if (!statSync(path).isFile()) return 'is not a regular file';
    accessSync(path, constants.R_OK);
    return undefined;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? 'error'})`;
  }
}

/** Each file there and readable; a client certificate and its key together. */
export function checkTls(
  tls: TlsSpec,
  specFile: string,
  diag: Diagnostics,
  subject: Subject,
): void {
  const here = [...subject, 'tls'];
  for (const [name, file] of [
    ['ca-file', tls.caFile],
    ['cert-file', tls.certFile],
    ['key-file', tls.keyFile],
  ] as const) {
    if (!file) continue;
    const problem = fileProblem(resolved(specFile, file.value));
    if (problem)
      diag.error('SPEC_TLS', file.at, here, `${name} ${JSON.stringify(file.value)} ${problem}`);
  }
  if (tls.certFile && !tls.keyFile)
    diag.error('SPEC_TLS', tls.certFile.at, here, 'cert-file needs key-file (its private key)');
  if (tls.keyFile && !tls.certFile)
    diag.error('SPEC_TLS', tls.keyFile.at, here, 'key-file needs cert-file (its certificate)');
  if (!tls.caFile && !tls.certFile && !tls.keyFile)
    diag.error('SPEC_MISSING', tls.at, here, '`tls` needs ca-file, or cert-file and key-file');
}

/** The descriptor's `tls`, each path resolved against the spec's folder. */
export function lowerTls(tls: TlsSpec, specFile: string): UpstreamTls {
  return {
    ...(tls.caFile && { caFile: resolved(specFile, tls.caFile.value) }),
    ...(tls.certFile && { certFile: resolved(specFile, tls.certFile.value) }),
    ...(tls.keyFile && { keyFile: resolved(specFile, tls.keyFile.value) }),
  };
}
