/**
 * GET of one of the gateway's lists, for both views (`/api` for the tools, `/api/approvals`
 * for the approvals), and the sentence a refusal is shown as.
 */
/* global errorText, httpLabel, isObject */
/* exported getListing, refusalOf */

/** The `{error: {code, message}}` of a refusal, each '' when the answer has none. */
function refusalOf(text) {
  try {
    const parsed = JSON.parse(text);
    if (isObject(parsed) && isObject(parsed.error))
      return {
        code: typeof parsed.error.code === 'string' ? parsed.error.code : '',
        message: typeof parsed.error.message === 'string' ? parsed.error.message : '',
      };
  } catch {
    // Not JSON: nothing to add to the status.
  }
  return { code: '', message: '' };
}

function listingError(res, text, what) {
  const { message } = refusalOf(text);
  const lead =
    res.status === 401
      ? `The gateway did not accept this token (${httpLabel(res)})`
      : `The ${what} could not be listed (${httpLabel(res)})`;
  return lead + (message ? `: ${message}` : '.');
}

/**
 * GETs one of the gateway's lists (`/api`, `/api/approvals`) as `token` sees it (or, with
 * `credentials` 'same-origin' and no token, as the signed-in person does), never an
 * answer cached for another token, and hands `show` the parsed answer when `holds` accepts
 * it. A refusal (then `refused` is true, and its HTTP status follows), an answer of
 * another shape or a failed request reaches `fail` as the sentence to show. `done` says
 * whether this answer is still the one the page waits for; a later one drops it.
 */
function getListing({ path, token, credentials, what, holds, shape, done, fail, show }) {
  const headers = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  fetch(path, {
    method: 'GET',
    headers,
    credentials: credentials || 'omit',
    cache: 'no-store',
    redirect: 'error',
  })
    .then((res) =>
      res.text().then((text) => {
        if (!done()) return;
        if (!res.ok) {
          fail(listingError(res, text, what), true, res.status);
          return;
        }
        let listing;
        try {
          listing = JSON.parse(text);
        } catch {
          listing = null;
        }
        if (!isObject(listing) || !holds(listing)) {
          fail(`The gateway answered GET ${path} with something other than ${shape}.`, false);
          return;
        }
        show(listing);
      }),
    )
    .catch((e) => {
      if (!done()) return;
      fail(`The ${what} could not be listed: ${errorText(e)}`, false);
    });
}
