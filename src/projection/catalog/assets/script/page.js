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
 * the arguments an agent sent, so they too are only ever text nodes. In its confirmation
 * view (`/confirm/<id>`) it shows the one confirmation the address names, to the caller
 * that made the call, and answers it with `POST /api/confirmations/<id>`. At `/?toolset=<name>`
 * it shows one toolset: its members from `GET /api?toolset=<name>`, its own MCP URL, its
 * name and `describe`; the whole list links every toolset `GET /api` names.
 *
 * One classic script (the page loads it with `defer`), kept as the files of this folder:
 * catalog-script.ts joins them, in the order they run (this one first, start.js last),
 * inside one function, so what a part declares is in scope for the parts after it. Each
 * part names what it takes from the others in a `global` comment and what it gives them in
 * an `exported` one; eslint holds each part to them.
 *
 * This part: what every view uses, the page's elements and what the address names.
 */
/* exported body, byId, el, errorText, has, httpLabel, inToolset, isObject, listingPath, storage */
/* exported toolsetName, view */

const body = document.body;
/**
 * The view the gateway served: the tools (`/`), the approvals (`/approvals…`) or one
 * confirmation (`/confirm/<id>`).
 */
const view = ((v) => (v === 'approvals' || v === 'confirm' ? v : 'tools'))(
  body.getAttribute('data-view'),
);
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
