/**
 * The protocol era with one upstream, over any channel (spec-language.md,
 * "Connections"): a 2026-07-28 upstream is called statelessly, every request carrying
 * its `_meta` (version, capabilities, client info); a 2025-era upstream gets one session
 * per process, `initialize` then `notifications/initialized`, shaken hands again when the
 * channel says the peer forgot us (a new child, a lost session). `protocol "auto"` asks
 * `server/discover` first and, on any failure of it, initializes.
 *
 * One handshake at a time: calls that arrive while it runs wait for it, each up to its
 * own deadline and until it goes away. The handshake itself runs on its own clock and is
 * cancelled by no one caller: when the call that started it had a short deadline or
 * left, the calls waiting with it were failed too (a child slow to start, on a busy
 * machine, failed 20 calls for the one that hung up). A failed handshake is not
 * remembered; the next call tries again (the upstream may be back).
 */
import type { Cancellation } from '../outbound/cancellation.js';
import type { NumberTexts } from '../json/number-text.js';
import type { RpcChannel } from './rpc-channel.js';
import {
  LEGACY_VERSION,
  META_CLIENT_CAPABILITIES,
  META_CLIENT_INFO,
  META_PROTOCOL_VERSION,
  MODERN_VERSION,
  type Era,
} from '../mcp-wire/versions.js';
import { capText, type UpstreamFailure, type UpstreamOutcome } from './upstream-outcome.js';

export type ProtocolChoice = 'auto' | typeof MODERN_VERSION | typeof LEGACY_VERSION;
export type UpstreamState = 'starting' | 'up' | 'down';

/** What the upstream said of itself: its `server/discover` or `initialize` result, as sent. */
export interface Handshake {
  readonly era: Era;
  readonly protocolVersion: string;
  readonly result: Readonly<Record<string, unknown>>;
}

export interface SessionRequestOptions {
  readonly timeoutMs: number;
  readonly cancel?: Cancellation | undefined;
  /**
   * Whether the request may be sent again on a new session when the upstream forgot
   * the old one: a read grant's call may, a write is never sent twice.
   */
  readonly retryOnNewSession?: boolean;
  /** The caller's number texts inside `params` (rpc-channel.ts). */
  readonly texts?: NumberTexts | undefined;
  /**
   * This request's own headers (a token kind's credential for the caller). A session's
   * handshake never carries them: the shared session's is made with no caller's
   * credential, and a caller's own 2025-era session (credential-sessions.ts) has its
   * credential among its channel's headers.
   */
  readonly headers?: readonly (readonly [string, string])[] | undefined;
}

/** How the gateway names itself to an upstream, in `initialize` and in every modern `_meta`. */
const CLIENT_INFO = { name: 'mcp-beaver', version: '0.1.0' } as const;

/** A discover probe under `auto` waits at most this long before `initialize` is tried. */
const PROBE_TIMEOUT_MS = 10_000;
/**
 * A handshake's own deadline, unless the call that starts it may wait longer: it is
 * shared, so it is not bounded by whichever caller happened to come first.
 */
const HANDSHAKE_TIMEOUT_MS = 30_000;

export class UpstreamSession {
  private shake:
    | {
        epoch: number;
        done: Promise<UpstreamOutcome<Handshake>>;
        /** Set once it succeeded, so a call after it waits on no timer. */
        agreed?: UpstreamOutcome<Handshake>;
      }
    | undefined;
  private agreed: Handshake | undefined = undefined;
  /** Decided once: a restarted child or a lost session is the same server. */
  private era: Era | undefined;
  private health: UpstreamState = 'starting';
  /** The epoch on which the upstream was last found down: a new one is starting afresh. */
  private downOn = 0;

  constructor(
    private readonly name: string,
    private readonly channel: RpcChannel,
    protocol: ProtocolChoice,
  ) {
    this.era =
      protocol === MODERN_VERSION ? 'modern' : protocol === LEGACY_VERSION ? 'legacy' : undefined;
  }

  state(): UpstreamState {
    if (this.health === 'down' && this.channel.epoch !== this.downOn) return 'starting';
    return this.health;
  }

  private setHealth(h: UpstreamState): void {
    this.health = h;
    if (h === 'down') this.downOn = this.channel.epoch;
  }

  /** The last handshake's result (undefined before the first). */
  handshake(): Handshake | undefined {
    return this.agreed;
  }

  /**
   * The handshake for the channel's current epoch, made now if needed; this caller waits
   * for it at most `timeoutMs` and until `cancel`, and neither ends it for the others.
   */
  ready(timeoutMs: number, cancel?: Cancellation): Promise<UpstreamOutcome<Handshake>> {
    const epoch = this.channel.epoch;
    let current = this.shake;
    if (current && current.epoch === epoch && current.agreed)
      return Promise.resolve(current.agreed);
    if (!current || current.epoch !== epoch) {
      const shake: NonNullable<typeof current> = {
        epoch,
        done: this.negotiate(Math.max(timeoutMs, HANDSHAKE_TIMEOUT_MS)).then((out) => {
          this.setHealth(out.ok ? 'up' : 'down');
          if (out.ok) {
            this.agreed = out.value;
            shake.agreed = out;
          }
          // A failure is not kept: the next call shakes hands again.
          else if (this.shake === shake) this.shake = undefined;
          return out;
        }),
      };
      current = shake;
      this.shake = shake;
    }
    return waitFor(current.done, timeoutMs, cancel, this.name);
  }

  async request(
    method: string,
    params: Record<string, unknown>,
    o: SessionRequestOptions,
  ): Promise<UpstreamOutcome<Record<string, unknown>>> {
    const until = performance.now() + o.timeoutMs;
    for (let attempt = 0; ; attempt++) {
      const hs = await this.ready(left(until), o.cancel);
      if (!hs.ok) return hs;
      const reply = await this.channel.request(method, this.stamp(params, hs.value), {
        timeoutMs: left(until),
        cancel: o.cancel,
        texts: o.texts,
        headers: o.headers,
      });
      if (reply.kind === 'result') {
        this.setHealth('up');
        if (reply.result.resultType === 'input_required') {
          return fail(
            'protocol',
            `mcp-server ${this.name} asked for more input (resultType "input_required"), which the gateway does not relay`,
          );
        }
        return { ok: true, value: reply.result };
      }
      if (reply.kind === 'failed') {
        if (reply.error.kind === 'unavailable') this.setHealth('down');
        return { ok: false, error: reply.error };
      }
      // session-lost: the next ready() initializes on the new epoch.
      if (!o.retryOnNewSession || attempt > 0) {
        return fail(
          'unavailable',
          `${reply.message}; a new one is made for the next call${o.retryOnNewSession ? '' : ', and this call (a write) is not sent twice'}`,
        );
      }
    }
  }

  private stamp(params: Record<string, unknown>, hs: Handshake): Record<string, unknown> {
    if (hs.era !== 'modern') return params;
    return { ...params, _meta: { ...(params._meta as object | undefined), ...modernMeta() } };
  }

  private async negotiate(timeoutMs: number): Promise<UpstreamOutcome<Handshake>> {
    const until = performance.now() + timeoutMs;
    if (this.era !== 'legacy') {
      const probeMs = this.era === 'modern' ? timeoutMs : Math.min(timeoutMs, PROBE_TIMEOUT_MS);
      const found = await this.discover(probeMs);
      if (found.ok || this.era === 'modern') {
        if (found.ok) this.era = 'modern';
        return found;
      }
    }
    const init = await this.initialize(left(until));
    if (init.ok) this.era = 'legacy';
    return init;
  }

  private async discover(timeoutMs: number): Promise<UpstreamOutcome<Handshake>> {
    const reply = await this.channel.request(
      'server/discover',
      { _meta: modernMeta() },
      { timeoutMs },
    );
    if (reply.kind !== 'result') return asFailure(reply, this.name, 'server/discover');
    const versions = reply.result.supportedVersions;
    if (!Array.isArray(versions) || !versions.includes(MODERN_VERSION)) {
      return fail(
        'protocol',
        `mcp-server ${this.name} does not list ${MODERN_VERSION} among its supported versions`,
      );
    }
    return {
      ok: true,
      value: { era: 'modern', protocolVersion: MODERN_VERSION, result: reply.result },
    };
  }

  private async initialize(timeoutMs: number): Promise<UpstreamOutcome<Handshake>> {
    const until = performance.now() + timeoutMs;
    this.channel.legacyVersion(undefined);
    const reply = await this.channel.request(
      'initialize',
      { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: CLIENT_INFO },
      { timeoutMs },
    );
    if (reply.kind !== 'result') return asFailure(reply, this.name, 'initialize');
    const version = reply.result.protocolVersion;
    if (typeof version !== 'string' || version === '')
      return fail(
        'protocol',
        `mcp-server ${this.name} answered initialize without a protocolVersion`,
      );
    this.channel.legacyVersion(version);
    await this.channel.notify('notifications/initialized', undefined, {
      timeoutMs: left(until),
    });
    return { ok: true, value: { era: 'legacy', protocolVersion: version, result: reply.result } };
  }
}

function modernMeta(): Record<string, unknown> {
  return {
    [META_PROTOCOL_VERSION]: MODERN_VERSION,
    [META_CLIENT_CAPABILITIES]: {},
    [META_CLIENT_INFO]: CLIENT_INFO,
  };
}

function asFailure(
  reply: { kind: 'failed'; error: UpstreamFailure } | { kind: 'session-lost'; message: string },
  name: string,
  method: string,
): UpstreamOutcome<never> {
  if (reply.kind === 'failed') {
    const e = reply.error;
    // A JSON-RPC error to a handshake means the upstream does not speak the era asked.
    if (e.kind === 'rpc-error')
      return fail(
        'protocol',
        `mcp-server ${name} refused ${method}: ${capText(e.message, 200)} (${e.code})`,
      );
    return { ok: false, error: e };
  }
  return fail('unavailable', reply.message);
}

function fail(
  kind: 'timeout' | 'unavailable' | 'protocol',
  message: string,
): UpstreamOutcome<never> {
  return { ok: false, error: { kind, message } };
}

/**
 * One caller's wait for the shared handshake: its outcome, or this caller's own timeout
 * or cancellation, whichever comes first.
 */
function waitFor<T>(
  done: Promise<UpstreamOutcome<T>>,
  timeoutMs: number,
  cancel: Cancellation | undefined,
  name: string,
): Promise<UpstreamOutcome<T>> {
  if (cancel?.cancelled) return Promise.resolve(fail('unavailable', CANCELLED));
  return new Promise((resolve) => {
    const finish = (out: UpstreamOutcome<T>): void => {
      clearTimeout(timer);
      cancel?.onCancel(undefined);
      resolve(out);
    };
    const timer = setTimeout(
      () => finish(fail('timeout', `mcp-server ${name}: no handshake within ${timeoutMs} ms`)),
      timeoutMs,
    );
    cancel?.onCancel(() => finish(fail('unavailable', CANCELLED)));
    void done.then(finish);
  });
}

const CANCELLED = 'the call was cancelled by the caller';

/** What is left of a deadline, at least 1 ms (a timer of 0 would still run later). */
function left(until: number): number {
  return Math.max(1, Math.round(until - performance.now()));
}
