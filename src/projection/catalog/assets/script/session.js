/**
 * The browser session of the approvals and confirm views, with `sign-in` in the spec:
 * beside the key field, "Sign in with <provider>" (a link to /signin, which comes back to
 * this page), or once signed in "Signed in as <name>" and a Sign out button. Whether this
 * browser is signed in is asked of GET /api/session: the cookie is HttpOnly, so this
 * script never sees it. Signed in and with no key in the field, the views call their APIs
 * with the cookie (a same-origin fetch carries it, and sends the Origin the gateway checks
 * on a decision); a key in the field is sent as before, and wins. The tools view takes a
 * key only: a tool is never called on the cookie's word.
 */
/* global byId, currentToken, errorText, httpLabel, isObject, loadView, view */
/* exported checkSession, pageCredentials, sessionActive, whoAsks */

const sessionPanel = byId('session');
/** The provider's host with sign-in in the spec, else '' (the panel then stays hidden). */
const signInHost = sessionPanel ? sessionPanel.getAttribute('data-sign-in') || '' : '';
const sessionActive = signInHost !== '' && (view === 'approvals' || view === 'confirm');
const session = { signedIn: false, name: '' };

/** Who a view asks as: the key in the field, else the signed-in person, else '' (no one). */
function whoAsks() {
  const token = currentToken();
  if (token) return token;
  // A key can hold no control character, so this never equals one.
  return session.signedIn ? `\u0000session\u0000${session.name}` : '';
}

/** The `credentials` of a fetch to the pages' APIs: the cookie only when no key is sent. */
function pageCredentials() {
  return sessionActive && !currentToken() ? 'same-origin' : 'omit';
}

function sessionNotice(state, text) {
  const node = byId('session-status');
  node.className = `notice${state ? ` ${state}` : ''}`;
  node.textContent = text;
  node.hidden = text === '';
}

function showSession(signedIn, name) {
  session.signedIn = signedIn;
  session.name = signedIn ? name : '';
  byId('session-signed-out').hidden = signedIn;
  byId('session-signed-in').hidden = !signedIn;
  byId('session-name').textContent = session.name;
}

/** Asks the gateway who this browser is signed in as, and shows it; resolves either way. */
function checkSession() {
  if (!sessionActive) return Promise.resolve();
  return fetch('/api/session', {
    method: 'GET',
    headers: { accept: 'application/json' },
    credentials: 'same-origin',
    cache: 'no-store',
    redirect: 'error',
  })
    .then((res) =>
      res.text().then((text) => {
        let parsed;
        try {
          parsed = res.ok ? JSON.parse(text) : null;
        } catch {
          parsed = null;
        }
        if (!isObject(parsed)) {
          showSession(false, '');
          sessionNotice(
            'error',
            `Whether this browser is signed in is unknown (${httpLabel(res)}).`,
          );
          return;
        }
        sessionNotice('', '');
        const name = typeof parsed.name === 'string' ? parsed.name : '';
        showSession(parsed.signed_in === true && name !== '', name);
      }),
    )
    .catch((e) => {
      showSession(false, '');
      sessionNotice(
        'error',
        `Whether this browser is signed in could not be asked: ${errorText(e)}`,
      );
    });
}

if (sessionActive) {
  sessionPanel.hidden = false;
  // Back to this very page after the provider; the gateway accepts only its own paths.
  byId('sign-in').href = `/signin?return=${encodeURIComponent(window.location.pathname)}`;
  const signOut = byId('sign-out');
  signOut.addEventListener('click', () => {
    signOut.disabled = true;
    sessionNotice('pending', 'Signing out…');
    // The gateway answers with a redirect or with nothing: either way the cookie is gone.
    fetch('/signout', {
      method: 'POST',
      credentials: 'same-origin',
      cache: 'no-store',
      redirect: 'manual',
    })
      .then((res) =>
        res.ok || res.type === 'opaqueredirect' ? '' : `Not signed out (${httpLabel(res)}).`,
      )
      .catch((e) => `The sign-out did not reach the gateway: ${errorText(e)}`)
      // Said after the session is asked again, which clears what it said before.
      .then((failed) =>
        checkSession().then(() => {
          if (failed) sessionNotice('error', failed);
          signOut.disabled = false;
          loadView(true);
        }),
      );
  });
}
