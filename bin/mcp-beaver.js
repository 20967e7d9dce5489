#!/usr/bin/env node
// Entry point. The npm package and the image carry the compiled dist/ and no src/: they
// run dist/. In a checkout (src/ present, dev dependencies installed) it runs the
// TypeScript sources through tsx, so a stale dist/ can never shadow the code being
// worked on; a checkout without tsx (installed with --omit=dev) runs its dist/ if built.
import { existsSync } from 'node:fs';
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
  await import(pathToFileURL(compiled).href);
} else {
  process.stderr.write(
    'mcp-beaver: this checkout is not built: run `npm ci` (the sources run through tsx) or `npm run build`\n',
  );
  process.exitCode = 1;
}
