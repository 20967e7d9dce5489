/**
 * The gateway's own consent page, shown before the provider is involved (spec-language.md,
 * "Sign-in for MCP clients"): the gateway's
 * client at the provider is one static client for every MCP client, so without this page a
 * link crafted by anyone would ride a person's provider session into a code for a client
 * they never chose (the confused deputy of the MCP security guidance for proxies). The page
 * names the client, its `client_id`, the host the code goes to and what it asks for.
 *
 * The form carries a sealed `consent` value binding the checked request to this browser
 * (the round-trip cookie's value inside): a form posted from elsewhere, or with another
 * browser's value, opens nothing.
 */
import { redirectTarget } from './redirect-uri.js';
import type { SignInClient, AuthorizationRequest } from './sign-in-types.js';
import { escapeHtml, page } from './oauth-answers.js';
import { SIGN_IN_PATHS } from './sign-in-types.js';

/** Sealed as `consent`: the request the person is asked about, and the browser asked. */
export interface SealedConsent {
  readonly request: AuthorizationRequest;
  readonly browserBinding: string;
}

function shownClientId(client: SignInClient): string {
  if (client.kind === 'metadata-document') return client.clientId;
  // A sealed registration is long and says nothing to a person: its first characters
  // tell two registrations apart.
  return `${client.clientId.slice(0, 16)}… (registered with this gateway)`;
}

export function consentPage(p: {
  client: SignInClient;
  request: AuthorizationRequest;
  sealedConsent: string;
}): string {
  const host = redirectTarget(p.request.redirectUri);
  const scopes =
    p.request.scopes.length > 0
      ? `<ul>${p.request.scopes.map((s) => `<li><code>${escapeHtml(s)}</code></li>`).join('')}</ul>`
      : '<p>Every scope you hold at this gateway.</p>';
  return page(
    'Allow this client to use the gateway?',
    `<p><strong>${escapeHtml(p.client.name)}</strong> asks to act as you at
<code>${escapeHtml(p.request.resource)}</code>.</p>
<p>Client ID: <code>${escapeHtml(shownClientId(p.client))}</code><br>
It will receive the code at: <code>${escapeHtml(host)}</code></p>
<p>It asks for:</p>
${scopes}
<p>If you did not start this from a client you use, deny.</p>
<form method="post" action="${SIGN_IN_PATHS.consent}">
<input type="hidden" name="consent" value="${escapeHtml(p.sealedConsent)}">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );
}
