/**
 * The catalog page's files in assets/, read once when this module loads (at boot). The
 * single binary has no folder beside it: scripts/build-binary.mjs bundles a copy of this
 * module that holds every file of assets/ as a string instead.
 */
import { readFileSync } from 'node:fs';

export type CatalogFile = 'catalog.html' | 'catalog.css' | 'catalog.js' | 'catalog.svg';

const NAMES: readonly CatalogFile[] = ['catalog.html', 'catalog.css', 'catalog.js', 'catalog.svg'];

export const CATALOG_FILES: Readonly<Record<CatalogFile, string>> = Object.fromEntries(
  NAMES.map((name) => [name, readFileSync(new URL(`./assets/${name}`, import.meta.url), 'utf8')]),
) as Record<CatalogFile, string>;
