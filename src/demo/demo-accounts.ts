/**
 * The demo's "connect your account" (`auth user`, spec-language.md "On whose behalf
 * (upstream identity)"), with nothing outside 127.0.0.1: a small OAuth 2 authorization
 * server on the demo API's own port (`/oauth/authorize`, `/oauth/token`: authorization
 * code with PKCE S256, refresh tokens that rotate) and the one endpoint it guards,
 * `/api/me/tickets`: the tickets the connected person filed. The person is chosen on the
 * authorize page from the seed data's requesters; there is no password — it is a demo.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Ticket } from './demo-data.js';

export interface DemoAccountsOptions {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly tickets: () => Iterable<Ticket>;
}

export interface DemoAccounts {
  /** Answers `/oauth/*` and `/api/me/*`; false for any other path. */
  handle(req: IncomingMessage, res: ServerResponse, url: URL, body: string): boolean;
}

interface Grant {
  readonly person: string;
  readonly redirectUri: string;
  readonly challenge: string;
  readonly expires: number;
}

const CODE_TTL_MS = 60_000;
const ACCESS_TTL_S = 3600;

export function demoAccounts(opts: DemoAccountsOptions): DemoAccounts {
  const codes = new Map<string, Grant>();
  const access = new Map<string, { person: string; expires: number }>();
  const refresh = new Map<string, string>();
  const random = (): string => randomBytes(24).toString('base64url');
  const people = (): string[] =>
    [...new Set([...opts.tickets()].map((t) => t.requester.name))].sort();

  function issue(res: ServerResponse, person: string): void {
    const token = random();
    const renew = random();
    access.set(token, { person, expires: Date.now() + ACCESS_TTL_S * 1000 });
    refresh.set(renew, person);
    json(res, 200, {
      access_token: token,
      token_type: 'Bearer',
      expires_in: ACCESS_TTL_S,
      refresh_token: renew,
      scope: 'tickets.mine',
    });
  }

  function clientOk(req: IncomingMessage): boolean {
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
    if (!basic) return false;
    const [id, secret] = Buffer.from(basic[1]!, 'base64').toString('utf8').split(':');
    const given = Buffer.from(
      `${decodeURIComponent(id ?? '')}:${decodeURIComponent(secret ?? '')}`,
    );
    const expected = Buffer.from(`${opts.clientId}:${opts.clientSecret}`);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  function authorize(req: IncomingMessage, res: ServerResponse, url: URL, body: string): void {
    const q = req.method === 'POST' ? new URLSearchParams(body) : url.searchParams;
    const redirectUri = q.get('redirect_uri') ?? '';
    const challenge = q.get('code_challenge') ?? '';
    if (
      q.get('response_type') !== 'code' ||
      q.get('client_id') !== opts.clientId ||
      !/^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?\//.test(redirectUri) ||
      q.get('code_challenge_method') !== 'S256' ||
      challenge === ''
    )
      return page(res, 400, '<p>This is not an authorization request of the demo gateway.</p>');
    const person = q.get('person');
    if (req.method !== 'POST' || person === null || !people().includes(person)) {
      const hidden = [...q]
        .filter(([k]) => k !== 'person')
        .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`)
        .join('');
      const buttons = people()
        .map((p) => `<button name="person" value="${esc(p)}">${esc(p)}</button>`)
        .join(' ');
      return page(
        res,
        200,
        `<h1>Demo helpdesk accounts</h1><p>The gateway asks to read your own tickets. Connect as:</p><form method="post" action="/oauth/authorize">${hidden}${buttons}</form>`,
      );
    }
    const code = random();
    codes.set(code, { person, redirectUri, challenge, expires: Date.now() + CODE_TTL_MS });
    const back = new URL(redirectUri);
    back.searchParams.set('code', code);
    const state = q.get('state');
    if (state !== null) back.searchParams.set('state', state);
    res.writeHead(303, { location: back.href }).end();
  }

  function token(req: IncomingMessage, res: ServerResponse, body: string): void {
    if (req.method !== 'POST') return json(res, 405, { error: 'invalid_request' });
    if (!clientOk(req)) return json(res, 401, { error: 'invalid_client' });
    const form = new URLSearchParams(body);
    if (form.get('grant_type') === 'refresh_token') {
      const given = form.get('refresh_token') ?? '';
      const person = refresh.get(given);
      if (person === undefined) return json(res, 400, { error: 'invalid_grant' });
      refresh.delete(given);
      return issue(res, person);
    }
    if (form.get('grant_type') !== 'authorization_code')
      return json(res, 400, { error: 'unsupported_grant_type' });
    const code = form.get('code') ?? '';
    const grant = codes.get(code);
    codes.delete(code);
    const verifier = form.get('code_verifier') ?? '';
    if (
      !grant ||
      grant.expires < Date.now() ||
      grant.redirectUri !== form.get('redirect_uri') ||
      createHash('sha256').update(verifier).digest('base64url') !== grant.challenge
    )
      return json(res, 400, { error: 'invalid_grant' });
    issue(res, grant.person);
  }

  function myTickets(req: IncomingMessage, res: ServerResponse, url: URL): void {
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const held = access.get(bearer);
    if (!held || held.expires < Date.now())
      return json(res, 401, { error: 'connect your demo account first' });
    if (url.pathname !== '/api/me/tickets' || req.method !== 'GET')
      return json(res, 404, { error: 'not found' });
    const items = [...opts.tickets()].filter((t) => t.requester.name === held.person);
    json(res, 200, { account: held.person, items });
  }

  return {
    handle(req, res, url, body) {
      if (url.pathname === '/oauth/authorize') authorize(req, res, url, body);
      else if (url.pathname === '/oauth/token') token(req, res, body);
      else if (url.pathname.startsWith('/api/me/')) myTickets(req, res, url);
      else return false;
      return true;
    },
  };
}

function esc(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

function page(res: ServerResponse, status: number, body: string): void {
  res
    .writeHead(status, {
      'content-type': 'text/html; charset=utf-8',
      // No form-action: the form's answer redirects to the gateway, on another port.
      'content-security-policy': "default-src 'none'",
    })
    .end(`<!doctype html><meta charset="utf-8"><title>Demo accounts</title>${body}`);
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
