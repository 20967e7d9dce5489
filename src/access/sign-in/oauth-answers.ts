/**
 * How the authorization server answers (spec-language.md, "Sign-in for MCP clients"): RFC 6749 errors, not the gateway's envelope —
 * JSON at the back channel (section 5.2), a redirect to the client's checked redirect URI
 * at the front channel (section 4.1.2.1), and a page of the gateway's own when the redirect
 * URI itself cannot be trusted (never an open redirect). A description names the parameter
 * at fault and never echoes its value.
 */
import type { FastifyReply } from 'fastify';

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'server_error'
  | 'temporarily_unavailable';

export interface OAuthRefusal {
  readonly error: OAuthErrorCode;
  readonly description: string;
}

export function refusal(error: OAuthErrorCode, description: string): OAuthRefusal {
  return { error, description };
}

/** What every answer of the authorization server carries: nothing in it is cached. */
export function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
}

/** A back-channel refusal: JSON, status by error (401 for a client that is not known). */
export function sendOAuthError(reply: FastifyReply, r: OAuthRefusal): FastifyReply {
  const status =
    r.error === 'invalid_client'
      ? 401
      : r.error === 'server_error'
        ? 500
        : r.error === 'temporarily_unavailable'
          ? 503
          : 400;
  return noStore(reply)
    .code(status)
    .type('application/json')
    .send({ error: r.error, error_description: r.description });
}

/** The client's redirect URI with `params` added (its own query kept). */
export function redirectWith(
  redirectUri: string,
  params: Record<string, string | undefined>,
): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url.href;
}

export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

/** The headers of every page: not framed (no clickjacked Approve), not cached, no referrer. */
export function pageHeaders(reply: FastifyReply): FastifyReply {
  return noStore(reply)
    .type('text/html; charset=utf-8')
    .header('x-frame-options', 'DENY')
    .header(
      'content-security-policy',
      "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
    )
    .header('referrer-policy', 'no-referrer')
    .header('x-content-type-options', 'nosniff');
}

export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;line-height:1.5}
code{background:#f3f3f3;padding:0 .25rem;word-break:break-all}button{font-size:1rem;padding:.5rem 1.25rem;margin-right:.5rem}</style>
</head><body>
<h1>${escapeHtml(title)}</h1>
${body}
</body></html>
`;
}

/** A refusal shown to the person: the client's redirect URI is not trusted, so nothing redirects. */
export function sendErrorPage(reply: FastifyReply, status: number, r: OAuthRefusal): FastifyReply {
  return pageHeaders(reply)
    .code(status)
    .send(
      page(
        'Sign-in refused',
        `<p>${escapeHtml(r.description)}</p><p>Error: <code>${escapeHtml(r.error)}</code></p>`,
      ),
    );
}
