/**
 * The catalog projection: `GET /` is a small HTML page listing the tools of the spec
 * served now, with the MCP URL to copy and a try-it form per tool that calls
 * `POST /api/<tool>`; `GET /approvals` and `GET /approvals/<id>` (the URL an approval's
 * answer names) are the same page in its approvals view, which lists and decides them
 * through `/api/approvals`; `GET /confirm/<id>` (the URL a confirmation's question names)
 * is the page in its confirmation view, answered through `/api/confirmations/<id>`. Its page, script, stylesheet and icon are the files of assets/
 * (the script joined from its parts in assets/script/ by catalog-script.ts), read once at
 * boot and served same-origin, so a strict Content-Security-Policy (no inline code at
 * all) holds.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CompiledSpec } from '../../compiler/descriptor.js';
import { APPROVALS_PAGE_PATH, CONFIRM_PAGE_PATH } from '../approval-url.js';
import { MCP_PATH } from '../mcp/mcp-routes.js';
import { restErrorHandler } from '../rest/rest-error.js';
import { CATALOG_FILES } from './catalog-assets.js';
import { prepareCatalogPage, type CatalogOptions, type CatalogView } from './catalog-page.js';
import { joinCatalogScript } from './catalog-script.js';

/** What the catalog needs from the runtime serving now (it changes on reload). */
export interface CatalogRuntime {
  readonly spec: CompiledSpec;
  readonly access: { readonly enabled: boolean };
}

export const CATALOG_CSP =
  "default-src 'self'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

const SECURITY_HEADERS = {
  'content-security-policy': CATALOG_CSP,
  // frame-ancestors for browsers too old to read it: an approval page in a frame could be
  // clicked through by the framing site.
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

interface StaticAsset {
  readonly path: string;
  readonly type: string;
  readonly body: Buffer;
  readonly etag: string;
}

function staticAsset(path: string, type: string, text: string): StaticAsset {
  const body = Buffer.from(text, 'utf8');
  const hash = createHash('sha256').update(body).digest('base64url').slice(0, 16);
  return { path, type, body, etag: `"${hash}"` };
}

const SCRIPT = staticAsset(
  '/catalog.js',
  'text/javascript; charset=utf-8',
  joinCatalogScript((part) => CATALOG_FILES[part]),
);
const STYLE = staticAsset('/catalog.css', 'text/css; charset=utf-8', CATALOG_FILES['catalog.css']);
const ICON = staticAsset('/catalog.svg', 'image/svg+xml', CATALOG_FILES['catalog.svg']);
const renderCatalog = prepareCatalogPage(CATALOG_FILES['catalog.html']);

/** The page names each asset by its content hash, so an upgrade never meets a stale copy. */
const ASSETS: CatalogOptions['assets'] = {
  script: `${SCRIPT.path}?v=${SCRIPT.etag.slice(1, -1)}`,
  style: `${STYLE.path}?v=${STYLE.etag.slice(1, -1)}`,
  icon: `${ICON.path}?v=${ICON.etag.slice(1, -1)}`,
};

// A day, revalidated by ETag after: long enough to matter, short enough to be safe for
// a request that did not carry the page's version query.
const ASSET_CACHE = 'public, max-age=86400';

export interface CatalogProjectionOptions {
  /** The runtime serving now; a reload replaces what this returns. */
  readonly current: () => CatalogRuntime;
  readonly bodyLimit: number;
}

/**
 * The catalog projection as a fastify plugin. Its routes take no body and no caller; a
 * failure (only ever a bug) is answered in the catalogue's shape by its own handler.
 */
export async function catalogProjection(
  scope: FastifyInstance,
  opts: CatalogProjectionOptions,
): Promise<void> {
  const { current } = opts;
  scope.setErrorHandler(restErrorHandler(opts.bodyLimit));
  // Rendered once per loaded spec and view; a reload brings a new spec object.
  const pages = new WeakMap<CompiledSpec, { access: boolean; html: Map<CatalogView, string> }>();
  const pageFor = (rt: CatalogRuntime, view: CatalogView): string => {
    let cached = pages.get(rt.spec);
    if (!cached || cached.access !== rt.access.enabled) {
      cached = { access: rt.access.enabled, html: new Map() };
      pages.set(rt.spec, cached);
    }
    let html = cached.html.get(view);
    if (html === undefined) {
      const signIn = signInHost(rt.spec);
      html = renderCatalog(rt.spec, {
        mcpPath: MCP_PATH,
        access: rt.access.enabled,
        view,
        assets: ASSETS,
        ...(signIn !== undefined && { signIn }),
      });
      cached.html.set(view, html);
    }
    return html;
  };
  const servePage = (view: CatalogView) =>
    async function servePage(_req: FastifyRequest, reply: FastifyReply) {
      return (
        reply
          .headers(SECURITY_HEADERS)
          // The spec may be reloaded at any time: always revalidate.
          .header('cache-control', 'no-cache')
          .type('text/html; charset=utf-8')
          .send(pageFor(current(), view))
      );
    };

  scope.get('/', servePage('tools'));
  // The script reads the approval's id from the address: the page itself names none.
  scope.get(APPROVALS_PAGE_PATH, servePage('approvals'));
  scope.get(`${APPROVALS_PAGE_PATH}/:id`, servePage('approvals'));
  // Frame-denied and without inline code like every view: a framed Confirm button could be
  // clicked through by the framing site.
  scope.get(`${CONFIRM_PAGE_PATH}/:id`, servePage('confirm'));

  for (const asset of [SCRIPT, STYLE, ICON]) {
    scope.get(asset.path, async function serveAsset(req: FastifyRequest, reply: FastifyReply) {
      reply
        .headers(SECURITY_HEADERS)
        .header('cache-control', ASSET_CACHE)
        .header('etag', asset.etag);
      if (etagMatches(req.headers['if-none-match'], asset.etag)) return reply.code(304).send();
      return reply.type(asset.type).send(asset.body);
    });
  }
}

/** The identity provider's host the sign-in link names, with `sign-in` in the spec. */
function signInHost(spec: CompiledSpec): string | undefined {
  const issuer = spec.access?.signIn?.issuer;
  return issuer === undefined ? undefined : new URL(issuer).host;
}

function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header
    .split(',')
    .map((t) => t.trim().replace(/^W\//, ''))
    .some((t) => t === etag || t === '*');
}
