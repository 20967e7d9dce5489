#!/usr/bin/env node
// Entry point. The npm package and the image carry the compiled dist/ and no src/: they
// run dist/. In a checkout (src/ present, dev dependencies installed) it runs the
// TypeScript sources through tsx, so a stale dist/ can never shadow the code being
// worked on; a checkout without tsx (installed with --omit=dev) runs its dist/ if built.
import { existsSync } from 'node:fs';
import module from 'node:module';
import { homedir } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'src', 'cli', 'main.ts');
const compiled = join(root, 'dist', 'cli', 'main.js');

async function tsx() {
  try {
    return await import('tsx/esm/api');
  } catch (err) {
    if (err?.code === 'ERR_MODULE_NOT_FOUND') return undefined;
    throw err;
  }
}

const loader = existsSync(source) ? await tsx() : undefined;
if (loader) {
  loader.register();
  await import(pathToFileURL(source).href);
} else if (existsSync(compiled)) {
  enableCompileCache();
  await import(pathToFileURL(compiled).href);
} else {
  process.stderr.write(
    'mcp-beaver: this checkout is not built: run `npm ci` (the sources run through tsx) or `npm run build`\n',
  );
  process.exitCode = 1;
}

/**
 * Node >= 22.1 keeps the V8 bytecode of the modules it compiles on disk and reuses it on
 * the next start: a cold `serve` spends 20-40 ms less CPU (issue 19). Node 20 has no
 * module.enableCompileCache: nothing happens there. NODE_DISABLE_COMPILE_CACHE=1 turns
 * it off and NODE_COMPILE_CACHE=<dir> moves it (Node's own variables, honoured by the
 * call below). Only dist/ is cached: a checkout's tsx run stays as it was.
 */
function enableCompileCache() {
  if (typeof module.enableCompileCache !== 'function') return;
  const dir = compileCacheDir();
  if (dir !== null) module.enableCompileCache(dir);
}

/**
 * Where the cache lives: on Linux the user's cache folder ($XDG_CACHE_HOME, else
 * ~/.cache) rather than Node's default under /tmp, which every user of the machine can
 * write to, so another user could plant bytecode there first. macOS and Windows give each
 * user a temporary folder of their own: Node's default (undefined) is kept. null when
 * there is no home to put it in (then no cache).
 */
function compileCacheDir() {
  if (process.platform === 'darwin' || process.platform === 'win32') return undefined;
  const xdg = process.env.XDG_CACHE_HOME;
  if (xdg && xdg.startsWith('/')) return join(xdg, 'mcp-beaver', 'compile-cache');
  try {
    const home = homedir();
    return home ? join(home, '.cache', 'mcp-beaver', 'compile-cache') : null;
  } catch {
    return null;
  }
}
