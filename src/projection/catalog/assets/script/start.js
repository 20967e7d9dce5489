/** Last: opens the view the gateway served, and lists what it shows. */
/* global APPROVALS_HINT, approvalsNotice, approvalsSection, byId, checkSession, currentToken */
/* global loadApprovals, sessionActive */
/* global CONFIRM_HINT, confirmationNotice, confirmationSection, loadConfirmation */
/* global loadTools, outcome, showToolsetHeader, tokenInput, view */
/* global loadConnections */
/* exported loadView */

/** What the token field's buttons and keys list in this view. */
function loadView(again) {
  if (view === 'approvals') loadApprovals(again);
  else if (view === 'confirm') loadConfirmation(again);
  else {
    loadTools(again);
    void loadConnections();
  }
}

/** The page's other sections out of the way, and the token field said for this view. */
function openView(title, section, buttonText, hint) {
  document.title = document.title.replace(/tool catalog$/, title);
  byId('connect').hidden = true;
  byId('tools').hidden = true;
  section.hidden = false;
  if (tokenInput) {
    byId('use-token').textContent = buttonText;
    byId('token-hint').hidden = true;
    byId(hint).hidden = false;
    tokenInput.setAttribute('aria-describedby', hint);
  }
}

// The tabs, and in the approvals view the page's other sections out of the way.
const tab = byId(view === 'approvals' ? 'view-approvals' : view === 'tools' ? 'view-tools' : '');
if (tab) tab.setAttribute('aria-current', 'page');
if (view === 'approvals') {
  openView('approvals', approvalsSection, 'Show approvals', 'token-hint-approvals');
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
  if (tokenInput && !currentToken() && !sessionActive) tokenInput.focus();
} else if (view === 'confirm') {
  openView('confirmation', confirmationSection, 'Show confirmation', 'token-hint-confirm');
  // Without access a caller is known by its network address alone, so no key is asked;
  // with access, a key kept from earlier in this tab shows the confirmation straight away.
  if (!tokenInput || currentToken()) loadConfirmation(true);
  else confirmationNotice('', CONFIRM_HINT);
  if (tokenInput && !currentToken() && !sessionActive) tokenInput.focus();
} else {
  showToolsetHeader();
  // Without access the page lists every tool at once; with access, a token kept from
  // earlier in this tab lists its tools straight away.
  if (!tokenInput || currentToken()) {
    loadTools(true);
    void loadConnections();
  }
}
// A signed-in browser lists with its session once the gateway says who it is; a key in
// the field meanwhile keeps deciding (loadView asks again only for someone new).
if (sessionActive) void checkSession().then(() => loadView(false));
