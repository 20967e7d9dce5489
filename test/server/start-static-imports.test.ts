/**
 * What a gateway parses at start is what its spec uses (issue 40, cold start): the
 * verifier of `oauth` tokens and the authorization server of `sign-in` are imported with
 * `import()` when a spec declares them, so serving any other spec never parses jose or the
 * provider client. Follows the static imports (not `import type`, not `import()`) from the
 * server's start.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../../src');
const STATIC_IMPORT = /^(?:import|export)\s+(?!type\s)(?:[^;'"]*?\sfrom\s+)?'([^']+)'/gm;

/** Every module start.ts loads before it serves, as src paths and package names. */
function staticClosure(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    const text = readFileSync(join(SRC, file), 'utf8');
    for (const m of text.matchAll(STATIC_IMPORT)) {
      const spec = m[1]!;
      if (spec.startsWith('.')) visit(normalize(join(dirname(file), spec.replace(/\.js$/, '.ts'))));
      else if (!spec.startsWith('node:')) packages.add(spec);
    }
  };
  visit(entry);
  return { files, packages };
}

describe('the modules serve loads before its spec asks for them', () => {
  const { files, packages } = staticClosure('server/start.ts');

  it('reach the fastify server and the engine: the walk follows the real imports', () => {
    expect(packages).toContain('fastify');
    expect(files).toContain(normalize('engine/gateway.ts'));
  });

  it('hold neither jose nor the authorization server of sign-in', () => {
    expect([...packages].filter((p) => p === 'jose' || p.startsWith('jose/'))).toEqual([]);
    // The language's `sign-in` kind (compiler/kinds/sign-in.ts) is the compiler's; what
    // must stay unloaded is the server under access/sign-in/, but for the light modules
    // every gateway reads (the reload check, the pages' cookie, the sealer, the types).
    const light = ['sign-in-reload', 'page-caller', 'browser-session', 'sealed', 'sign-in-types'];
    const server = normalize('access/sign-in/');
    const heavy = [...files].filter(
      (f) => f.startsWith(server) && !light.some((l) => f === normalize(`${server}${l}.ts`)),
    );
    expect(heavy).toEqual([]);
  });

  it('hold none of the token kinds of upstream credentials (client-credentials, exchange)', () => {
    const identity = normalize('engine/backends/upstream/identity/');
    expect([...files].filter((f) => f.startsWith(identity))).toEqual([]);
  });

  it('hold none of the runtime of connected accounts (auth user) but its paths and its API routes', () => {
    const light = ['connect-path', 'connection-api-routes', 'token-set'];
    const folder = normalize('connections/');
    const heavy = [...files].filter(
      (f) => f.startsWith(folder) && !light.some((l) => f === normalize(`${folder}${l}.ts`)),
    );
    expect(heavy).toEqual([]);
  });
});
