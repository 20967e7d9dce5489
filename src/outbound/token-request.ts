/**
 * One request to an OAuth token endpoint (RFC 6749 §3.2), for every token the gateway
 * obtains to call an upstream: client credentials, token exchange, an authorization code
 * and a refresh of a connected account. The endpoint is somebody else's server and is
 * treated as hostile (docs/security.md, "Upstream credentials (client credentials and token exchange)"): its answer is read up to
 * MAX_TOKEN_ANSWER_BYTES within a deadline, a redirect is a refusal (never followed: the
 * client secret would go with it), anything but JSON is a refusal, and of a refusal only
 * the OAuth `error` code is kept (its description may quote what was sent).
 */
import { boundedText } from './bounded-text.js';
import type { Dispatcher } from 'undici';
import { USER_AGENT } from './exchange.js';

/** A token answer larger than this is refused unread. */
export const MAX_TOKEN_ANSWER_BYTES = 64 * 1024;
/** Longer tokens than this are refused: no real provider issues one. */
const MAX_TOKEN_CHARS = 16 * 1024;
/** The whole exchange with the token endpoint, unless the caller says otherwise. */
export const TOKEN_TIMEOUT_MS = 10_000;

/** The client the gateway is at the token endpoint: sent in HTTP Basic (RFC 6749 §2.3.1). */
export interface TokenClient {
  readonly id: string;
  readonly secret: string;
}

/** A token endpoint's successful answer, checked. */
export interface TokenAnswer {
  readonly accessToken: string;
  /** `expires_in`, in seconds, when the endpoint gave a positive number. */
  readonly expiresInS?: number;
  readonly refreshToken?: string;
  /** The granted scope, when the endpoint said (else what was asked). */
  readonly scope?: string;
  /** RFC 8693's `issued_token_type`, when present. */
  readonly issuedTokenType?: string;
}

export type TokenResult =
  | { readonly ok: true; readonly token: TokenAnswer }
  | {
      readonly ok: false;
      /** One sentence naming what failed, safe to show: never a value sent or received. */
      readonly reason: string;
      /** The endpoint's OAuth `error` code, when it answered one (`invalid_grant`). */
      readonly oauthError?: string;
      /** The endpoint's HTTP status, when it answered. */
      readonly status?: number;
    };

export interface TokenRequestOptions {
  readonly timeoutMs?: number;
  /** The dispatcher to send through (an upstream's proxy or TLS settings); the global one if absent. */
  readonly dispatcher?: Dispatcher;
}

/** RFC 6749 §2.3.1: id and secret are form-encoded before they are joined and base64-encoded. */
export function basicAuthorization(client: TokenClient): string {
  const form = (v: string): string => encodeURIComponent(v).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${form(client.id)}:${form(client.secret)}`).toString('base64')}`;
}

const OAUTH_ERROR = /^[\w.-]{1,64}$/;

/** POSTs `form` to `url` as `client` and reads the answer as a token, or says why not. */
export async function requestToken(
  url: string,
  form: Readonly<Record<string, string>>,
  client: TokenClient,
  options: TokenRequestOptions = {},
): Promise<TokenResult> {
  const where = new URL(url).origin;
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs ?? TOKEN_TIMEOUT_MS),
      headers: {
        authorization: basicAuthorization(client),
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        'user-agent': USER_AGENT,
      },
      body: new URLSearchParams(form).toString(),
      ...(options.dispatcher && { dispatcher: options.dispatcher }),
    } as RequestInit);
  } catch (err) {
    const timedOut = (err as Error).name === 'TimeoutError';
    return {
      ok: false,
      reason: timedOut
        ? `the token endpoint at ${where} did not answer within ${options.timeoutMs ?? TOKEN_TIMEOUT_MS} ms`
        : `the token endpoint at ${where} could not be reached`,
    };
  }
  const status = res.status;
  if (status >= 300 && status < 400) {
    await res.body?.cancel();
    return {
      ok: false,
      status,
      reason: `the token endpoint at ${where} answered a redirect (HTTP ${status}), which the gateway does not follow`,
    };
  }
  const type = res.headers.get('content-type') ?? '';
  const json = /^application\/([\w.+-]*\+)?json\b/i.test(type.trim());
  const text = json
    ? await boundedText(res, MAX_TOKEN_ANSWER_BYTES)
    : (await res.body?.cancel(), undefined);
  let answer: Record<string, unknown> | undefined;
  if (text !== undefined) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
        answer = parsed as Record<string, unknown>;
    } catch {
      answer = undefined;
    }
  }
  if (status !== 200) {
    const code = answer?.error;
    const oauthError = typeof code === 'string' && OAUTH_ERROR.test(code) ? code : undefined;
    return {
      ok: false,
      status,
      ...(oauthError !== undefined && { oauthError }),
      reason: `the token endpoint at ${where} refused with HTTP ${status}${oauthError ? ` (${oauthError})` : ''}`,
    };
  }
  if (!json)
    return {
      ok: false,
      status,
      reason: `the token endpoint at ${where} answered ${type ? `"${type.split(';')[0]!.slice(0, 64)}"` : 'no content type'}, not JSON`,
    };
  if (text === undefined)
    return {
      ok: false,
      status,
      reason: `the token endpoint at ${where} answered more than ${MAX_TOKEN_ANSWER_BYTES} bytes`,
    };
  if (!answer)
    return { ok: false, status, reason: `the token endpoint at ${where} answered no JSON object` };
  return checkedToken(answer, where, status);
}

function checkedToken(answer: Record<string, unknown>, where: string, status: number): TokenResult {
  const token = answer.access_token;
  if (
    typeof token !== 'string' ||
    token === '' ||
    token.length > MAX_TOKEN_CHARS ||
    !/^[\x21-\x7e]+$/.test(token)
  )
    return {
      ok: false,
      status,
      reason: `the token endpoint at ${where} answered without a usable access_token`,
    };
  const type = answer.token_type;
  // RFC 8693 §2.2.1: "N_A" when the issued token is not an access token; the gateway only
  // sends a token as a Bearer credential, which both mean here.
  if (typeof type !== 'string' || !/^(bearer|n_a)$/i.test(type))
    return {
      ok: false,
      status,
      reason: `the token endpoint at ${where} answered a token of type ${typeof type === 'string' ? JSON.stringify(type.slice(0, 32)) : 'none'}, not Bearer`,
    };
  const expires = answer.expires_in;
  const expiresInS =
    typeof expires === 'number' && Number.isFinite(expires) && expires > 0
      ? expires
      : typeof expires === 'string' && /^\d{1,9}$/.test(expires) && Number(expires) > 0
        ? Number(expires)
        : undefined;
  const refresh = answer.refresh_token;
  const scope = answer.scope;
  const issued = answer.issued_token_type;
  return {
    ok: true,
    token: {
      accessToken: token,
      ...(expiresInS !== undefined && { expiresInS }),
      ...(typeof refresh === 'string' &&
        refresh !== '' &&
        refresh.length <= MAX_TOKEN_CHARS && { refreshToken: refresh }),
      ...(typeof scope === 'string' && scope.length <= 4096 && { scope }),
      ...(typeof issued === 'string' && issued.length <= 256 && { issuedTokenType: issued }),
    },
  };
}
