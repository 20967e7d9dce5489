/**
 * The catalog page (`GET /`): one HTML document rendered from the compiled spec, every
 * spec string HTML-escaped. It carries no inline script or style (the CSP forbids them):
 * behaviour and looks come from /catalog.js and /catalog.css.
 */
import type { CompiledSpec, Descriptor } from '../../spec/descriptor.js';
import type { JsonSchema } from '../../spec/field-schema.js';

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
  /** Inbound access is on: show the bearer-token field. */
  readonly access: boolean;
  readonly assets: CatalogAssets;
}

const BADGES: readonly {
  readonly hint: keyof Omit<Descriptor['annotations'], 'title'>;
  readonly label: string;
  readonly kind: string;
  readonly explain: string;
}[] = [
  {
    hint: 'readOnlyHint',
    label: 'read-only',
    kind: 'read-only',
    explain: 'Does not change anything upstream.',
  },
  {
    hint: 'destructiveHint',
    label: 'destructive',
    kind: 'destructive',
    explain: 'May delete or overwrite data upstream.',
  },
  {
    hint: 'idempotentHint',
    label: 'idempotent',
    kind: 'idempotent',
    explain: 'Calling it again with the same arguments has no further effect.',
  },
  {
    hint: 'openWorldHint',
    label: 'open-world',
    kind: 'open-world',
    explain: 'Talks to a system outside this gateway.',
  },
];

export function renderCatalog(spec: CompiledSpec, opts: CatalogOptions): string {
  const { server } = spec;
  const heading = server.title ?? server.name;
  const e = escapeHtml;
  const tools = spec.tools;
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
      '<label for="bearer-token">Bearer token for the forms below</label>',
      '<div class="copy-row">',
      '<input id="bearer-token" type="password" autocomplete="off" spellcheck="false" aria-describedby="token-hint">',
      '<button type="button" id="forget-token">Forget</button>',
      '</div>',
      '<p class="hint" id="token-hint">Sent as <code>Authorization: Bearer …</code>. Kept only in this tab (sessionStorage), never in the address.</p>',
    );
  }
  parts.push('</section>');

  parts.push(
    '<section aria-labelledby="tools-heading">',
    `<h2 id="tools-heading">Tools <span class="count">${tools.length}</span></h2>`,
  );
  if (tools.length > 1) {
    parts.push('<nav aria-label="Tools"><ul class="toc">');
    for (const t of tools)
      parts.push(`<li><a href="#tool-${e(t.name)}"><code>${e(t.name)}</code></a></li>`);
    parts.push('</ul></nav>');
  }
  for (const t of tools) parts.push(renderTool(t));
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

/**
 * A starting point for the try-it form: the required properties and those with a
 * default, each filled with its default, first enum value, or a plain value of its type.
 */
export function exampleArguments(schema: JsonSchema): Record<string, unknown> {
  const v = exampleValue(schema, 0);
  return v !== null && typeof v === 'object' && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : {};
}

function exampleValue(schema: JsonSchema, depth: number): unknown {
  if ('default' in schema) return schema.default;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
      if (depth > 8) return out;
      for (const [name, sub] of Object.entries(props)) {
        if (required.has(name) || 'default' in sub) out[name] = exampleValue(sub, depth + 1);
      }
      return out;
    }
    case 'array':
      return [];
    case 'integer':
    case 'number': {
      if (typeof schema.minimum === 'number') return schema.minimum;
      if (typeof schema.exclusiveMinimum === 'number')
        return Math.floor(schema.exclusiveMinimum) + 1;
      return 0;
    }
    case 'boolean':
      return false;
    case 'string':
      return typeof schema.format === 'string' && Object.hasOwn(FORMAT_EXAMPLES, schema.format)
        ? FORMAT_EXAMPLES[schema.format]
        : '';
    default:
      return null;
  }
}

const FORMAT_EXAMPLES: Record<string, string> = {
  'date-time': '2025-01-01T00:00:00Z',
  date: '2025-01-01',
  time: '00:00:00Z',
  email: 'someone@example.com',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  uuid: '00000000-0000-4000-8000-000000000000',
};
