/**
 * The part of /catalog.js for gateways with access: the page arrives without tools, and
 * this asks `GET /api` with the token for the tools it may call and builds their cards
 * (text nodes only, never markup from the spec), mirroring what catalog-page.ts renders
 * without access. It runs inside catalog-script.ts's function and uses its helpers.
 */
export const CATALOG_TOOLS_SCRIPT = String.raw`  // --- With access: the tools this token may call, from GET /api. ---

  var toolList = byId('tool-list');
  var toolsStatus = byId('tools-status');
  var toolCount = byId('tool-count');
  // The token of the listing asked for last; an older answer is dropped.
  var asked = { seq: 0, token: null, pending: false };

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function isObject(v) {
    return v !== null && typeof v === 'object' && !Array.isArray(v);
  }

  function has(o, key) {
    return Object.prototype.hasOwnProperty.call(o, key);
  }

  // A copy of exampleArguments in catalog-shared.ts: change both together.
  function exampleValue(schema, depth) {
    if (!isObject(schema)) return null;
    if (has(schema, 'default')) return schema['default'];
    if (has(schema, 'const')) return schema['const'];
    if (Array.isArray(schema['enum']) && schema['enum'].length > 0) return schema['enum'][0];
    var type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
    switch (type) {
      case 'object': {
        var out = {};
        var props = isObject(schema.properties) ? schema.properties : {};
        var required = Array.isArray(schema.required) ? schema.required : [];
        if (depth > EXAMPLE_MAX_DEPTH) return out;
        var names = Object.keys(props);
        for (var i = 0; i < names.length; i++) {
          var sub = props[names[i]];
          if (required.indexOf(names[i]) >= 0 || (isObject(sub) && has(sub, 'default')))
            out[names[i]] = exampleValue(sub, depth + 1);
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
    var v = exampleValue(schema, 0);
    return isObject(v) ? v : {};
  }

  function toolCard(t) {
    var name = String(t.name);
    var id = 'tool-' + name;
    var article = el('article', 'tool');
    article.id = id;
    article.setAttribute('aria-labelledby', id + '-name');

    var header = el('header', 'tool-header');
    var h3 = el('h3');
    h3.id = id + '-name';
    h3.appendChild(el('code', 'tool-name', name));
    h3.appendChild(document.createTextNode(' '));
    h3.appendChild(el('span', 'tool-title', t.title === undefined ? name : t.title));
    header.appendChild(h3);
    var annotations = isObject(t.annotations) ? t.annotations : {};
    var badges = el('ul', 'badges');
    badges.setAttribute('aria-label', 'Annotations');
    for (var i = 0; i < BADGES.length; i++) {
      var b = BADGES[i];
      if (!annotations[b.hint]) continue;
      var li = el('li', 'badge badge-' + b.kind, b.label);
      li.title = b.explain;
      badges.appendChild(li);
    }
    if (badges.childNodes.length > 0) header.appendChild(badges);
    article.appendChild(header);

    if (typeof t.description === 'string') article.appendChild(el('p', 'prose', t.description));

    var details = el('details', 'schema');
    details.appendChild(el('summary', '', 'Input schema'));
    var schemaPre = el('pre');
    schemaPre.appendChild(el('code', '', JSON.stringify(t.inputSchema, null, 2)));
    details.appendChild(schemaPre);
    article.appendChild(details);

    var form = el('form', 'try');
    form.method = 'post';
    form.action = '/api/' + encodeURIComponent(name);
    form.setAttribute('data-tool', name);
    var label = el('label', '', 'Try it: arguments (JSON)');
    label.htmlFor = id + '-args';
    form.appendChild(label);
    var example = JSON.stringify(exampleArguments(t.inputSchema), null, 2);
    var textarea = el('textarea');
    textarea.id = id + '-args';
    textarea.name = 'arguments';
    textarea.rows = Math.min(16, Math.max(3, example.split('\n').length + 1));
    textarea.spellcheck = false;
    textarea.setAttribute('autocomplete', 'off');
    textarea.value = example;
    form.appendChild(textarea);
    var actions = el('div', 'actions');
    var button = el('button', '', 'Call');
    button.type = 'submit';
    actions.appendChild(button);
    var status = el('span', 'call-status');
    status.setAttribute('role', 'status');
    status.setAttribute('aria-live', 'polite');
    actions.appendChild(status);
    form.appendChild(actions);
    var envelope = el('pre', 'envelope');
    envelope.hidden = true;
    envelope.appendChild(el('code'));
    form.appendChild(envelope);
    article.appendChild(form);
    wire(form);
    return article;
  }

  function toolsNotice(state, text) {
    if (!toolsStatus) return;
    toolsStatus.className = 'notice' + (state ? ' ' + state : '');
    toolsStatus.textContent = text;
    toolsStatus.hidden = text === '';
  }

  function clearTools() {
    if (toolList) toolList.replaceChildren();
    if (toolCount) toolCount.textContent = '';
  }

  function showTools(tools) {
    clearTools();
    if (toolCount) toolCount.textContent = String(tools.length);
    if (tools.length === 0) {
      toolsNotice('', 'This token may call no tool.');
      return;
    }
    toolsNotice('', '');
    if (tools.length > 1) {
      var nav = el('nav');
      nav.setAttribute('aria-label', 'Tools');
      var toc = el('ul', 'toc');
      for (var i = 0; i < tools.length; i++) {
        var a = el('a');
        a.href = '#tool-' + encodeURIComponent(String(tools[i].name));
        a.appendChild(el('code', '', tools[i].name));
        var li = el('li');
        li.appendChild(a);
        toc.appendChild(li);
      }
      nav.appendChild(toc);
      toolList.appendChild(nav);
    }
    for (var j = 0; j < tools.length; j++) toolList.appendChild(toolCard(tools[j]));
    // A link to one tool, followed before its card existed.
    var hash = window.location.hash;
    if (hash.length > 1) {
      var target = null;
      try {
        target = byId(decodeURIComponent(hash.slice(1)));
      } catch (e) {
        target = null;
      }
      if (target && toolList.contains(target)) target.scrollIntoView();
    }
  }

  function errorMessage(res, text) {
    var message = '';
    try {
      var parsed = JSON.parse(text);
      if (isObject(parsed) && isObject(parsed.error) && typeof parsed.error.message === 'string')
        message = parsed.error.message;
    } catch (e) {
      message = '';
    }
    var label = 'HTTP ' + res.status + (res.statusText ? ' ' + res.statusText : '');
    var lead =
      res.status === 401
        ? 'The gateway did not accept this token (' + label + ')'
        : 'The tools could not be listed (' + label + ')';
    return lead + (message ? ': ' + message : '.');
  }

  // Lists the tools of the token in the field; again only when asked to (again is
  // never while the same token's listing is on its way).
  function loadTools(again) {
    if (!toolList || !tokenInput) return;
    var token = tokenInput.value.trim();
    if (token === asked.token && (asked.pending || !again)) return;
    var seq = ++asked.seq;
    asked.token = token;
    clearTools();
    if (!token) {
      asked.pending = false;
      toolsNotice('', TOOLS_HINT);
      return;
    }
    asked.pending = true;
    toolsNotice('pending', 'Listing the tools this token may call…');
    toolList.setAttribute('aria-busy', 'true');
    function done() {
      if (seq !== asked.seq) return false;
      asked.pending = false;
      toolList.removeAttribute('aria-busy');
      return true;
    }
    fetch('/api', {
      method: 'GET',
      headers: { accept: 'application/json', authorization: 'Bearer ' + token },
      credentials: 'omit',
      // Each token sees its own list: never an answer cached for another.
      cache: 'no-store',
      redirect: 'error',
    })
      .then(function (res) {
        return res.text().then(function (text) {
          if (!done()) return;
          if (!res.ok) {
            toolsNotice('error', errorMessage(res, text));
            return;
          }
          var listing = null;
          try {
            listing = JSON.parse(text);
          } catch (e) {
            listing = null;
          }
          if (!isObject(listing) || !Array.isArray(listing.tools)) {
            toolsNotice('error', 'The gateway answered GET /api with something other than a tool list.');
            return;
          }
          showTools(listing.tools.filter(function (t) {
            return isObject(t) && typeof t.name === 'string';
          }));
        });
      })
      .catch(function (e) {
        if (!done()) return;
        toolsNotice('error', 'The tools could not be listed: ' + (e && e.message ? e.message : e));
      });
  }

  // A token kept from earlier in this tab lists its tools straight away.
  if (toolList && tokenInput && tokenInput.value.trim()) loadTools(true);
`;
