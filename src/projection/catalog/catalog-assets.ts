/**
 * The catalog page's files in assets/ (the script's parts in assets/script/), read once
 * when this module loads (at boot). The single binary has no folder beside it:
 * scripts/build-binary.mjs bundles a copy of this module that holds every file of assets/
 * (and of its folders) as a string instead.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SCRIPT_PARTS, type ScriptPart } from './catalog-script.js';

export type CatalogFile = 'catalog.html' | 'catalog.css' | 'catalog.svg' | ScriptPart;

const NAMES: readonly CatalogFile[] = [
  'catalog.html',
  'catalog.css',
  'catalog.svg',
  ...SCRIPT_PARTS.map((name) => `script/${name}` as const),
];

function read(name: CatalogFile): string {
  const file = fileURLToPath(new URL(`./assets/${name}`, import.meta.url));
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    // A broken install: a build that compiled the TypeScript without copying assets/.
    throw new Error(`the catalog page's file ${file} cannot be read (npm run build copies it)`, {
      cause: err,
    });
  }
}

export const CATALOG_FILES: Readonly<Record<CatalogFile, string>> = Object.fromEntries(
  NAMES.map((name) => [name, read(name)]),
) as Record<CatalogFile, string>;
