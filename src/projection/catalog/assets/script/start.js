/** Last: opens the view the gateway served, and lists what it shows. */
/* global APPROVALS_HINT, approvalsNotice, approvalsSection, byId, currentToken, loadApprovals */
/* global loadTools, outcome, showToolsetHeader, tokenInput, view */
/* exported loadView */

/** What the token field's buttons and keys list in this view. */
function loadView(again) {
  if (view === 'approvals') loadApprovals(again);
  else loadTools(again);
}

// The tabs, and in the approvals view the page's other sections out of the way.
const tab = byId(view === 'approvals' ? 'view-approvals' : 'view-tools');
if (tab) tab.setAttribute('aria-current', 'page');
if (view === 'approvals') {
  document.title = document.title.replace(/tool catalog$/, 'approvals');
  byId('connect').hidden = true;
  byId('tools').hidden = true;
  approvalsSection.hidden = false;
  if (tokenInput) {
    byId('use-token').textContent = 'Show approvals';
    byId('token-hint').hidden = true;
    byId('token-hint-approvals').hidden = false;
    tokenInput.setAttribute('aria-describedby', 'token-hint-approvals');
  }
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
  if (tokenInput && !currentToken()) tokenInput.focus();
} else {
  showToolsetHeader();
  // Without access the page lists every tool at once; with access, a token kept from
  // earlier in this tab lists its tools straight away.
  if (!tokenInput || currentToken()) loadTools(true);
}
