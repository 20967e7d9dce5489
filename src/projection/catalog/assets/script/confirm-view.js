/**
 * The confirmation view (`/confirm/<id>`): the one call the address names, waiting for its
 * own caller's user to say yes, from GET /api/confirmations/<id>, and the answer,
 * POST /api/confirmations/<id>. Only the caller that made the call may see or answer it:
 * with access, the page asks for that caller's key, as the approvals view does. The
 * message is filled from the arguments an agent sent, so it is only ever a text node.
 */
/* global byId, currentToken, el, errorText, httpLabel, isObject, pageCredentials, refusalOf */
/* global sessionActive, tokenInput, whoAsks */
/* exported CONFIRM_HINT, confirmationNotice, confirmationSection, loadConfirmation */

const CONFIRM_HINT = sessionActive
  ? 'Sign in, or enter the key of the caller that made this call: only that caller may see and answer its confirmation.'
  : 'Enter the key of the caller that made this call: only that caller may see and answer its confirmation.';

const confirmationSection = byId('confirmation');
const confirmationStatus = byId('confirmation-status');
const confirmationOutcome = byId('confirmation-outcome');
const confirmationCard = byId('confirmation-card');

/** The confirmation the address names (`/confirm/<id>`), or ''. */
const namedConfirmation = (() => {
  const m = /^\/confirm\/([^/]+)\/?$/.exec(window.location.pathname);
  if (!m) return '';
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return '';
  }
})();

function notice(node, state, text) {
  node.className = `notice${state ? ` ${state}` : ''}`;
  node.textContent = text;
  node.hidden = text === '';
}

function confirmationNotice(state, text) {
  notice(confirmationStatus, state, text);
}

const STATES = {
  pending: 'Waiting for your answer.',
  confirmed: 'Confirmed: the call runs once, when the client makes it again.',
  declined: 'Declined: the call will not run.',
  expired: 'Lapsed before it was answered: the call will not run unless it is made again.',
};

/** The confirmation as the gateway shows it, as a card of text nodes; buttons only while it waits. */
function showConfirmation(c) {
  const article = el('article', 'tool approval named');
  article.id = 'confirmation-call';
  article.setAttribute('aria-labelledby', 'confirmation-tool');
  const header = el('header', 'tool-header');
  const h3 = el('h3');
  const name = el('code', 'tool-name', c.tool);
  name.id = 'confirmation-tool';
  h3.append(name);
  header.append(h3);
  article.append(header);
  // Filled from the arguments the agent sent: text, whatever it spells.
  const message = el('p', 'approval-message', c.message);
  message.id = 'confirmation-message';
  article.append(message);

  const facts = el('dl', 'facts');
  const state = el('dd', '', STATES[c.status] || c.status);
  state.id = 'confirmation-state';
  const expires = el('time');
  expires.id = 'confirmation-expires';
  const date = new Date(c.expires_at);
  expires.textContent = Number.isNaN(date.getTime()) ? String(c.expires_at) : date.toLocaleString();
  expires.dateTime = String(c.expires_at);
  const expiresDd = el('dd');
  expiresDd.append(expires);
  facts.append(el('dt', '', 'Status'), state, el('dt', '', 'Expires'), expiresDd);
  article.append(facts);

  if (c.status === 'pending') {
    const actions = el('div', 'actions');
    const confirm = el('button', '', 'Confirm');
    const decline = el('button', 'decline', 'Decline');
    confirm.type = 'button';
    decline.type = 'button';
    confirm.addEventListener('click', () => answer('confirm', [confirm, decline]));
    decline.addEventListener('click', () => answer('decline', [confirm, decline]));
    actions.append(confirm, decline);
    article.append(actions);
  }
  confirmationCard.replaceChildren(article);
}

function hideConfirmation() {
  confirmationCard.replaceChildren();
}

/** The sentence a refusal of GET or POST is shown as. */
function refusalText(res, text, lead) {
  const { code, message } = refusalOf(text);
  if (res.status === 401) return `The gateway did not accept this key (${httpLabel(res)}).`;
  const said = [code, message].filter((x) => x).join(': ');
  return `${lead} (${httpLabel(res)})${said ? `: ${said}` : '.'}`;
}

/**
 * GET or POST of the named confirmation with the key in the field, or, signed in with
 * none, the session cookie.
 */
function confirmationRequest(method, body) {
  const headers = { accept: 'application/json' };
  const token = currentToken();
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  return fetch('/api/confirmations/' + encodeURIComponent(namedConfirmation), {
    method,
    headers,
    ...(body !== undefined && { body: JSON.stringify(body) }),
    credentials: pageCredentials(),
    cache: 'no-store',
    redirect: 'error',
  }).then((res) => res.text().then((text) => ({ res, text })));
}

// Who the confirmation was asked for last (a key, or the signed-in person); an older
// answer is dropped.
const askedConfirmation = { seq: 0, token: null, pending: false };

/**
 * The confirmation of the address as the key in the field sees it; as loadApprovals,
 * asked again for the same key only when `again` (a button, Enter, an answer given).
 */
function loadConfirmation(again) {
  const who = whoAsks();
  if (who === askedConfirmation.token && (askedConfirmation.pending || !again)) return;
  const seq = ++askedConfirmation.seq;
  askedConfirmation.token = who;
  askedConfirmation.pending = false;
  if (!namedConfirmation) {
    hideConfirmation();
    confirmationNotice('error', 'This address names no confirmation.');
    return;
  }
  if (tokenInput && !who) {
    hideConfirmation();
    confirmationNotice('', CONFIRM_HINT);
    return;
  }
  askedConfirmation.pending = true;
  const done = () => {
    if (seq !== askedConfirmation.seq) return false;
    askedConfirmation.pending = false;
    return true;
  };
  confirmationRequest('GET')
    .then(({ res, text }) => {
      if (!done()) return;
      let parsed;
      try {
        parsed = res.ok ? JSON.parse(text) : null;
      } catch {
        parsed = null;
      }
      if (!res.ok || !isObject(parsed) || !isObject(parsed.confirmation)) {
        hideConfirmation();
        confirmationNotice(
          'error',
          res.ok
            ? 'The gateway answered with something other than a confirmation.'
            : refusalText(res, text, 'The confirmation cannot be shown'),
        );
        return;
      }
      confirmationNotice('', '');
      showConfirmation(parsed.confirmation);
    })
    .catch((e) => {
      if (!done()) return;
      hideConfirmation();
      confirmationNotice('error', `The confirmation could not be asked for: ${errorText(e)}`);
    });
}

const ANSWERED = {
  confirm: 'Confirmed. The call runs once, when the client makes it again.',
  decline: 'Declined. The call will not run.',
};

/** POSTs the answer with the key, says what came of it, and shows the confirmation again. */
function answer(decision, buttons) {
  for (const b of buttons) b.disabled = true;
  notice(confirmationOutcome, 'pending', decision === 'confirm' ? 'Confirming…' : 'Declining…');
  confirmationRequest('POST', { decision })
    .then(({ res, text }) => {
      if (res.ok) notice(confirmationOutcome, 'ok', ANSWERED[decision]);
      else
        notice(
          confirmationOutcome,
          'error',
          refusalText(res, text, decision === 'confirm' ? 'Not confirmed' : 'Not declined'),
        );
    })
    .catch((e) =>
      notice(confirmationOutcome, 'error', `The answer did not reach the gateway: ${errorText(e)}`),
    )
    .then(() => loadConfirmation(true));
}
