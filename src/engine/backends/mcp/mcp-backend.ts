/**
 * `tool` grants (spec-language.md, "Upstream MCP servers"): one upstream per `mcp-server`
 * the grants use, opened at boot and held for the life of the process (the gateway
 * starts while one is down; `/readyz` says which), a plan per grant prepared at boot,
 * and per call the declared arguments only, plus the pinned ones, sent as `arguments`
 * with the caller's numbers as written. Drift is checked at boot, when the upstream says
 * its tools changed, and at most every 10 minutes (tool-drift.ts).
 */
import type { GrantOf, BackendKind, BackendOutcome, KindBackend, KindContext } from '../kind.js';
import { composeRedactors, makeRedactor, type Redactor } from '../../redact.js';
import { openIdentity, type CallCredential } from '../upstream/upstream-identity.js';
import type { EngineError } from '../../error-catalogue.js';
import { buildObject, planObject } from '../upstream/argument-object.js';
import { mapUpstreamFailure, mapUpstreamValue } from './mcp-outcome.js';
import { openServers, type OpenedServer } from './open-servers.js';
import type { UpstreamLog } from '../../../mcp-upstream/upstream-log.js';
import { driftLine, toolDrift } from './tool-drift.js';
import { UNTRACED } from '../../../telemetry/client-span.js';

/** Drift is looked for again at most this often without a list_changed. */
export const DRIFT_INTERVAL_MS = 10 * 60_000;

export function createMcpKind(ctx: KindContext<'mcp'>): Promise<BackendKind<'mcp'>> {
  return createMcpKindWith(ctx, openIdentity);
}

/** The kind with the way an `auth` becomes an identity given (a test opens its own token kind). */
export async function createMcpKindWith(
  { env, grants, spec, log, connections }: KindContext<'mcp'>,
  open: typeof openIdentity,
): Promise<BackendKind<'mcp'>> {
  const say: UpstreamLog = (level, message) => log?.[level](message);
  // Until the gateway's redactor exists (prepare), the kind's own secrets are redacted.
  let redactor: Redactor | undefined;
  const redact = (text: string): string => (redactor ? redactor.text(text) : text);
  const checking = new Map<string, Promise<void>>();
  const opened = await openServers(spec.mcpServers ?? [], grants, {
    env,
    openIdentity: open,
    log: say,
    redact,
    ...(connections && { connections }),
    onNotification: (server, n) => {
      if (n.method === 'notifications/tools/list_changed') void checkDrift(server);
    },
  });
  redactor = makeRedactor(opened.secrets, opened.sent);
  const byName = new Map(opened.servers.map((s) => [s.descriptor.name, s]));

  /** One drift check per server at a time; a check asked for while one runs joins it. */
  function checkDrift(server: string): Promise<void> {
    const running = checking.get(server);
    if (running) return running;
    const s = byName.get(server)!;
    const done = reportDrift(s, say).finally(() => checking.delete(server));
    checking.set(server, done);
    return done;
  }

  // At boot: shake hands (not awaited: the gateway serves its other grants meanwhile),
  // then compare the grants with what the upstream lists.
  for (const s of opened.servers)
    void s.upstream.connect().then((hs) => {
      if (hs.ok) return checkDrift(s.descriptor.name);
      // A server that authorizes every request refuses the shared handshake, which
      // carries no caller's token: not down, called on each caller's own session.
      if (s.identity && /answered with status 40[13]\b/.test(hs.error.message))
        return say(
          'info',
          `mcp-server ${s.descriptor.name} refuses a handshake that carries no caller's token (${hs.error.message}): each caller's calls open a session with their own token, and its tools are not compared with the spec at start-up`,
        );
      say('warn', `mcp-server ${s.descriptor.name} is down at start-up: ${hs.error.message}`);
    });
  const timer = setInterval(() => {
    for (const s of opened.servers)
      if (s.upstream.state() === 'up') void checkDrift(s.descriptor.name);
  }, DRIFT_INTERVAL_MS);
  timer.unref();

  return {
    prepare(d, gatewayRedact) {
      redactor = gatewayRedact;
      return prepareMcpGrant(d, byName.get(d.backend.server)!, gatewayRedact);
    },
    secrets: () => opened.secrets,
    sentValues: () => opened.sent,
    readiness: () => ({
      servers: Object.fromEntries(
        opened.servers.map((s) => [s.descriptor.name, s.upstream.state()]),
      ),
    }),
    // After the drain: children get SIGTERM, then SIGKILL 5 s later; sessions are ended.
    async close() {
      clearInterval(timer);
      await Promise.allSettled(opened.servers.map((s) => s.upstream.close()));
      await Promise.allSettled(opened.servers.map((s) => s.identity?.close?.()));
    },
  };
}

function prepareMcpGrant(d: GrantOf<'mcp'>, server: OpenedServer, redact: Redactor): KindBackend {
  const b = d.backend;
  // Every declared field fills the arguments object (`arg=` projections at their paths).
  const plan = planObject(b.fields, d.arguments, b.setArgs, (a) => a.in !== 'projection');
  const shaped = d.shape !== undefined;
  const { upstream, identity } = server;
  // The gateway's redactor with a run-time token's: composed once per token, not per call.
  const withToken = new WeakMap<Redactor, Redactor>();
  const redactorFor = (c: CallCredential | undefined): Redactor => {
    if (!c?.redact) return redact;
    let r = withToken.get(c.redact);
    if (!r) withToken.set(c.redact, (r = composeRedactors([redact, c.redact])));
    return r;
  };
  return {
    async invoke(args, ctx, leg = UNTRACED): Promise<BackendOutcome> {
      // A token kind answers for this call's caller; its headers go on this call's
      // requests only. A refusal (no token to exchange, no connected account) sends nothing.
      let credential: CallCredential | undefined;
      if (identity) {
        let answer = identity.forCall(ctx);
        if (answer instanceof Promise) answer = await answer;
        if (!answer.ok) return { ok: false, error: answer.error };
        credential = answer.credential;
      }
      const { value, texts } = buildObject(plan, args);
      // The upstream continues the call's trace from `_meta.traceparent`: the client
      // span's with telemetry on, else the child id the projection made (as HTTP sends).
      const sent = leg.send();
      const arrived = performance.now();
      const call = (c: CallCredential | undefined, timeoutMs: number) =>
        upstream.callTool(b.tool, value, {
          timeoutMs,
          cancel: ctx.cancel,
          retryOnNewSession: b.retryOnNewSession,
          argumentTexts: texts,
          traceparent: sent ? sent.traceparent : ctx.traceparent,
          tracestate: sent?.tracestate,
          baggage: ctx.baggage,
          ...(c && { headers: c.headers }),
        });
      let out = await call(credential, b.timeoutMs);
      // The upstream refused this caller's token (401, before serving the call): the
      // identity drops it and may obtain a fresh one, and the call goes once more within
      // what is left of its deadline. Never more than one retry.
      if (
        !out.ok &&
        credential &&
        identity?.afterUnauthorized &&
        'status' in out.error &&
        out.error.status === 401
      ) {
        const again = await identity.afterUnauthorized(ctx, credential);
        if (again && !again.ok) return { ok: false, error: again.error };
        const leftMs = b.timeoutMs - (performance.now() - arrived);
        if (again && leftMs > 0) {
          credential = again.credential;
          out = await call(credential, leftMs);
        }
      }
      return out.ok
        ? mapUpstreamValue(out.value, redactorFor(credential), shaped)
        : {
            ok: false,
            error: withTokenHidden(
              mapUpstreamFailure(out.error, server.descriptor.name, b, shaped),
              credential,
              redactorFor,
            ),
          };
    },
  };
}

/**
 * An upstream's failure quoted with a run-time token hidden too: the channel redacted it
 * with the gateway's secrets only, which do not know a token obtained for this call.
 */
function withTokenHidden(
  error: EngineError,
  credential: CallCredential | undefined,
  redactorFor: (c: CallCredential | undefined) => Redactor,
): EngineError {
  if (!credential?.redact) return error;
  const r = redactorFor(credential);
  return {
    ...error,
    message: r.text(error.message),
    ...(error.details && { details: r.value(error.details) }),
  };
}

/** Lists the server's tools and logs one warning per drift problem of its grants. */
export async function reportDrift(s: OpenedServer, say: UpstreamLog): Promise<void> {
  const listed = await s.upstream.listTools();
  if (!listed.ok) {
    say(
      'warn',
      `mcp-server ${s.descriptor.name}: tools/list failed, drift not checked: ${listed.error.message}`,
    );
    return;
  }
  for (const p of toolDrift(s.descriptor.name, s.grants, listed.value))
    say('warn', `drift: ${driftLine(p)}`);
}
