/**
 * The catalog page (`GET /`, `GET /approvals` in its approvals view, `GET /confirm/<id>` in
 * its confirmation view):
 * assets/catalog.html with the served spec's server strings filled in, each HTML-escaped. It names no tool: the script lists them from `GET /api`,
 * which shows each caller only what its scopes allow (with access on, only once a token is
 * entered). Without access everyone sees every tool, so the page also carries the scopes
 * each tool needs, which `GET /api` does not list.
 */
import type { CompiledSpec } from '../../compiler/descriptor.js';

/** Text for an HTML text node or a quoted attribute value. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export interface CatalogOptions {
  readonly mcpPath: string;
  /** Inbound access is on: show the bearer-token field, and the tools only for a token. */
  readonly access: boolean;
  /** Which view the script opens: the tools, the approvals waiting for a decision, or one confirmation. */
  readonly view: CatalogView;
  /**
   * With `sign-in`: the identity provider's host, which the approvals and confirm views
   * name in their "Sign in with …" link (the page itself never talks to the provider).
   */
  readonly signIn?: string;
  /** Versioned URLs of the script, stylesheet and icon (a query busts caches on upgrade). */
  readonly assets: { readonly script: string; readonly style: string; readonly icon: string };
}

export type CatalogView = 'tools' | 'approvals' | 'confirm';

const SLOTS = [
  'heading',
  'name',
  'version',
  'instructions',
  'mcp-path',
  'access',
  'sign-in-host',
  'view',
  'scopes',
  'icon',
  'style',
  'script',
] as const;
type Slot = (typeof SLOTS)[number];
const FLAGS = ['instructions', 'access', 'connections'] as const;
type Flag = (typeof FLAGS)[number];

// A comment with the line it stands on; a block `{{#flag}}…{{/flag}}` (or `{{^flag}}`, kept
// when the flag is off) with the lines of its markers; a `{{slot}}`.
const COMMENT = /[ \t]*<!--[\s\S]*?-->\n?/g;
const BLOCK = /[ \t]*\{\{([#^])([\w-]+)\}\}\n?([\s\S]*?)[ \t]*\{\{\/\2\}\}\n?/g;
const SLOT = /\{\{([\w-]+)\}\}/g;

export type CatalogPage = (spec: CompiledSpec, opts: CatalogOptions) => string;

/** Prepares the page template once (at boot): a name it does not know is a broken build. */
export function prepareCatalogPage(template: string): CatalogPage {
  const text = template.replace(COMMENT, '');
  for (const [, sign, name] of text.matchAll(/\{\{([#^/]?)([\w-]+)\}\}/g)) {
    const known: readonly string[] = sign === '' ? SLOTS : FLAGS;
    if (!known.includes(name!)) throw new Error(`catalog.html: unknown {{${sign}${name}}}`);
  }
  // Blocks do not nest: a marker left once every block is taken out has no partner.
  const stray = /\{\{[#^/][\w-]+\}\}/.exec(text.replace(BLOCK, '$3'));
  if (stray) throw new Error(`catalog.html: ${stray[0]} opens or closes no block`);
  return (spec, opts) => {
    const { server } = spec;
    const flags: Record<Flag, boolean> = {
      instructions: server.instructions !== undefined,
      access: opts.access,
      // The Connected accounts panel, with an oauth-provider (auth user) in the spec.
      connections: opts.access && spec.oauthProviders.length > 0,
    };
    const scopes = opts.access
      ? ''
      : JSON.stringify(
          Object.fromEntries(
            spec.tools.filter((t) => t.scopes.length > 0).map((t) => [t.name, t.scopes]),
          ),
        );
    const values: Record<Slot, string> = {
      heading: server.title ?? server.name,
      name: server.name,
      version: server.version,
      instructions: server.instructions ?? '',
      'mcp-path': opts.mcpPath,
      access: opts.access ? 'on' : 'off',
      'sign-in-host': opts.signIn ?? '',
      view: opts.view,
      scopes,
      ...opts.assets,
    };
    return text
      .replace(BLOCK, (_m, sign: string, flag: Flag, inner: string) =>
        flags[flag] === (sign === '#') ? inner : '',
      )
      .replace(SLOT, (_m, slot: Slot) => escapeHtml(values[slot]));
  };
}
