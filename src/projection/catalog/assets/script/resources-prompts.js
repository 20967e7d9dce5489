/** The tools view's resource, template and prompt cards, from the same GET /api. */
/* global byId, el, field, isObject, post, pretty, tryForm */
/* exported clearResourcesAndPrompts, showResourcesAndPrompts */

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
  const article = primitiveCard('template', id, t.uriTemplate, t.title, t.description, t.mimeType);
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
    if (prompts.length === 0) promptList.append(el('p', 'notice', 'This token may get no prompt.'));
    promptsSection.hidden = false;
  }
}
