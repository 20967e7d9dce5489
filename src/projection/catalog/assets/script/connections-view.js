/**
 * The Connected accounts panel of the tools view, with an `oauth-provider` in the spec:
 * the caller's own connections from GET /api/connections (provider, scopes, never a
 * token), a Connect link for each provider not connected (the gateway's connect page,
 * which signs the browser in as the caller and sends it to the provider), and a
 * Disconnect button, DELETE /api/connections/<provider>. Asked with the key in the field,
 * as the tools are; everything shown is text nodes.
 */
/* global byId, currentToken, el, errorText, httpLabel, isObject, view */
/* exported loadConnections */

const connectionsSection = byId('connections');
const connectionList = byId('connection-list');
const connectionsStatus = byId('connections-status');

function connectionsNotice(state, text) {
  connectionsStatus.className = `notice${state ? ` ${state}` : ''}`;
  connectionsStatus.textContent = text;
  connectionsStatus.hidden = text === '';
}

/** A link of this gateway only: the answer names its own connect page, nothing else. */
function sameOrigin(url) {
  try {
    return new URL(url, window.location.href).origin === window.location.origin;
  } catch {
    return false;
  }
}

function connectionRow(c) {
  const li = el('li', 'connection');
  li.append(el('strong', '', c.provider));
  if (c.connected) {
    const scopes =
      Array.isArray(c.scopes) && c.scopes.length > 0 ? `, scopes ${c.scopes.join(' ')}` : '';
    li.append(el('span', 'hint', ` connected${scopes} `));
    const button = el('button', '', 'Disconnect');
    button.type = 'button';
    button.addEventListener('click', () => void disconnect(String(c.provider)));
    li.append(button);
  } else {
    li.append(el('span', 'hint', ' not connected '));
    if (typeof c.connect_url === 'string' && sameOrigin(c.connect_url)) {
      const a = el('a', 'connect-link', 'Connect');
      a.href = c.connect_url;
      li.append(a);
    }
  }
  return li;
}

/** Asks the gateway again with the key in the field; hidden without one. */
async function loadConnections() {
  if (!connectionsSection || view !== 'tools') return;
  const token = currentToken();
  connectionsSection.hidden = token === '';
  if (!token) return;
  try {
    const res = await fetch('/api/connections', {
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      credentials: 'omit',
    });
    const data = await res.json().catch(() => null);
    if (!res.ok || !isObject(data) || !Array.isArray(data.connections)) {
      const message = isObject(data) && isObject(data.error) ? `: ${data.error.message}` : '';
      connectionsNotice('error', `${httpLabel(res)}${message}`);
      connectionList.replaceChildren();
      return;
    }
    connectionList.replaceChildren(...data.connections.filter(isObject).map(connectionRow));
    connectionsNotice('', '');
  } catch (e) {
    connectionsNotice('error', String(errorText(e)));
  }
}

async function disconnect(provider) {
  let said;
  try {
    const res = await fetch(`/api/connections/${encodeURIComponent(provider)}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${currentToken()}`, accept: 'application/json' },
      credentials: 'omit',
    });
    said = res.ok
      ? ['', `Disconnected ${provider}.`]
      : ['error', `${httpLabel(res)}: ${provider} was not disconnected`];
  } catch (e) {
    said = ['error', String(errorText(e))];
  }
  // The list first (it clears the notice), then what the removal came to.
  await loadConnections();
  connectionsNotice(said[0], said[1]);
}
