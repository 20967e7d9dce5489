/**
 * The Connect and Access panels: the MCP URL to copy, and the bearer token (with access
 * only) kept in this tab, which both views list and call with.
 */
/* global body, byId, inToolset, loadView, storage, toolsetName */
/* exported currentToken, tokenInput */

const TOKEN_KEY = 'mcp-beaver:bearer-token';

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
