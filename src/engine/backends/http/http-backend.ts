/**
 * HTTP grants on undici: one keep-alive Agent (a pool per origin) for the process,
 * a plan per grant prepared at boot, and per call a straight line: build the target,
 * assert it, send with the spec's headers and credential only, read within the
 * deadline and the byte cap, and hand back JSON or text (response-body.ts).
 */
import { Agent } from 'undici';
import type { HttpBackend } from '../../../compiler/descriptor.js';
import { engineError, type EngineError } from '../../error-catalogue.js';
import { composeRedactors, type Redactor } from '../../redact.js';
import {
  openIdentity,
  type CallCredential,
  type UpstreamIdentity,
} from '../upstream/upstream-identity.js';
import type { BackendKind, BackendOutcome, GrantOf, KindBackend, KindContext } from '../kind.js';
import type { CallArguments } from '../../call-arguments.js';
import type { CallContext } from '../../call-context.js';
import { buildBody, planBody } from './body.js';
import { resolveCredential, type Credential } from '../upstream/credentials.js';
import { decodeUtf8Prefix } from '../../../outbound/utf8-prefix.js';
import { buildTarget, planUrl, targetEscapes } from './url.js';
import { interpretBody } from './response-body.js';
import { upstreamStatusError } from '../upstream/upstream-errors.js';
import { CANCELLED, failureClass, type FailureClass } from '../../../outbound/failure-class.js';
import { EXCERPT_BYTES, exchange } from './http-exchange.js';
import { USER_AGENT } from '../../../outbound/exchange.js';
import { ADMITTED, ConnectionGate, type GateRefusal } from '../upstream/connection-gate.js';
import { readCapFor } from '../upstream/read-cap.js';
import { UNTRACED, type UpstreamLeg } from '../../../telemetry/client-span.js';

/** Connections per upstream origin unless the spec says `base-url … connections=N`. */
export const DEFAULT_UPSTREAM_CONNECTIONS = 256;

export async function createHttpKind({
  env,
  grants,
  spec,
  connections: accounts,
}: KindContext<'http'>): Promise<BackendKind<'http'>> {
  const connections = spec.upstreams[0]?.connections ?? DEFAULT_UPSTREAM_CONNECTIONS;
  const agent = new Agent({
    keepAliveTimeout: 10_000,
    connections,
    connect: { timeout: 5_000 },
  });
  // One gate per origin with as many slots as undici opens connections to it: a call
  // goes to undici only once a connection is its own, so undici's queue stays empty
  // and a call that cannot be served within its deadline is refused here, at once.
  const gates = new Map<string, ConnectionGate>();
  const gateFor = (origin: string): ConnectionGate => {
    let gate = gates.get(origin);
    if (!gate) gates.set(origin, (gate = new ConnectionGate(connections)));
    return gate;
  };
  const credentials = new Map<HttpBackend['auth'], Credential>();
  const secrets: string[] = [];
  const sent: string[] = [];
  // Resolve the credential once (every grant of a spec shares the same `auth`).
  for (const d of grants) {
    if (credentials.has(d.backend.auth)) continue;
    const c = resolveCredential(d.backend.auth, env);
    credentials.set(d.backend.auth, c);
    secrets.push(...c.secrets);
    sent.push(...c.sent);
  }
  // A credential obtained per call (auth user): one identity per `auth`, opened at boot.
  const identities = new Map<HttpBackend['auth'], UpstreamIdentity>();
  for (const d of grants) {
    const auth = d.backend.auth;
    if (auth?.kind !== 'user' || identities.has(auth)) continue;
    const identity = await openIdentity(auth, {
      env,
      upstream: d.backend.upstream || d.backend.baseUrl,
      ...(accounts && { connections: accounts }),
    });
    identities.set(auth, identity);
    secrets.push(...identity.secrets());
  }
  // Every grant of a spec has one of a few base URLs: each is parsed once.
  const bases = new Map<string, URL>();
  const baseOf = (baseUrl: string): URL => {
    let base = bases.get(baseUrl);
    if (!base) bases.set(baseUrl, (base = new URL(baseUrl)));
    return base;
  };
  return {
    prepare(d, redact) {
      const base = baseOf(d.backend.baseUrl);
      return prepareHttpGrant(
        d,
        credentials.get(d.backend.auth)!,
        agent,
        gateFor(base.origin),
        redact,
        base,
        identities.get(d.backend.auth),
      );
    },
    secrets: () => secrets,
    sentValues: () => sent,
    close: () => agent.close(),
  };
}

function prepareHttpGrant(
  d: GrantOf<'http'>,
  credential: Credential,
  agent: Agent,
  gate: ConnectionGate,
  redact: Redactor,
  base: URL,
  identity?: UpstreamIdentity,
): KindBackend {
  const backend: HttpBackend = d.backend;
  const url = planUrl(backend, d.arguments, credential.query, base);
  const body = planBody(backend, d.arguments);
  const hasAccept = backend.headers.some(([k]) => k.toLowerCase() === 'accept');
  const headers: Record<string, string> = Object.freeze({
    'user-agent': USER_AGENT,
    'accept-encoding': 'identity',
    ...(hasAccept ? {} : { accept: 'application/json, text/plain;q=0.9, */*;q=0.5' }),
    ...Object.fromEntries(backend.headers.map(([k, v]) => [k.toLowerCase(), v])),
    ...Object.fromEntries(credential.headers),
  });
  const readCap = readCapFor(d.limits.maxBytes);
  const timeoutMs = backend.timeoutMs;
  const shaped = d.shape !== undefined;

  /**
   * One request upstream. `extra` is a credential obtained for this call (auth user), sent
   * besides the planned headers; `redactWith` knows its token too.
   */
  const send = async (
    args: CallArguments,
    ctx: CallContext,
    leg: UpstreamLeg,
    extra: CallCredential | undefined,
    redactWith: Redactor,
  ): Promise<BackendOutcome> => {
    const redact = redactWith;
    const target = buildTarget(url, args.value);
    const escaped = targetEscapes(url, target);
    if (escaped)
      return { ok: false, error: engineError('INTERNAL', `refused to send: ${escaped}`) };
    const payload = body ? buildBody(body, args) : undefined;
    if (payload && 'refused' in payload)
      return { ok: false, error: engineError('INVALID_ARGUMENTS', payload.refused) };

    // The deadline covers the wait for a connection too: a call that waited starts
    // with what is left of it.
    const arrived = performance.now();
    let entry = gate.enter({ budgetMs: timeoutMs, mustFinish: true, cancel: ctx.cancel });
    if (entry instanceof Promise) entry = await leg.wait(entry);
    if (entry !== ADMITTED) return { ok: false, error: refusalError(entry, timeoutMs) };

    // With telemetry on the upstream request is a client span of its own, and the
    // traceparent sent names it; off, the child id the projection made goes.
    const sent = leg.send();
    const traceparent = sent ? sent.traceparent : ctx.traceparent;
    const tracestate = sent?.tracestate;
    const { baggage } = ctx;
    const reqHeaders = payload || traceparent || baggage || extra ? { ...headers } : headers;
    if (extra) for (const [k, v] of extra.headers) reqHeaders[k] = v;
    if (payload) reqHeaders['content-type'] = payload.contentType;
    if (traceparent) reqHeaders.traceparent = traceparent;
    if (tracestate) reqHeaders.tracestate = tracestate;
    if (baggage) reqHeaders.baggage = baggage;
    const leftMs = Math.max(1, timeoutMs - (performance.now() - arrived));
    const deadline = arrived + timeoutMs;
    // When the request really goes on the wire (seconds after its slot, on a busy
    // loop): the service time counts from there, and a call that can no longer
    // finish in time is not sent.
    let sentAt: number | undefined;
    const mayStart = (): boolean => {
      if (!gate.mayStart(deadline, timeoutMs)) return false;
      sentAt = performance.now();
      return true;
    };
    const read = await exchange(
      agent,
      {
        origin: url.origin,
        path: target,
        method: backend.method,
        headers: reqHeaders,
        ...(payload && { body: payload.payload }),
        headersTimeout: leftMs,
        bodyTimeout: leftMs,
      },
      readCap,
      leftMs,
      ctx.cancel,
      mayStart,
      // The connection goes back on every path. A call its caller cancelled, or that
      // never went out, says nothing about how fast the upstream serves.
    ).finally(() =>
      gate.leave(
        ctx.cancel?.cancelled || sentAt === undefined ? undefined : performance.now() - sentAt,
      ),
    );
    let out: BackendOutcome;
    switch (read.kind) {
      case 'unsent':
        out = { ok: false, error: lateStartError(gate.refusal(), timeoutMs) };
        break;
      case 'failed':
        out = { ok: false, error: failure(failureClass(read, ctx.cancel), timeoutMs) };
        break;
      case 'status': {
        // A shaped grant's error quotes nothing of the body: it may hold omitted fields.
        if (shaped) {
          out = { ok: false, error: upstreamStatusError(read.status) };
          break;
        }
        // An excerpt at the cap may end inside a spelling of a secret: cutText.
        const text = decodeUtf8Prefix(read.excerpt);
        const clean =
          read.excerpt.length >= EXCERPT_BYTES ? redact.cutText(text) : redact.text(text);
        out = { ok: false, error: upstreamStatusError(read.status, clean) };
        break;
      }
      case 'encoded':
        out = {
          ok: false,
          error: engineError(
            'UPSTREAM_BAD_RESPONSE',
            `upstream sent a ${read.encoding}-encoded body although the gateway asked for identity`,
          ),
        };
        break;
      default: {
        const body = interpretBody(read, readCap, redact, shaped);
        out = body.ok
          ? // Object.assign, not a spread and a property: on Node 20 that literal falls off
            // V8's fast clone and cost microseconds a call (bench/RESULTS.md, issue 40).
            { ok: true, value: Object.assign({}, body.value, { upstreamStatus: read.status }) }
          : body;
      }
    }
    if (read.kind === 'status' || read.kind === 'body') leg.answered(read.status);
    return out;
  };
  if (!identity)
    return {
      invoke: (args: CallArguments, ctx: CallContext, leg: UpstreamLeg = UNTRACED) =>
        send(args, ctx, leg, undefined, redact),
    };
  // Each token's redactor joined with the gateway's, made once per token.
  const joined = new WeakMap<Redactor, Redactor>();
  const redactorOf = (c: CallCredential): Redactor => {
    if (!c.redact) return redact;
    let r = joined.get(c.redact);
    if (!r) joined.set(c.redact, (r = composeRedactors([redact, c.redact])));
    return r;
  };
  return {
    async invoke(args: CallArguments, ctx: CallContext, leg: UpstreamLeg = UNTRACED) {
      let found = identity.forCall(ctx);
      if (found instanceof Promise) found = await found;
      // No credential for this caller: the refusal is the answer, and nothing is sent.
      if (!found.ok) return found;
      const out = await send(args, ctx, leg, found.credential, redactorOf(found.credential));
      if (out.ok || !identity.afterUnauthorized || !isUnauthorized(out.error)) return out;
      // The upstream refused the token: one fresh one, if the identity can get it, one retry.
      const again = await identity.afterUnauthorized(ctx, found.credential);
      if (!again) return out;
      if (!again.ok) return again;
      return send(args, ctx, leg, again.credential, redactorOf(again.credential));
    },
  };
}

function isUnauthorized(e: EngineError): boolean {
  return e.code === 'UPSTREAM_STATUS' && (e.details as { status?: unknown })?.status === 401;
}

function refusalError(refusal: GateRefusal, timeoutMs: number): EngineError {
  if (refusal.kind === 'cancelled') return engineError('UPSTREAM_UNREACHABLE', CANCELLED);
  return engineError(
    'OVERLOADED',
    `all ${refusal.slots} upstream connections are busy and ${refusal.waiting} calls wait for one: ` +
      `this call could not start in time to finish within its ${timeoutMs} ms deadline; retry shortly`,
    { retryAfter: refusal.retryAfter },
  );
}

/** A call admitted to a connection whose request could not go out in time (never sent). */
function lateStartError(refusal: GateRefusal, timeoutMs: number): EngineError {
  return engineError(
    'OVERLOADED',
    `the gateway could not send this call in time to finish within its ${timeoutMs} ms deadline; retry shortly`,
    { retryAfter: refusal.kind === 'shed' ? refusal.retryAfter : 1 },
  );
}

function failure(f: FailureClass, timeoutMs: number): EngineError {
  if (f.kind === 'timeout')
    return engineError(
      'UPSTREAM_TIMEOUT',
      `upstream timeout: no complete answer within ${timeoutMs} ms`,
    );
  if (f.kind === 'cancelled') return engineError('UPSTREAM_UNREACHABLE', CANCELLED);
  return engineError('UPSTREAM_UNREACHABLE', f.message);
}
