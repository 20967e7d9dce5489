/**
 * The catalog page's behaviour, served as /catalog.js: plain browser JavaScript, no build
 * step, no framework, nothing loaded from elsewhere. It fills in the MCP URL and copies it,
 * keeps the bearer token in sessionStorage, lists the tools, resources and prompts from
 * `GET /api` (the caller's: with access, those of the token in the field) as cards built
 * from text nodes only, never markup from the spec, and turns each try-it form into a
 * `fetch` POST (to /api/<tool>, /api/resources/read or /api/prompts/get) whose status and
 * answer it shows. In its approvals view (`/approvals`, `/approvals/<id>`) it lists instead
 * the calls waiting for approval from `GET /api/approvals`, highlights the one the address
 * names, and decides them with `POST /api/approvals/<id>`; their messages are filled from
 * the arguments an agent sent, so they too are only ever text nodes. At `/?toolset=<name>`
 * it shows one toolset: its members from `GET /api?toolset=<name>`, its own MCP URL, its
 * name and `describe`; the whole list links every toolset `GET /api` names.
 *
 * A classic script (the page loads it with `defer`), so everything lives in one function.
 */
(() => {
  'use strict';

  const TOKEN_KEY = 'mcp-beaver:bearer-token';
  const TOOLS_HINT =
    'Tools appear once a token is entered: each token sees the tools its scopes allow.';
  const APPROVALS_HINT =
    'Approvals appear once a token is entered: each token sees those of the scopes it holds, and never decides its own calls.';

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

  /** The try-it example nests no deeper than this. */
  const EXAMPLE_MAX_DEPTH = 8;

  const FORMAT_EXAMPLES = {
    'date-time': '2025-01-01T00:00:00Z',
    date: '2025-01-01',
    time: '00:00:00Z',
    email: 'someone@example.com',
    uri: 'https://example.com/',
    url: 'https://example.com/',
    uuid: '00000000-0000-4000-8000-000000000000',
  };

  const body = document.body;
  /** The view the gateway served: the tools (`/`) or the approvals (`/approvals…`). */
  const view = body.getAttribute('data-view') === 'approvals' ? 'approvals' : 'tools';
  const byId = (id) => document.getElementById(id);
  const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  const has = (o, key) => Object.prototype.hasOwnProperty.call(o, key);
  const errorText = (e) => (e && e.message ? e.message : e);
  const httpLabel = (res) => `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`;

  /** An element with a class and text (text, never markup: it may come from the spec). */
  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function storage() {
    try {
      return window.sessionStorage;
    } catch {
      return null;
    }
  }

  // --- The toolset the address names (`/?toolset=<name>`), or none: the whole list. ---

  /**
   * Every `toolset` of the address, as given: GET /api?toolset= is asked with the same
   * values, so an empty or repeated one is refused by the gateway, in its words.
   */
  const toolsetValues =
    view === 'tools' ? new URLSearchParams(window.location.search).getAll('toolset') : [];
  const inToolset = toolsetValues.length > 0;
  const toolsetName = toolsetValues[0] || '';
  const listingPath = inToolset
    ? `/api?${toolsetValues.map((v) => `toolset=${encodeURIComponent(v)}`).join('&')}`
    : '/api';

  // --- The MCP URL as this browser reaches the gateway (right behind a proxy too). ---

  const mcpInput = byId('mcp-url');
  const copyStatus = byId('copy-status');
  const mcpPath = body.getAttribute('data-mcp-path') || '/mcp';
  // A toolset's own URL, whose tools/list holds only its members.
  mcpInput.value =
    window.location.origin + mcpPath + (inToolset ? `/${encodeURIComponent(toolsetName)}` : '');
  mcpInput.addEventListener('focus', () => mcpInput.select());

  byId('copy-mcp-url').addEventListener('click', () => {
    const done = (ok) => {
      copyStatus.textContent = ok ? 'Copied.' : 'Select the URL and copy it.';
    };
    const fallback = () => {
      mcpInput.focus();
      mcpInput.select();
      let ok;
      try {
        ok = document.execCommand('copy');
      } catch {
        ok = false;
      }
      done(ok);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(mcpInput.value).then(() => done(true), fallback);
    } else {
      fallback();
    }
  });

  // --- The bearer token (with access only): this tab only, never in the URL. ---

  const tokenInput = byId('bearer-token');
  const store = storage();
  const currentToken = () => (tokenInput ? tokenInput.value.trim() : '');
  if (tokenInput) {
    if (store) tokenInput.value = store.getItem(TOKEN_KEY) || '';
    tokenInput.addEventListener('input', () => {
      if (!store) return;
      const value = tokenInput.value.trim();
      if (value) store.setItem(TOKEN_KEY, value);
      else store.removeItem(TOKEN_KEY);
    });
    // A token is taken on Enter, on leaving the field changed, or with the button.
    tokenInput.addEventListener('change', () => loadView(false));
    tokenInput.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') {
        event.preventDefault();
        loadView(true);
      }
    });
    byId('use-token').addEventListener('click', () => loadView(true));
    byId('forget-token').addEventListener('click', () => {
      tokenInput.value = '';
      if (store) store.removeItem(TOKEN_KEY);
      loadView(true);
      tokenInput.focus();
    });
  }

  // --- The try-it form of one card: POST /api/<tool>, then its status and envelope. ---

  function show(form, state, statusText, bodyText) {
    const status = form.querySelector('.call-status');
    const pre = form.querySelector('.envelope');
    const code = pre.querySelector('code');
    status.textContent = statusText;
    status.className = `call-status ${state}`;
    pre.className = `envelope ${state}`;
    if (bodyText === null) {
      pre.hidden = true;
      code.textContent = '';
    } else {
      code.textContent = bodyText;
      pre.hidden = false;
    }
  }

  function pretty(text) {
    try {
      return JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      return text;
    }
  }

  /** POSTs `payload` as the caller and shows the status and `shown(text)` of the answer. */
  function post(form, path, payload, pendingText, shown) {
    const button = form.querySelector('button[type="submit"]');
    const headers = { 'content-type': 'application/json', accept: 'application/json' };
    const token = currentToken();
    if (token) headers.authorization = `Bearer ${token}`;
    button.disabled = true;
    form.setAttribute('aria-busy', 'true');
    show(form, 'pending', pendingText, null);
    const started = Date.now();
    fetch(path, {
      method: 'POST',
      headers,
      body: JSON.stringify(payload),
      credentials: 'omit',
      cache: 'no-store',
      redirect: 'error',
    })
      .then((res) =>
        res.text().then((text) => {
          const ms = Date.now() - started;
          const bodyText = res.ok ? shown(text) : pretty(text);
          show(form, res.ok ? 'ok' : 'error', `${httpLabel(res)} · ${ms} ms`, bodyText);
        }),
      )
      .catch((e) => show(form, 'error', `The request did not complete: ${errorText(e)}`, null))
      .then(() => {
        button.disabled = false;
        form.removeAttribute('aria-busy');
      });
  }

  function call(form) {
    const tool = form.getAttribute('data-tool');
    const textarea = form.querySelector('textarea');
    const button = form.querySelector('button[type="submit"]');
    const raw = textarea.value.trim() === '' ? '{}' : textarea.value;
    let args;
    try {
      args = JSON.parse(raw);
    } catch (e) {
      show(form, 'error', `The arguments are not valid JSON: ${e.message}`, null);
      textarea.focus();
      return;
    }
    if (!isObject(args)) {
      show(form, 'error', 'The arguments must be a JSON object.', null);
      textarea.focus();
      return;
    }
    const headers = { 'content-type': 'application/json', accept: 'application/json' };
    const token = currentToken();
    if (token) headers.authorization = `Bearer ${token}`;
    button.disabled = true;
    form.setAttribute('aria-busy', 'true');
    show(form, 'pending', `Calling ${tool}…`, null);
    const started = Date.now();
    fetch('/api/' + encodeURIComponent(tool), {
      method: 'POST',
      headers,
      body: JSON.stringify(args),
      credentials: 'omit',
      cache: 'no-store',
      redirect: 'error',
    })
      .then((res) =>
        res.text().then((text) => {
          const ms = Date.now() - started;
          show(form, res.ok ? 'ok' : 'error', `${httpLabel(res)} · ${ms} ms`, pretty(text));
        }),
      )
      .catch((e) => show(form, 'error', `The call did not complete: ${errorText(e)}`, null))
      .then(() => {
        button.disabled = false;
        form.removeAttribute('aria-busy');
      });
  }

  function wire(form) {
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      call(form);
    });
    const textarea = form.querySelector('textarea');
    textarea.addEventListener('input', () => {
      // A complaint about the text just replaced no longer applies.
      const pre = form.querySelector('.envelope');
      const status = form.querySelector('.call-status');
      if (pre.hidden && status.className.indexOf('error') >= 0) show(form, '', '', null);
    });
    textarea.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        call(form);
      }
    });
  }

  // --- The try-it example: a starting point built from the input schema. ---

  /**
   * The required properties and those with a default, each filled with its default, first
   * enum value, or a plain value of its type.
   */
  function exampleValue(schema, depth) {
    if (!isObject(schema)) return null;
    if (has(schema, 'default')) return schema.default;
    if (has(schema, 'const')) return schema.const;
    if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
    // A `raw` field without kind= is anyOf object | array: its first branch stands for it.
    if (Array.isArray(schema.anyOf) && schema.anyOf.length > 0 && !has(schema, 'type'))
      return exampleValue(schema.anyOf[0], depth);
    const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
    switch (type) {
      case 'object': {
        const out = {};
        if (depth > EXAMPLE_MAX_DEPTH) return out;
        const props = isObject(schema.properties) ? schema.properties : {};
        const required = Array.isArray(schema.required) ? schema.required : [];
        for (const [name, sub] of Object.entries(props)) {
          if (required.includes(name) || (isObject(sub) && has(sub, 'default')))
            out[name] = exampleValue(sub, depth + 1);
        }
        return out;
      }
      case 'array':
        return [];
      case 'integer':
      case 'number':
        if (typeof schema.minimum === 'number') return schema.minimum;
        if (typeof schema.exclusiveMinimum === 'number')
          return Math.floor(schema.exclusiveMinimum) + 1;
        return 0;
      case 'boolean':
        return false;
      case 'string':
        return typeof schema.format === 'string' && has(FORMAT_EXAMPLES, schema.format)
          ? FORMAT_EXAMPLES[schema.format]
          : '';
      default:
        return null;
    }
  }

  function exampleArguments(schema) {
    const v = exampleValue(schema, 0);
    return isObject(v) ? v : {};
  }

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

  // --- The resource, template and prompt cards, from the same GET /api. ---

  const resourcesSection = byId('resources');
  const resourceList = byId('resource-list');
  const resourceCount = byId('resource-count');
  const promptsSection = byId('prompts');
  const promptList = byId('prompt-list');
  const promptCount = byId('prompt-count');

  /** `{name}` segments of a URI template (RFC 6570 level 1, as the spec allows). */
  const VARIABLE = /\{([^{}]+)\}/g;

  /**
   * An answer shown item by item: each of the array `key` of the JSON answer as `itemText`
   * writes it, joined by `separator`. An answer that is not JSON is shown as it is, one
   * without that array indented, so that nothing the gateway said is hidden.
   */
  function itemsText(text, key, itemText, separator) {
    let parsed;
    try {
      parsed = JSON.parse(text);
    } catch {
      return text;
    }
    if (!isObject(parsed) || !Array.isArray(parsed[key])) return pretty(text);
    return parsed[key].map(itemText).join(separator);
  }

  /** A text content as it is, indented when its MIME type says JSON. */
  function indentedIfJson(mimeType, text) {
    return /json/.test(String(mimeType)) ? pretty(text) : text;
  }

  /** The answer of a read: the text of each content (indented when JSON), a blob described. */
  function contentsText(text) {
    return itemsText(
      text,
      'contents',
      (c) => {
        if (!isObject(c)) return '';
        if (typeof c.text === 'string') return indentedIfJson(c.mimeType, c.text);
        const bytes = typeof c.blob === 'string' ? Math.floor((c.blob.length * 3) / 4) : 0;
        return `[${c.mimeType || 'binary'}: about ${bytes} bytes of binary content]`;
      },
      '\n',
    );
  }

  /** The answer of a get: each message as [role] and its text, a resource named. */
  function messagesText(text) {
    return itemsText(
      text,
      'messages',
      (m) => {
        const c = isObject(m) && isObject(m.content) ? m.content : {};
        const role = isObject(m) ? m.role : '';
        if (c.type === 'resource' && isObject(c.resource)) {
          const r = c.resource;
          const body =
            typeof r.text === 'string' ? indentedIfJson(r.mimeType, r.text) : '[binary content]';
          return `[${role}] resource ${r.uri} (${r.mimeType})\n${body}`;
        }
        return `[${role}]\n${typeof c.text === 'string' ? c.text : `[${c.type} content]`}`;
      },
      '\n\n',
    );
  }

  /** The card's frame: heading with the code name and title, the MIME badge, the prose. */
  function primitiveCard(kind, id, code, title, description, badge) {
    const article = el('article', `tool ${kind}`);
    article.id = id;
    article.setAttribute('aria-labelledby', `${id}-name`);
    const header = el('header', 'tool-header');
    const h3 = el('h3');
    h3.id = `${id}-name`;
    h3.append(el('code', 'tool-name', code));
    if (title) h3.append(' ', el('span', 'tool-title', title));
    header.append(h3);
    if (badge) {
      const ul = el('ul', 'badges');
      ul.append(el('li', 'badge badge-mime', badge));
      header.append(ul);
    }
    article.append(header);
    if (typeof description === 'string') article.append(el('p', 'prose', description));
    return article;
  }

  /** A try-it form, of every card: the given fields, a button, the status and the answer. */
  function tryForm(action, buttonText, fields) {
    const form = el('form', 'try');
    form.method = 'post';
    form.action = action;
    const actions = el('div', 'actions');
    const button = el('button', '', buttonText);
    button.type = 'submit';
    const status = el('span', 'call-status');
    status.setAttribute('role', 'status');
    status.setAttribute('aria-live', 'polite');
    actions.append(button, status);
    const answer = el('pre', 'envelope');
    answer.hidden = true;
    answer.append(el('code'));
    form.append(...fields, actions, answer);
    return form;
  }

  /** A labelled text field, or a choice when the values are known. */
  function field(id, labelText, values, initial, hint) {
    const wrap = el('div', 'field');
    const label = el('label', '', labelText);
    label.htmlFor = id;
    let input;
    if (Array.isArray(values) && values.length > 0) {
      input = el('select');
      if (initial === undefined) input.append(el('option', '', ''));
      for (const v of values) {
        const option = el('option', '', v);
        option.value = String(v);
        if (v === initial) option.selected = true;
        input.append(option);
      }
    } else {
      input = el('input');
      input.type = 'text';
      input.spellcheck = false;
      input.setAttribute('autocomplete', 'off');
      if (initial !== undefined) input.value = String(initial);
    }
    input.id = id;
    wrap.append(label, input);
    if (hint) wrap.append(el('span', 'hint', hint));
    return wrap;
  }

  function resourceCard(r) {
    const id = `resource-${r.name}`;
    const article = primitiveCard('resource', id, r.uri, r.title, r.description, r.mimeType);
    const form = tryForm('/api/resources/read', 'Read', []);
    form.setAttribute('data-uri', r.uri);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      post(form, '/api/resources/read', { uri: r.uri }, `Reading ${r.uri}…`, contentsText);
    });
    article.append(form);
    return article;
  }

  function templateCard(t) {
    const id = `template-${t.name}`;
    const article = primitiveCard(
      'template',
      id,
      t.uriTemplate,
      t.title,
      t.description,
      t.mimeType,
    );
    const variables = Array.isArray(t.variables) ? t.variables.filter(isObject) : [];
    const fields = variables.map((v) =>
      field(`${id}-${v.name}`, `{${v.name}}`, v.enum, undefined, v.type),
    );
    const form = tryForm('/api/resources/read', 'Read', fields);
    form.setAttribute('data-uri-template', t.uriTemplate);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      // Each value fills one URI segment, percent-encoded as RFC 6570 simple expansion does.
      const uri = String(t.uriTemplate).replace(VARIABLE, (_m, name) => {
        const input = byId(`${id}-${name}`);
        return encodeURIComponent(input ? input.value : '');
      });
      post(form, '/api/resources/read', { uri }, `Reading ${uri}…`, contentsText);
    });
    article.append(form);
    return article;
  }

  function promptCard(p) {
    const id = `prompt-${p.name}`;
    const article = primitiveCard('prompt', id, p.name, p.title, p.description, '');
    const args = Array.isArray(p.arguments) ? p.arguments.filter(isObject) : [];
    const fields = args.map((a) =>
      field(
        `${id}-${a.name}`,
        `${a.name}${a.required ? ' (required)' : ''}`,
        a.enum,
        a.default,
        a.description,
      ),
    );
    const form = tryForm('/api/prompts/get', 'Get', fields);
    form.setAttribute('data-prompt', p.name);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      // An empty field is left out: the prompt's default applies, or the gateway says it is required.
      const values = {};
      for (const a of args) {
        const input = byId(`${id}-${a.name}`);
        if (input && input.value !== '') values[a.name] = input.value;
      }
      post(
        form,
        '/api/prompts/get',
        { name: p.name, arguments: values },
        `Getting ${p.name}…`,
        messagesText,
      );
    });
    article.append(form);
    return article;
  }

  function clearResourcesAndPrompts() {
    resourceList.replaceChildren();
    promptList.replaceChildren();
    resourceCount.textContent = '';
    promptCount.textContent = '';
    resourcesSection.hidden = true;
    promptsSection.hidden = true;
  }

  /** The sections appear when the gateway serves resources, or prompts (GET /api says so). */
  function showResourcesAndPrompts(listing) {
    clearResourcesAndPrompts();
    const named = (list, key) =>
      Array.isArray(list) ? list.filter((x) => isObject(x) && typeof x[key] === 'string') : [];
    if (Array.isArray(listing.resources)) {
      const resources = named(listing.resources, 'uri');
      const templates = named(listing.resourceTemplates, 'uriTemplate');
      resourceCount.textContent = String(resources.length + templates.length);
      resourceList.append(...resources.map(resourceCard), ...templates.map(templateCard));
      if (resources.length + templates.length === 0)
        resourceList.append(el('p', 'notice', 'This token may read no resource.'));
      resourcesSection.hidden = false;
    }
    if (Array.isArray(listing.prompts)) {
      const prompts = named(listing.prompts, 'name');
      promptCount.textContent = String(prompts.length);
      promptList.append(...prompts.map(promptCard));
      if (prompts.length === 0)
        promptList.append(el('p', 'notice', 'This token may get no prompt.'));
      promptsSection.hidden = false;
    }
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

  // --- The toolsets: the one this page shows, or links to each from the whole list. ---

  const toolsetsSection = byId('toolsets');
  const toolsetList = byId('toolset-list');
  const toolsetCount = byId('toolset-count');
  const toolsetDescribe = byId('toolset-describe');

  /** A toolset page's header, from the address at once; its `describe` once GET /api says it. */
  function showToolsetHeader() {
    if (!inToolset) return;
    byId('toolset-name').textContent = toolsetName;
    byId('toolset-id').hidden = false;
    byId('rest-listing').textContent = `GET ${listingPath}`;
    document.title = document.title.replace(/tool catalog$/, `toolset ${toolsetName}`);
  }

  function showToolset(toolset) {
    const text =
      isObject(toolset) && typeof toolset.description === 'string' ? toolset.description : '';
    toolsetDescribe.textContent = text;
    toolsetDescribe.hidden = text === '';
  }

  /** Links to each toolset's page, with its describe and MCP path; hidden without any. */
  function showToolsets(toolsets) {
    const listed = Array.isArray(toolsets)
      ? toolsets.filter((t) => isObject(t) && typeof t.name === 'string')
      : [];
    toolsetList.replaceChildren(
      ...listed.map((t) => {
        const li = el('li', 'toolset');
        const a = el('a');
        a.href = `/?toolset=${encodeURIComponent(t.name)}`;
        a.append(el('code', '', t.name));
        li.append(a);
        if (typeof t.path === 'string') li.append(' ', el('code', 'toolset-path', t.path));
        if (typeof t.description === 'string') li.append(el('p', 'prose', t.description));
        return li;
      }),
    );
    toolsetCount.textContent = listed.length > 0 ? String(listed.length) : '';
    toolsetsSection.hidden = listed.length === 0;
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

  /** The `{error: {code, message}}` of a refusal, each '' when the answer has none. */
  function refusalOf(text) {
    try {
      const parsed = JSON.parse(text);
      if (isObject(parsed) && isObject(parsed.error))
        return {
          code: typeof parsed.error.code === 'string' ? parsed.error.code : '',
          message: typeof parsed.error.message === 'string' ? parsed.error.message : '',
        };
    } catch {
      // Not JSON: nothing to add to the status.
    }
    return { code: '', message: '' };
  }

  function listingError(res, text, what) {
    const { message } = refusalOf(text);
    const lead =
      res.status === 401
        ? `The gateway did not accept this token (${httpLabel(res)})`
        : `The ${what} could not be listed (${httpLabel(res)})`;
    return lead + (message ? `: ${message}` : '.');
  }

  /**
   * GETs one of the gateway's lists (`/api`, `/api/approvals`) as `token` sees it, never an
   * answer cached for another token, and hands `show` the parsed answer when `holds` accepts
   * it. A refusal (then `refused` is true, and its HTTP status follows), an answer of
   * another shape or a failed request reaches `fail` as the sentence to show. `done` says
   * whether this answer is still the one the page waits for; a later one drops it.
   */
  function getListing({ path, token, what, holds, shape, done, fail, show }) {
    const headers = { accept: 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    fetch(path, {
      method: 'GET',
      headers,
      credentials: 'omit',
      cache: 'no-store',
      redirect: 'error',
    })
      .then((res) =>
        res.text().then((text) => {
          if (!done()) return;
          if (!res.ok) {
            fail(listingError(res, text, what), true, res.status);
            return;
          }
          let listing;
          try {
            listing = JSON.parse(text);
          } catch {
            listing = null;
          }
          if (!isObject(listing) || !holds(listing)) {
            fail(`The gateway answered GET ${path} with something other than ${shape}.`, false);
            return;
          }
          show(listing);
        }),
      )
      .catch((e) => {
        if (!done()) return;
        fail(`The ${what} could not be listed: ${errorText(e)}`, false);
      });
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

  // --- The approvals view: the calls waiting for a decision, from GET /api/approvals. ---

  const approvalsSection = byId('approvals');
  const approvalList = byId('approval-list');
  const approvalsStatus = byId('approvals-status');
  const approvalCount = byId('approval-count');
  const approvalOutcome = byId('approval-outcome');

  /** The approval the address names (`/approvals/<id>`), or '' on `/approvals`. */
  const namedApproval = (() => {
    const m = /^\/approvals\/([^/]+)\/?$/.exec(window.location.pathname);
    if (!m) return '';
    try {
      return decodeURIComponent(m[1]);
    } catch {
      return '';
    }
  })();

  function approvalsNotice(state, text) {
    approvalsStatus.className = `notice${state ? ` ${state}` : ''}`;
    approvalsStatus.textContent = text;
    approvalsStatus.hidden = text === '';
  }

  /** What the last decision came to; it stays while the list is refreshed under it. */
  function outcome(state, text) {
    approvalOutcome.className = `notice${state ? ` ${state}` : ''}`;
    approvalOutcome.textContent = text;
    approvalOutcome.hidden = text === '';
  }

  /** A moment as this browser's reader says it, the exact instant in its `datetime`. */
  function moment(iso) {
    const t = el('time');
    const date = new Date(iso);
    t.textContent = Number.isNaN(date.getTime()) ? String(iso) : date.toLocaleString();
    t.dateTime = String(iso);
    return t;
  }

  function approvalCard(a) {
    const id = `approval-${a.id}`;
    const article = el('article', 'tool approval');
    article.id = id;
    article.setAttribute('aria-labelledby', `${id}-name`);
    if (a.id === namedApproval) {
      article.classList.add('named');
      article.setAttribute('aria-current', 'true');
    }
    const header = el('header', 'tool-header');
    const h3 = el('h3');
    h3.id = `${id}-name`;
    h3.append(el('code', 'tool-name', a.tool));
    header.append(h3);
    const ul = el('ul', 'badges');
    ul.setAttribute('aria-label', 'Scope');
    const scope = el('li', 'badge badge-scope', a.scope);
    scope.title = 'Whoever holds this scope may decide.';
    ul.append(scope);
    header.append(ul);
    article.append(header);
    // Filled from the arguments the agent sent: text, whatever it spells.
    article.append(el('p', 'approval-message', a.message));

    const facts = el('dl', 'facts');
    const fact = (term, value) => {
      const dd = el('dd');
      dd.append(value);
      facts.append(el('dt', '', term), dd);
    };
    fact('Requested by', el('code', '', a.requested_by));
    fact('Requested', moment(a.requested_at));
    fact('Expires', moment(a.expires_at));
    article.append(facts);

    if (a.own === true) {
      // The gateway would refuse it (APPROVAL_OWN_CALL): no button that can only fail.
      article.append(el('p', 'own', 'Your own call: someone else must decide.'));
      return article;
    }
    const actions = el('div', 'actions');
    const approve = el('button', 'approve', 'Approve');
    const decline = el('button', 'decline', 'Decline');
    approve.type = 'button';
    decline.type = 'button';
    approve.addEventListener('click', () => decide(a, 'approve', [approve, decline]));
    decline.addEventListener('click', () => decide(a, 'decline', [approve, decline]));
    actions.append(approve, decline);
    article.append(actions);
    return article;
  }

  const DECIDED = {
    approve: (a) => `Approved ${a.tool}: the caller's repeat of the same call now runs it, once.`,
    decline: (a) => `Declined ${a.tool}: the caller's repeat of the call is refused.`,
  };

  /** POSTs the decision with the token, says what came of it, and lists the rest again. */
  function decide(a, decision, buttons) {
    const headers = { 'content-type': 'application/json', accept: 'application/json' };
    const token = currentToken();
    if (token) headers.authorization = `Bearer ${token}`;
    for (const b of buttons) b.disabled = true;
    outcome('pending', `${decision === 'approve' ? 'Approving' : 'Declining'} ${a.tool}…`);
    fetch('/api/approvals/' + encodeURIComponent(a.id), {
      method: 'POST',
      headers,
      body: JSON.stringify({ decision }),
      credentials: 'omit',
      cache: 'no-store',
      redirect: 'error',
    })
      .then((res) =>
        res.text().then((text) => {
          if (res.ok) {
            outcome('ok', DECIDED[decision](a));
            return;
          }
          const { code, message } = refusalOf(text);
          const said = [code, message].filter((x) => x).join(': ');
          outcome('error', `Not ${decision}d (${httpLabel(res)})${said ? `: ${said}` : '.'}`);
        }),
      )
      .catch((e) => outcome('error', `The decision did not reach the gateway: ${errorText(e)}`))
      .then(() => loadApprovals(true));
  }

  function showApprovals(approvals) {
    approvalList.replaceChildren(...approvals.map(approvalCard));
    approvalCount.textContent = String(approvals.length);
    let note = approvals.length === 0 ? 'No call waits for a decision this token may take.' : '';
    if (namedApproval && !approvals.some((a) => a.id === namedApproval))
      note =
        'The approval this address names is not waiting for this token: it was decided, it expired, or it needs a scope this token lacks.' +
        (approvals.length > 0 ? ' Others are listed below.' : '');
    approvalsNotice('', note);
    const named = approvalList.querySelector('.approval.named');
    if (named) named.scrollIntoView({ block: 'nearest' });
  }

  // The token of the approvals asked for last; an older answer is dropped.
  const askedApprovals = { seq: 0, token: null, pending: false, shownFor: null };

  // As loadTools, for GET /api/approvals: again only when asked to.
  function loadApprovals(again) {
    const token = currentToken();
    if (token === askedApprovals.token && (askedApprovals.pending || !again)) return;
    const seq = ++askedApprovals.seq;
    askedApprovals.token = token;
    if (token !== askedApprovals.shownFor) {
      approvalList.replaceChildren();
      approvalCount.textContent = '';
    }
    if (tokenInput && !token) {
      askedApprovals.pending = false;
      askedApprovals.shownFor = token;
      approvalsNotice('', APPROVALS_HINT);
      return;
    }
    if (!tokenInput) return; // no access: the page already says why nothing can wait
    askedApprovals.pending = true;
    approvalList.setAttribute('aria-busy', 'true');
    const done = () => {
      if (seq !== askedApprovals.seq) return false;
      askedApprovals.pending = false;
      askedApprovals.shownFor = token;
      approvalList.removeAttribute('aria-busy');
      return true;
    };
    getListing({
      path: '/api/approvals',
      token,
      what: 'approvals',
      holds: (listing) => Array.isArray(listing.approvals),
      shape: 'a list',
      done,
      fail: (text, refused) => {
        if (refused) {
          approvalList.replaceChildren();
          approvalCount.textContent = '';
        }
        approvalsNotice('error', text);
      },
      show: (listing) =>
        showApprovals(
          listing.approvals.filter(
            (a) => isObject(a) && typeof a.id === 'string' && typeof a.tool === 'string',
          ),
        ),
    });
  }

  /** What the token field's buttons and keys list in this view. */
  function loadView(again) {
    if (view === 'approvals') loadApprovals(again);
    else loadTools(again);
  }

  // The tabs, and in the approvals view the page's other sections out of the way.
  const tab = byId(view === 'approvals' ? 'view-approvals' : 'view-tools');
  if (tab) tab.setAttribute('aria-current', 'page');
  if (view === 'approvals') {
    document.title = document.title.replace(/tool catalog$/, 'approvals');
    byId('connect').hidden = true;
    byId('tools').hidden = true;
    approvalsSection.hidden = false;
    if (tokenInput) {
      byId('use-token').textContent = 'Show approvals';
      byId('token-hint').hidden = true;
      byId('token-hint-approvals').hidden = false;
      tokenInput.setAttribute('aria-describedby', 'token-hint-approvals');
    }
    const refresh = byId('refresh-approvals');
    // Without access nothing can wait, so there is nothing to refresh.
    refresh.hidden = !tokenInput;
    refresh.addEventListener('click', () => {
      outcome('', '');
      loadApprovals(true);
    });
    // A token kept from earlier in this tab lists its approvals straight away.
    if (!tokenInput || currentToken()) loadApprovals(true);
    else approvalsNotice('', APPROVALS_HINT);
    if (tokenInput && !currentToken()) tokenInput.focus();
  } else {
    showToolsetHeader();
    // Without access the page lists every tool at once; with access, a token kept from
    // earlier in this tab lists its tools straight away.
    if (!tokenInput || currentToken()) loadTools(true);
  }
})();
