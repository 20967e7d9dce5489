/**
 * The try-it form of every card (tool, resource, template, prompt): built here, posted here,
 * its status and answer shown here.
 */
/* global currentToken, el, errorText, httpLabel, isObject */
/* exported field, post, pretty, tryForm, wire */

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

/**
 * POSTs `payload` as the caller and shows the status and `shown(text)` of the answer; a
 * failure to reach the gateway is worded as of a `what` ("request", or "call" for a tool).
 */
function post(form, path, payload, pendingText, shown, what = 'request') {
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
    .catch((e) => show(form, 'error', `The ${what} did not complete: ${errorText(e)}`, null))
    .then(() => {
      button.disabled = false;
      form.removeAttribute('aria-busy');
    });
}

function call(form) {
  const tool = form.getAttribute('data-tool');
  const textarea = form.querySelector('textarea');
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
  post(form, '/api/' + encodeURIComponent(tool), args, `Calling ${tool}…`, pretty, 'call');
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
