/**
 * HTTP grants on undici: one keep-alive dispatcher per upstream (its own pool, TLS and
 * egress proxy, outbound/upstream-dispatcher.ts) and its own identity (the credential),
 * a plan per grant prepared at boot, and per call a straight line: build the target,
 * assert it, send with the spec's headers and credential only, read within the
 * deadline and the byte cap, and hand back JSON or text (response-body.ts).
 */
import type { Dispatcher } from 'undici';
import type {
  CompiledSpec,
  HttpBackend,
  UpstreamAuth,
  UpstreamDescriptor,
} from '../../../compiler/descriptor.js';
import { engineError, type EngineError } from '../../error-catalogue.js';
import { composeRedactors, type Redactor } from '../../redact.js';
import type { BackendKind, BackendOutcome, GrantOf, KindBackend, KindContext } from '../kind.js';
import type { CallArguments } from '../../call-arguments.js';
import type { CallContext } from '../../call-context.js';
import { buildBody, planBody } from './body.js';
import {
  openIdentity,
  type CallCredential,
  type IdentityContext,
  type UpstreamIdentity,
} from '../upstream/upstream-identity.js';
import { openUpstreamDispatcher } from '../../../outbound/upstream-dispatcher.js';
import { decodeUtf8Prefix } from '../../../outbound/utf8-prefix.js';
import { buildTarget, planUrl, targetEscapes } from './url.js';
import { interpretBody } from './response-body.js';
import { upstreamStatusError } from '../upstream/upstream-errors.js';
import { CANCELLED, failureClass, type FailureClass } from '../../../outbound/failure-class.js';
import { EXCERPT_BYTES, exchange, type Exchange } from './http-exchange.js';
import { USER_AGENT } from '../../../outbound/exchange.js';
import { ADMITTED, ConnectionGate, type GateRefusal } from '../upstream/connection-gate.js';
import { readCapFor } from '../upstream/read-cap.js';
import { UNTRACED, type UpstreamLeg } from '../../../telemetry/client-span.js';

/** Connections per upstream origin unless the spec says `connections=N`. */
export const DEFAULT_UPSTREAM_CONNECTIONS = 256;

/** How an upstream's `auth` becomes its identity (a test may open its own kind). */
export type OpenIdentity = (
  auth: UpstreamAuth | undefined,
  ctx: IdentityContext,
) => Promise<UpstreamIdentity>;

/** What every grant of one upstream shares: its way out, its credential, its gates. */
interface OpenUpstream {
  readonly descriptor: UpstreamDescriptor;
  readonly base: URL;
  readonly dispatcher: Dispatcher;
  readonly identity: UpstreamIdentity;
  readonly gate: ConnectionGate;
  close(): Promise<void>;
}

export function createHttpKind(ctx: KindContext<'http'>): Promise<BackendKind<'http'>> {
  return createHttpKindWith(ctx, openIdentity);
}

/**
 * One dispatcher, one identity and one gate per upstream the grants name, opened at
 * start; a grant's call only looks its upstream up. The credential of one upstream is
 * in no other's headers: each grant's headers are built from its own upstream's identity.
 */
export async function createHttpKindWith(
  { env, grants, spec, connections: accounts }: KindContext<'http'>,
  open: OpenIdentity,
): Promise<BackendKind<'http'>> {
  const upstreams = new Map<string, OpenUpstream>();
  const secrets: string[] = [];
  const sent: string[] = [];
  try {
    for (const d of grants) {
      const name = d.backend.upstream;
      if (upstreams.has(name)) continue;
      const descriptor = upstreamOf(spec, d.backend);
      const label = name === '' ? "the spec's base-url" : `upstream "${name}"`;
      const base = new URL(descriptor.baseUrl);
      const connections = descriptor.connections ?? DEFAULT_UPSTREAM_CONNECTIONS;
      const way = openUpstreamDispatcher(
        base,
        { connections, proxy: descriptor.proxy, tls: descriptor.tls, label },
        env,
      );
      let identity: UpstreamIdentity;
      try {
        identity = await open(descriptor.auth, {
          env,
          upstream: name === '' ? base.href : name,
          egress: { proxy: descriptor.proxy, tls: descriptor.tls },
          ...(accounts && { connections: accounts }),
        });
      } catch (err) {
        await way.close();
        throw err;
      }
      secrets.push(...identity.secrets(), ...way.secrets);
      sent.push(...identity.sentValues());
      upstreams.set(name, {
        descriptor,
        base,
        dispatcher: way.dispatcher,
        identity,
        // As many slots as undici opens connections to it: a call goes to undici only once
        // a connection is its own, so undici's queue stays empty and a call that cannot be
        // served within its deadline is refused here, at once.
        gate: new ConnectionGate(connections),
        close: async () => {
          await identity.close?.();
          await way.close();
        },
      });
    }
  } catch (err) {
    await Promise.all([...upstreams.values()].map((u) => u.close()));
    throw err;
  }
  return {
    prepare(d, redact) {
      return prepareHttpGrant(d, upstreams.get(d.backend.upstream)!, redact);
    },
    secrets: () => secrets,
    sentValues: () => sent,
    close: async () => {
      await Promise.all([...upstreams.values()].map((u) => u.close()));
    },
  };
}

/**
 * The grant's upstream as the spec declares it; a spec built without `upstreams` (a
 * test's CompiledSpec, an older caller) has the grant's own base-url and auth for it.
 */
function upstreamOf(spec: CompiledSpec, b: HttpBackend): UpstreamDescriptor {
  const found = spec.upstreams?.find((u) => u.name === b.upstream);
  if (found) return found.baseUrl === b.baseUrl ? found : { ...found, baseUrl: b.baseUrl };
  return {
    name: b.upstream,
    baseUrl: b.baseUrl,
    ...(b.auth && { auth: b.auth }),
    headers: [],
    source: { file: spec.file, line: 1, column: 1 },
  };
}

function prepareHttpGrant(
  d: GrantOf<'http'>,
  upstream: OpenUpstream,
  redact: Redactor,
): KindBackend {
  const backend: HttpBackend = d.backend;
  const { identity, dispatcher, gate } = upstream;
  // A static credential (or none) is the same for every call: asked once here, its
  // headers frozen with the grant's and its query encoded into the URL plan, so a call
  // pays nothing for it. A token kind is asked per call (dynamicCall below).
  const fixed = isStatic(identity.kind) ? staticCredential(identity) : undefined;
  const url = planUrl(backend, d.arguments, fixed?.query ?? [], upstream.base);
  const body = planBody(backend, d.arguments);
  const hasAccept = backend.headers.some(([k]) => k.toLowerCase() === 'accept');
  const headers: Record<string, string> = Object.freeze({
    'user-agent': USER_AGENT,
    'accept-encoding': 'identity',
    ...(hasAccept ? {} : { accept: 'application/json, text/plain;q=0.9, */*;q=0.5' }),
    ...Object.fromEntries(backend.headers.map(([k, v]) => [k.toLowerCase(), v])),
    ...(fixed && Object.fromEntries(fixed.headers)),
  });
  const readCap = readCapFor(d.limits.maxBytes);
  const timeoutMs = backend.timeoutMs;
  const shaped = d.shape !== undefined;
  // The gateway's redactor with a run-time token's: composed once per token, not per call.
  const withToken = new WeakMap<Redactor, Redactor>();
  const redactorFor = (c: CallCredential): Redactor => {
    if (!c.redact) return redact;
    let r = withToken.get(c.redact);
    if (!r) withToken.set(c.redact, (r = composeRedactors([redact, c.redact])));
    return r;
  };

  /**
   * One request on the wire, within what is left of the call's deadline from `arrived`
   * (undefined: the call arrives now). The clock is read as few times as the deadline
   * needs: each reading costs about 0.1 µs, and a call made eleven of them.
   */
  async function send(
    target: string,
    payload: { payload: string | Buffer; contentType: string } | undefined,
    credential: CallCredential | undefined,
    ctx: CallContext,
    leg: UpstreamLeg,
    arrivedAt: number | undefined,
    callRedact: Redactor,
    /** Where a token kind's call learns the upstream's error status (absent: not asked). */
    seen?: { status: number },
  ): Promise<BackendOutcome> {
    let now = performance.now();
    const arrived = arrivedAt ?? now;
    let leftMs = Math.max(1, timeoutMs - (now - arrived));
    // The deadline covers the wait for a connection too: a call that waited starts
    // with what is left of it.
    let entry = gate.enter({ budgetMs: leftMs, mustFinish: true, cancel: ctx.cancel });
    if (entry instanceof Promise) {
      entry = await leg.wait(entry);
      now = performance.now();
      leftMs = Math.max(1, timeoutMs - (now - arrived));
    }
    if (entry !== ADMITTED) return { ok: false, error: refusalError(entry, timeoutMs) };

    // With telemetry on the upstream request is a client span of its own, and the
    // traceparent sent names it; off, the child id the projection made goes.
    const sent = leg.send();
    const traceparent = sent ? sent.traceparent : ctx.traceparent;
    const tracestate = sent?.tracestate;
    const { baggage } = ctx;
    const reqHeaders = payload || traceparent || baggage || credential ? { ...headers } : headers;
    // A token kind's headers go on this call's request only.
    if (credential) for (const [k, v] of credential.headers) reqHeaders[k] = v;
    if (payload) reqHeaders['content-type'] = payload.contentType;
    if (traceparent) reqHeaders.traceparent = traceparent;
    if (tracestate) reqHeaders.tracestate = tracestate;
    if (baggage) reqHeaders.baggage = baggage;
    const deadline = arrived + timeoutMs;
    // When the request really goes on the wire (seconds after its slot, on a busy
    // loop): the service time counts from there, and a call that can no longer
    // finish in time is not sent. One reading serves both.
    let sentAt: number | undefined;
    const mayStart = (): boolean => {
      const at = performance.now();
      if (!gate.mayStart(deadline, timeoutMs, at)) return false;
      sentAt = at;
      return true;
    };
    let read: Exchange;
    try {
      read = await exchange(
        dispatcher,
        {
          origin: url.origin,
          path:
            credential && credential.query.length > 0
              ? withQuery(target, credential.query, url.component)
              : target,
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
      );
    } finally {
      // The connection goes back on every path (a try, not `.finally()`: that is one more
      // promise per call). A call its caller cancelled, or that never went out, says
      // nothing about how fast the upstream serves.
      gate.leave(
        ctx.cancel?.cancelled || sentAt === undefined ? undefined : performance.now() - sentAt,
      );
    }
    if (read.kind === 'status' || read.kind === 'body') leg.answered(read.status);
    if (seen && read.kind === 'status') seen.status = read.status;
    return outcome(read, callRedact, ctx);
  }

  function outcome(read: Exchange, callRedact: Redactor, ctx: CallContext): BackendOutcome {
    switch (read.kind) {
      case 'unsent':
        return { ok: false, error: lateStartError(gate.refusal(), timeoutMs) };
      case 'failed':
        return { ok: false, error: failure(failureClass(read, ctx.cancel), timeoutMs) };
      case 'status': {
        // A shaped grant's error quotes nothing of the body: it may hold omitted fields.
        if (shaped) return { ok: false, error: upstreamStatusError(read.status) };
        // An excerpt at the cap may end inside a spelling of a secret: cutText.
        const text = decodeUtf8Prefix(read.excerpt);
        const clean =
          read.excerpt.length >= EXCERPT_BYTES ? callRedact.cutText(text) : callRedact.text(text);
        return { ok: false, error: upstreamStatusError(read.status, clean) };
      }
      case 'encoded':
        return {
          ok: false,
          error: engineError(
            'UPSTREAM_BAD_RESPONSE',
            `upstream sent a ${read.encoding}-encoded body although the gateway asked for identity`,
          ),
        };
      default: {
        const body = interpretBody(read, readCap, callRedact, shaped);
        return body.ok
          ? // Object.assign, not a spread and a property: on Node 20 that literal falls off
            // V8's fast clone and cost microseconds a call (bench/RESULTS.md, issue 40).
            { ok: true, value: Object.assign({}, body.value, { upstreamStatus: read.status }) }
          : body;
      }
    }
  }

  /**
   * A token kind's call: ask the identity, send with its credential, and after a 401 ask
   * once more — the identity drops the token it gave and may obtain a fresh one — and
   * send again within what is left of the deadline. Never more than one retry.
   */
  async function dynamicCall(
    target: string,
    payload: { payload: string | Buffer; contentType: string } | undefined,
    ctx: CallContext,
    leg: UpstreamLeg,
  ): Promise<BackendOutcome> {
    const arrived = performance.now();
    let answer = identity.forCall(ctx);
    if (answer instanceof Promise) answer = await answer;
    if (!answer.ok) return { ok: false, error: answer.error };
    const used = answer.credential;
    const seen = { status: 0 };
    const first = await send(target, payload, used, ctx, leg, arrived, redactorFor(used), seen);
    if (seen.status !== 401 || !identity.afterUnauthorized) return first;
    const again = await identity.afterUnauthorized(ctx, used);
    if (again === undefined) return first;
    if (!again.ok) return { ok: false, error: again.error };
    if (performance.now() - arrived >= timeoutMs) return first;
    const fresh = again.credential;
    return send(target, payload, fresh, ctx, leg, arrived, redactorFor(fresh));
  }

  return {
    // Not async: a static credential's call is the one promise of `send`, as before.
    invoke(
      args: CallArguments,
      ctx: CallContext,
      leg: UpstreamLeg = UNTRACED,
    ): Promise<BackendOutcome> {
      const target = buildTarget(url, args.value);
      const escaped = targetEscapes(url, target);
      if (escaped)
        return Promise.resolve({
          ok: false,
          error: engineError('INTERNAL', `refused to send: ${escaped}`),
        });
      const payload = body ? buildBody(body, args) : undefined;
      if (payload && 'refused' in payload)
        return Promise.resolve({
          ok: false,
          error: engineError('INVALID_ARGUMENTS', payload.refused),
        });
      if (!fixed) return dynamicCall(target, payload, ctx, leg);
      return send(target, payload, undefined, ctx, leg, undefined, redact);
    },
  };
}

/** Kinds whose credential is fixed at start: the same answer for every call. */
function isStatic(kind: UpstreamIdentity['kind']): boolean {
  return kind === 'none' || kind === 'service';
}

/** A static identity's one answer (it needs no caller). */
function staticCredential(identity: UpstreamIdentity): CallCredential {
  const answer = identity.forCall({} as CallContext);
  if (answer instanceof Promise || !answer.ok)
    throw new Error(`a ${identity.kind} credential must settle at once`);
  return answer.credential;
}

/** A run-time credential's query pairs after the grant's own, escaped as the grant's. */
function withQuery(
  target: string,
  pairs: readonly (readonly [string, string])[],
  component: (s: string) => string,
): string {
  const q = pairs.map(([k, v]) => `${component(k)}=${component(v)}`).join('&');
  return `${target}${target.includes('?') ? '&' : '?'}${q}`;
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
