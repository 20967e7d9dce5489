/**
 * The catalog page (`GET /`): one HTML document rendered from the compiled spec, every
 * spec string HTML-escaped. It carries no inline script or style (the CSP forbids them):
 * behaviour and looks come from /catalog.js and /catalog.css.
 *
 * With inbound access on, the page names no tool at all (GET /api, /openapi.json and
 * MCP tools/list show each caller only what its scopes allow, and so must this page):
 * it has the server, the MCP URL and a token field, and the script lists the tools
 * that token may call from `GET /api`.
 */
import type { CompiledSpec, Descriptor } from '../../spec/descriptor.js';
import { BADGES, exampleArguments } from './catalog-shared.js';

/** Text for an HTML text node or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export interface CatalogAssets {
  /** Versioned URLs of the script, stylesheet and icon (a query busts caches on upgrade). */
  readonly script: string;
  readonly style: string;
  readonly icon: string;
}

export interface CatalogOptions {
  readonly mcpPath: string;
  /** Inbound access is on: show the bearer-token field and no tool. */
  readonly access: boolean;
  readonly assets: CatalogAssets;
}

export function renderCatalog(spec: CompiledSpec, opts: CatalogOptions): string {
  const { server } = spec;
  const heading = server.title ?? server.name;
  const e = escapeHtml;
  const tools = opts.access ? [] : spec.tools;
  const parts: string[] = [];
  parts.push(
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    `<title>${e(heading)} · tool catalog</title>`,
    `<link rel="icon" type="image/svg+xml" href="${e(opts.assets.icon)}">`,
    `<link rel="stylesheet" href="${e(opts.assets.style)}">`,
    `<script src="${e(opts.assets.script)}" defer></script>`,
    '</head>',
    `<body data-mcp-path="${e(opts.mcpPath)}" data-access="${opts.access ? 'on' : 'off'}">`,
    '<header class="page-header">',
    '<div class="wrap">',
    `<h1>${e(heading)}</h1>`,
    `<p class="server-id"><code>${e(server.name)}</code> <span class="version">version ${e(server.version)}</span></p>`,
    '</div>',
    '</header>',
    '<main class="wrap">',
  );

  if (server.instructions !== undefined) {
    parts.push(
      '<section class="panel" aria-labelledby="instructions-heading">',
      '<h2 id="instructions-heading">Instructions</h2>',
      `<p class="prose">${e(server.instructions)}</p>`,
      '</section>',
    );
  }

  parts.push(
    '<section class="panel" aria-labelledby="connect-heading">',
    '<h2 id="connect-heading">Connect</h2>',
    '<label for="mcp-url">MCP endpoint (Streamable HTTP)</label>',
    '<div class="copy-row">',
    `<input id="mcp-url" type="text" readonly value="${e(opts.mcpPath)}" spellcheck="false">`,
    '<button type="button" id="copy-mcp-url">Copy</button>',
    '</div>',
    '<p class="hint" id="copy-status" role="status" aria-live="polite"></p>',
    `<p class="hint">Over REST, each tool is <code>POST /api/&lt;tool&gt;</code> with its arguments as a JSON body; <code>GET /api</code> lists them.</p>`,
  );
  if (opts.access) {
    parts.push(
      '<label for="bearer-token">Bearer token</label>',
      '<div class="copy-row">',
      '<input id="bearer-token" type="password" autocomplete="off" spellcheck="false" aria-describedby="token-hint">',
      '<button type="button" id="use-token">Show tools</button>',
      '<button type="button" id="forget-token">Forget</button>',
      '</div>',
      '<p class="hint" id="token-hint">Lists the tools this token may call, and is sent with each try-it call as <code>Authorization: Bearer …</code>. Kept only in this tab (sessionStorage), never in the address.</p>',
    );
  }
  parts.push('</section>');

  if (opts.access) {
    // Filled in by the script from GET /api once a token is entered.
    parts.push(
      '<section aria-labelledby="tools-heading" id="tools" data-source="api">',
      '<h2 id="tools-heading">Tools <span class="count" id="tool-count"></span></h2>',
      '<p class="notice" id="tools-status" role="status" aria-live="polite">Tools appear once a token is entered: each token sees the tools its scopes allow.</p>',
      '<div id="tool-list"></div>',
    );
  } else {
    parts.push(
      '<section aria-labelledby="tools-heading" id="tools">',
      `<h2 id="tools-heading">Tools <span class="count">${tools.length}</span></h2>`,
    );
    if (tools.length > 1) {
      parts.push('<nav aria-label="Tools"><ul class="toc">');
      for (const t of tools)
        parts.push(`<li><a href="#tool-${e(t.name)}"><code>${e(t.name)}</code></a></li>`);
      parts.push('</ul></nav>');
    }
    for (const t of tools) parts.push(renderTool(t));
  }
  parts.push('</section>', '</main>');
  parts.push(
    '<footer class="wrap page-footer"><p>Served by mcp-beaver. The page calls this gateway only.</p></footer>',
    '</body>',
    '</html>',
  );
  return parts.join('\n') + '\n';
}

function renderTool(t: Descriptor): string {
  const e = escapeHtml;
  const id = `tool-${t.name}`;
  const badges = BADGES.filter((b) => t.annotations[b.hint]).map(
    (b) => `<li class="badge badge-${b.kind}" title="${e(b.explain)}">${e(b.label)}</li>`,
  );
  const example = JSON.stringify(exampleArguments(t.inputSchema), null, 2);
  const rows = Math.min(16, Math.max(3, example.split('\n').length + 1));
  const out = [
    `<article class="tool" id="${e(id)}" aria-labelledby="${e(id)}-name">`,
    '<header class="tool-header">',
    `<h3 id="${e(id)}-name"><code class="tool-name">${e(t.name)}</code> <span class="tool-title">${e(t.title)}</span></h3>`,
    badges.length > 0 ? `<ul class="badges" aria-label="Annotations">${badges.join('')}</ul>` : '',
    '</header>',
    t.description !== undefined ? `<p class="prose">${e(t.description)}</p>` : '',
    t.scopes.length > 0
      ? `<p class="scopes">Needs scope ${t.scopes.map((s) => `<code>${e(s)}</code>`).join(' ')}</p>`
      : '',
    '<details class="schema">',
    '<summary>Input schema</summary>',
    `<pre><code>${e(JSON.stringify(t.inputSchema, null, 2))}</code></pre>`,
    '</details>',
    `<form class="try" method="post" action="/api/${e(encodeURIComponent(t.name))}" data-tool="${e(t.name)}">`,
    `<label for="${e(id)}-args">Try it: arguments (JSON)</label>`,
    `<textarea id="${e(id)}-args" name="arguments" rows="${rows}" spellcheck="false" autocomplete="off">${e(example)}</textarea>`,
    '<div class="actions">',
    '<button type="submit">Call</button>',
    `<span class="call-status" role="status" aria-live="polite"></span>`,
    '</div>',
    `<pre class="envelope" hidden><code></code></pre>`,
    '</form>',
    '</article>',
  ];
  return out.filter((line) => line !== '').join('\n');
}
