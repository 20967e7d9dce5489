/**
 * The catalog page's script, served as one classic script at /catalog.js (the page loads
 * one file, and its content security policy allows no inline code): the parts in
 * assets/script/, one per view and per piece both views share, joined here inside one
 * function in the order they run. A part declares its names at its top level, so each is
 * in scope for the others; its `global` and `exported` comments say which, for eslint.
 */

/** The parts, in the order they run: what a part runs at once may use only parts above it. */
export const SCRIPT_PARTS = [
  'page.js',
  'listing.js',
  'connect.js',
  'session.js',
  'try-it.js',
  'example.js',
  'tools-view.js',
  'toolsets.js',
  'resources-prompts.js',
  'approvals-view.js',
  'confirm-view.js',
  'connections-view.js',
  'start.js',
] as const;

export type ScriptPart = `script/${(typeof SCRIPT_PARTS)[number]}`;

/** The text of /catalog.js, from the text of each part. */
export function joinCatalogScript(part: (name: ScriptPart) => string): string {
  const parts = SCRIPT_PARTS.map((name) => part(`script/${name}`));
  return `(() => {\n'use strict';\n\n${parts.join('\n')}})();\n`;
}
