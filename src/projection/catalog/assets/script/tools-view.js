/**
 * The tools view (`/`, `/?toolset=<name>`): the tool cards from GET /api, and the listing
 * that fills this view's sections.
 */
/* global byId, clearResourcesAndPrompts, currentToken, el, exampleArguments, getListing, has */
/* global inToolset, isObject, listingPath, showResourcesAndPrompts, showToolset, showToolsets */
/* global tokenInput, tryForm, wire */
/* exported loadTools */

const TOOLS_HINT =
  'Tools appear once a token is entered: each token sees the tools its scopes allow.';

/** The annotation badges, in the order a card shows them; the label is also the class. */
const BADGES = [
  { hint: 'readOnlyHint', label: 'read-only', explain: 'Does not change anything upstream.' },
  {
    hint: 'destructiveHint',
    label: 'destructive',
    explain: 'May delete or overwrite data upstream.',
  },
  {
    hint: 'idempotentHint',
    label: 'idempotent',
    explain: 'Calling it again with the same arguments has no further effect.',
  },
  {
    hint: 'openWorldHint',
    label: 'open-world',
    explain: 'Talks to a system outside this gateway.',
  },
];

// --- The tool cards, from GET /api. ---

const toolList = byId('tool-list');
const toolsStatus = byId('tools-status');
const toolCount = byId('tool-count');
/** The scopes of each tool, named by the page only without access (everyone sees all). */
const scopesOf = (() => {
  try {
    const parsed = JSON.parse(byId('tools').getAttribute('data-scopes') || '{}');
    return isObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
})();

function toolCard(t) {
  const name = t.name;
  const id = `tool-${name}`;
  const article = el('article', 'tool');
  article.id = id;
  article.setAttribute('aria-labelledby', `${id}-name`);

  const header = el('header', 'tool-header');
  const h3 = el('h3');
  h3.id = `${id}-name`;
  h3.append(el('code', 'tool-name', name), ' ', el('span', 'tool-title', t.title ?? name));
  header.append(h3);
  const annotations = isObject(t.annotations) ? t.annotations : {};
  const badges = BADGES.filter((b) => annotations[b.hint]).map((b) => {
    const li = el('li', `badge badge-${b.label}`, b.label);
    li.title = b.explain;
    return li;
  });
  if (badges.length > 0) {
    const ul = el('ul', 'badges');
    ul.setAttribute('aria-label', 'Annotations');
    ul.append(...badges);
    header.append(ul);
  }
  article.append(header);

  if (typeof t.description === 'string') article.append(el('p', 'prose', t.description));
  const scopes = has(scopesOf, name) && Array.isArray(scopesOf[name]) ? scopesOf[name] : [];
  if (scopes.length > 0) {
    const p = el('p', 'scopes', 'Needs scope ');
    scopes.forEach((scope, i) => {
      if (i > 0) p.append(' ');
      p.append(el('code', '', scope));
    });
    article.append(p);
  }

  const details = el('details', 'schema');
  const schemaPre = el('pre');
  schemaPre.append(el('code', '', JSON.stringify(t.inputSchema, null, 2)));
  details.append(el('summary', '', 'Input schema'), schemaPre);
  article.append(details);

  const label = el('label', '', 'Try it: arguments (JSON)');
  label.htmlFor = `${id}-args`;
  const example = JSON.stringify(exampleArguments(t.inputSchema), null, 2);
  const textarea = el('textarea', '', example);
  textarea.id = `${id}-args`;
  textarea.name = 'arguments';
  textarea.rows = Math.min(16, Math.max(3, example.split('\n').length + 1));
  textarea.spellcheck = false;
  textarea.setAttribute('autocomplete', 'off');
  const form = tryForm('/api/' + encodeURIComponent(name), 'Call', [label, textarea]);
  form.setAttribute('data-tool', name);
  article.append(form);
  wire(form);
  return article;
}

function toolsNotice(state, text) {
  toolsStatus.className = `notice${state ? ` ${state}` : ''}`;
  toolsStatus.textContent = text;
  toolsStatus.hidden = text === '';
}

function clearTools() {
  toolList.replaceChildren();
  toolCount.textContent = '';
  clearResourcesAndPrompts();
  showToolsets(undefined);
}

function showTools(tools) {
  clearTools();
  toolCount.textContent = String(tools.length);
  toolsNotice('', tools.length === 0 && tokenInput ? 'This token may call no tool.' : '');
  if (tools.length > 1) {
    const nav = el('nav');
    nav.setAttribute('aria-label', 'Tools');
    const toc = el('ul', 'toc');
    for (const t of tools) {
      const a = el('a');
      a.href = '#tool-' + encodeURIComponent(t.name);
      a.append(el('code', '', t.name));
      const li = el('li');
      li.append(a);
      toc.append(li);
    }
    nav.append(toc);
    toolList.append(nav);
  }
  toolList.append(...tools.map(toolCard));
  // A link to one tool, followed before its card existed.
  const hash = window.location.hash;
  if (hash.length > 1) {
    let target;
    try {
      target = byId(decodeURIComponent(hash.slice(1)));
    } catch {
      target = null;
    }
    if (target && toolList.contains(target)) target.scrollIntoView();
  }
}

// The token of the listing asked for last; an older answer is dropped.
const asked = { seq: 0, token: null, pending: false };

// Lists the caller's tools (with access, those of the token in the field); again only when
// asked to (again is never while the same token's listing is on its way).
function loadTools(again) {
  const token = currentToken();
  if (token === asked.token && (asked.pending || !again)) return;
  const seq = ++asked.seq;
  asked.token = token;
  clearTools();
  if (tokenInput && !token) {
    asked.pending = false;
    toolsNotice('', TOOLS_HINT);
    return;
  }
  asked.pending = true;
  if (tokenInput) toolsNotice('pending', 'Listing the tools this token may call…');
  toolList.setAttribute('aria-busy', 'true');
  const done = () => {
    if (seq !== asked.seq) return false;
    asked.pending = false;
    toolList.removeAttribute('aria-busy');
    return true;
  };
  getListing({
    path: listingPath,
    token,
    what: inToolset ? 'tools of this toolset' : 'tools',
    holds: (listing) => Array.isArray(listing.tools),
    shape: 'a tool list',
    done,
    fail: (text, refused, status) => {
      // A toolset the gateway does not serve has no URL to copy; the notice says why, in
      // the gateway's words, and the header links back to the whole list.
      if (inToolset && status === 404) byId('connect').hidden = true;
      toolsNotice('error', text);
    },
    show: (listing) => {
      byId('connect').hidden = false;
      showToolset(listing.toolset);
      showTools(listing.tools.filter((t) => isObject(t) && typeof t.name === 'string'));
      showResourcesAndPrompts(listing);
      showToolsets(listing.toolsets);
    },
  });
}
