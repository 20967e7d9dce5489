/**
 * The catalog page's script, served as /catalog.js. Plain browser JavaScript kept as a
 * string: no build step, no framework, nothing loaded from elsewhere. It fills in the
 * MCP URL, copies it, keeps the bearer token in sessionStorage, and turns each try-it
 * form into a `fetch` POST to /api/<tool> whose status and envelope it shows.
 *
 * With access on, the part in catalog-tools-script.ts lists the caller's tools.
 */
import { BADGES, EXAMPLE_MAX_DEPTH, FORMAT_EXAMPLES } from './catalog-shared.js';
import { CATALOG_TOOLS_SCRIPT } from './catalog-tools-script.js';

export const CATALOG_SCRIPT = String.raw`'use strict';
(function () {
  var TOKEN_KEY = 'mcp-beaver:bearer-token';
  var BADGES = ${JSON.stringify(BADGES)};
  var FORMAT_EXAMPLES = ${JSON.stringify(FORMAT_EXAMPLES)};
  var EXAMPLE_MAX_DEPTH = ${EXAMPLE_MAX_DEPTH};
  var TOOLS_HINT = 'Tools appear once a token is entered: each token sees the tools its scopes allow.';
  var body = document.body;

  function byId(id) {
    return document.getElementById(id);
  }

  function storage() {
    try {
      return window.sessionStorage;
    } catch (e) {
      return null;
    }
  }

  // The MCP URL as this browser reaches the gateway (right behind a proxy too).
  var mcpInput = byId('mcp-url');
  var copyStatus = byId('copy-status');
  if (mcpInput) {
    mcpInput.value = window.location.origin + (body.getAttribute('data-mcp-path') || '/mcp');
    mcpInput.addEventListener('focus', function () {
      mcpInput.select();
    });
  }
  var copyButton = byId('copy-mcp-url');
  if (copyButton && mcpInput) {
    copyButton.addEventListener('click', function () {
      var text = mcpInput.value;
      function done(ok) {
        if (copyStatus) copyStatus.textContent = ok ? 'Copied.' : 'Select the URL and copy it.';
      }
      function fallback() {
        mcpInput.focus();
        mcpInput.select();
        var ok = false;
        try {
          ok = document.execCommand('copy');
        } catch (e) {
          ok = false;
        }
        done(ok);
      }
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(function () {
          done(true);
        }, fallback);
      } else {
        fallback();
      }
    });
  }

  // The bearer token: this tab only, never in the URL.
  var tokenInput = byId('bearer-token');
  var store = storage();
  if (tokenInput) {
    if (store) tokenInput.value = store.getItem(TOKEN_KEY) || '';
    tokenInput.addEventListener('input', function () {
      if (!store) return;
      var value = tokenInput.value.trim();
      if (value) store.setItem(TOKEN_KEY, value);
      else store.removeItem(TOKEN_KEY);
    });
    // A token is taken on Enter, on leaving the field changed, or with the button.
    tokenInput.addEventListener('change', function () {
      loadTools(false);
    });
    tokenInput.addEventListener('keydown', function (event) {
      if (event.key === 'Enter') {
        event.preventDefault();
        loadTools(true);
      }
    });
    var useToken = byId('use-token');
    if (useToken) {
      useToken.addEventListener('click', function () {
        loadTools(true);
      });
    }
    var forget = byId('forget-token');
    if (forget) {
      forget.addEventListener('click', function () {
        tokenInput.value = '';
        if (store) store.removeItem(TOKEN_KEY);
        loadTools(true);
        tokenInput.focus();
      });
    }
  }

  function show(form, state, statusText, bodyText) {
    var status = form.querySelector('.call-status');
    var pre = form.querySelector('.envelope');
    var code = pre.querySelector('code');
    status.textContent = statusText;
    status.className = 'call-status ' + state;
    pre.className = 'envelope ' + state;
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
    } catch (e) {
      return text;
    }
  }

  function call(form) {
    var tool = form.getAttribute('data-tool');
    var textarea = form.querySelector('textarea');
    var button = form.querySelector('button[type="submit"]');
    var raw = textarea.value.trim() === '' ? '{}' : textarea.value;
    var args;
    try {
      args = JSON.parse(raw);
    } catch (e) {
      show(form, 'error', 'The arguments are not valid JSON: ' + e.message, null);
      textarea.focus();
      return;
    }
    if (args === null || typeof args !== 'object' || Array.isArray(args)) {
      show(form, 'error', 'The arguments must be a JSON object.', null);
      textarea.focus();
      return;
    }
    var headers = { 'content-type': 'application/json', accept: 'application/json' };
    var token = tokenInput ? tokenInput.value.trim() : '';
    if (token) headers.authorization = 'Bearer ' + token;
    button.disabled = true;
    form.setAttribute('aria-busy', 'true');
    show(form, 'pending', 'Calling ' + tool + '…', null);
    var started = Date.now();
    fetch('/api/' + encodeURIComponent(tool), {
      method: 'POST',
      headers: headers,
      body: JSON.stringify(args),
      credentials: 'omit',
      cache: 'no-store',
      redirect: 'error',
    })
      .then(function (res) {
        return res.text().then(function (text) {
          var ms = Date.now() - started;
          var label = 'HTTP ' + res.status + (res.statusText ? ' ' + res.statusText : '');
          show(form, res.ok ? 'ok' : 'error', label + ' · ' + ms + ' ms', pretty(text));
        });
      })
      .catch(function (e) {
        show(form, 'error', 'The call did not complete: ' + (e && e.message ? e.message : e), null);
      })
      .then(function () {
        button.disabled = false;
        form.removeAttribute('aria-busy');
      });
  }

  function wire(form) {
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      call(form);
    });
    var textarea = form.querySelector('textarea');
    textarea.addEventListener('input', function () {
      // A complaint about the text just replaced no longer applies.
      var pre = form.querySelector('.envelope');
      var status = form.querySelector('.call-status');
      if (pre.hidden && status.className.indexOf('error') >= 0) show(form, '', '', null);
    });
    textarea.addEventListener('keydown', function (event) {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        call(form);
      }
    });
  }

  var forms = document.querySelectorAll('form.try');
  for (var i = 0; i < forms.length; i++) wire(forms[i]);

${CATALOG_TOOLS_SCRIPT}})();
`;
