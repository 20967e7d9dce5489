/**
 * The approvals view (`/approvals`, `/approvals/<id>`): the calls waiting for a decision,
 * from GET /api/approvals, and the decisions, POST /api/approvals/<id>.
 */
/* global byId, currentToken, el, errorText, getListing, httpLabel, isObject, pageCredentials */
/* global refusalOf, sessionActive, tokenInput, whoAsks */
/* exported APPROVALS_HINT, approvalsNotice, approvalsSection, loadApprovals, outcome */

const APPROVALS_HINT = sessionActive
  ? 'Approvals appear once you sign in or enter a token: each person or token sees those of the scopes it holds, and never decides its own calls.'
  : 'Approvals appear once a token is entered: each token sees those of the scopes it holds, and never decides its own calls.';

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

/**
 * POSTs the decision with the token (or, signed in with none, the session cookie), says
 * what came of it, and lists the rest again.
 */
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
    credentials: pageCredentials(),
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

// Who the approvals were asked for last (a token, or the signed-in person); an older
// answer is dropped.
const askedApprovals = { seq: 0, token: null, pending: false, shownFor: null };

// As loadTools, for GET /api/approvals: again only when asked to.
function loadApprovals(again) {
  const token = currentToken();
  const who = whoAsks();
  if (who === askedApprovals.token && (askedApprovals.pending || !again)) return;
  const seq = ++askedApprovals.seq;
  askedApprovals.token = who;
  if (who !== askedApprovals.shownFor) {
    approvalList.replaceChildren();
    approvalCount.textContent = '';
  }
  if (tokenInput && !who) {
    askedApprovals.pending = false;
    askedApprovals.shownFor = who;
    approvalsNotice('', APPROVALS_HINT);
    return;
  }
  if (!tokenInput) return; // no access: the page already says why nothing can wait
  askedApprovals.pending = true;
  approvalList.setAttribute('aria-busy', 'true');
  const done = () => {
    if (seq !== askedApprovals.seq) return false;
    askedApprovals.pending = false;
    askedApprovals.shownFor = who;
    approvalList.removeAttribute('aria-busy');
    return true;
  };
  getListing({
    path: '/api/approvals',
    token,
    credentials: pageCredentials(),
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
