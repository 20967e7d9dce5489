/**
 * What connected accounts need for the life of the process (spec-language.md, `auth
 * user`), opened at start beside the sign-in services when the spec declares an
 * `oauth-provider`: the keys derived from `access token-key-env`, the store of token sets
 * (Redis with `limits redis-env`, else memory), the single use of round-trip states, each
 * provider's client, and the one refresh per caller and provider at a time.
 */
import type { Logger } from 'pino';
import type { CompiledSpec, OAuthProviderDescriptor } from '../compiler/descriptor.js';
import type { Env } from '../process/env.js';
import { StartupError } from '../process/startup-error.js';
import { redisUrlFrom } from '../engine/redis/redis-url.js';
import { createMemorySpentStates, type SpentStates } from '../engine/consent/spent-states.js';
import { Sealer } from '../access/sign-in/sealed.js';
import {
  requestToken,
  type TokenAnswer,
  type TokenClient,
  type TokenRequestOptions,
} from '../outbound/token-request.js';
import { openTokenEndpointDispatcher } from '../outbound/token-endpoint-dispatcher.js';
import type { OpenedDispatcher } from '../outbound/upstream-dispatcher.js';
import { connectionKeysFrom } from './connection-keys.js';
import { encryptedStore, memoryRecords, type ConnectionStore } from './connection-store.js';
import type { TokenSet } from './token-set.js';

/** How long a connect link and a round trip's state open. */
export const CONNECT_TTL_MS = 10 * 60_000;
/** How a replica waits for another's refresh of the same connection: 10 s at most. */
const OTHER_REFRESH_POLL_MS = 100;
const OTHER_REFRESH_POLLS = 100;

export interface ProviderClient {
  readonly descriptor: OAuthProviderDescriptor;
  readonly client: TokenClient;
  /** The way out to its token and revoke endpoints (token-endpoint-dispatcher.ts). */
  readonly requestOptions: TokenRequestOptions;
}

export type RefreshResult =
  | { readonly ok: true; readonly set: TokenSet }
  /** `refused`: the provider said the refresh token is no good; the connection is removed. */
  | { readonly ok: false; readonly refused: boolean; readonly reason: string };

/** One event of a connection for the audit log: provider and caller, never a token. */
export interface ConnectionAuditLine {
  readonly event: 'connected' | 'refreshed' | 'removed' | 'refused';
  readonly provider: string;
  readonly caller?: string;
  readonly reason?: string;
}

export interface ConnectionServices {
  readonly sealer: Sealer;
  readonly store: ConnectionStore;
  /** Single use of round-trip states, by their jti. */
  readonly spent: SpentStates;
  readonly providers: ReadonlyMap<string, ProviderClient>;
  /** Client secrets: redacted from everything. */
  readonly secrets: readonly string[];
  /** A sealed connect link id for `callerId` at `provider`, and when it stops opening. */
  link(callerId: string, provider: string): { readonly id: string; readonly expiresAt: number };
  /** A refreshed token set (single flight per caller and provider), stored; or why not. */
  refresh(provider: string, callerId: string, set: TokenSet): Promise<RefreshResult>;
  /** The token set of a token answer, as stored. */
  tokenSetOf(answer: TokenAnswer, asked: string | undefined, connectedAt: number): TokenSet;
  audit(line: ConnectionAuditLine): void;
  close(): Promise<void>;
}

export interface ConnectionServiceOptions {
  readonly env: Env;
  readonly log?: Pick<Logger, 'info' | 'warn'>;
  readonly now?: () => number;
}

function variable(env: Env, name: string, provider: string, what: string): string {
  const value = env[name];
  if (value === undefined || value === '')
    throw new StartupError(
      `oauth-provider "${provider}": the variable ${name} (${what}) is not set; set it to what the provider gave the gateway's client`,
    );
  return value;
}

export function hasConnections(spec: CompiledSpec): boolean {
  return spec.oauthProviders.length > 0;
}

export async function createConnectionServices(
  spec: CompiledSpec,
  opts: ConnectionServiceOptions,
): Promise<ConnectionServices | undefined> {
  if (!hasConnections(spec)) return undefined;
  const now = opts.now ?? Date.now;
  const tokenKeyEnv = spec.access?.tokenKeyEnv;
  if (tokenKeyEnv === undefined)
    throw new StartupError(
      'oauth-provider: connected accounts are encrypted with the key in `access token-key-env="V"`; add it to the access block',
    );
  const read = connectionKeysFrom(tokenKeyEnv, opts.env[tokenKeyEnv]);
  if (!read.ok) throw new StartupError(read.message);
  const providers = new Map<string, ProviderClient>();
  const ways: OpenedDispatcher[] = [];
  for (const p of spec.oauthProviders) {
    const client = {
      id: variable(opts.env, p.clientIdEnv, p.name, 'client-id-env'),
      secret: variable(opts.env, p.clientSecretEnv, p.name, 'client-secret-env'),
    };
    // A provider serves every upstream naming it: the environment's proxy settings decide.
    const way = openTokenEndpointDispatcher(p.tokenUrl, `oauth-provider "${p.name}"`, opts.env);
    ways.push(way);
    providers.set(p.name, {
      descriptor: p,
      client,
      requestOptions: { dispatcher: way.dispatcher },
    });
  }
  let store: ConnectionStore;
  let spent: SpentStates;
  if (spec.redisEnv !== undefined) {
    const url = redisUrlFrom(spec.redisEnv, opts.env, 'to keep connected accounts in memory');
    const { redisRecords } = await import('./redis-connection-store.js');
    const { createRedisSpentStates } = await import('../engine/consent/redis-spent-states.js');
    store = encryptedStore(read.keys, await redisRecords(url), now);
    spent = await createRedisSpentStates(url, {
      prefix: 'mcpb:connect:',
      what: 'connect states',
      ...(opts.log && { log: opts.log }),
    });
  } else {
    store = encryptedStore(read.keys, memoryRecords(now), now);
    spent = createMemorySpentStates({ now });
  }
  const sealer = new Sealer(read.keys.sealing, now);
  const log = opts.log;
  const audit = (line: ConnectionAuditLine): void => {
    if (!log) return;
    const fields = { audit: 'connection', ...line };
    if (line.event === 'refused') log.warn(fields, 'connection refused');
    else log.info(fields, `connection ${line.event}`);
  };
  const tokenSetOf = (
    answer: TokenAnswer,
    asked: string | undefined,
    connectedAt: number,
  ): TokenSet => ({
    accessToken: answer.accessToken,
    ...(answer.refreshToken !== undefined && { refreshToken: answer.refreshToken }),
    ...(answer.expiresInS !== undefined && { expiresAt: now() + answer.expiresInS * 1000 }),
    ...((answer.scope ?? asked) !== undefined && { scope: answer.scope ?? asked }),
    connectedAt,
  });
  // One refresh per caller and provider at a time: concurrent calls near expiry share it,
  // and a refresh token that rotates is spent once.
  const inFlight = new Map<string, Promise<RefreshResult>>();
  const refreshOnce = async (
    provider: ProviderClient,
    callerId: string,
    set: TokenSet,
  ): Promise<RefreshResult> => {
    const name = provider.descriptor.name;
    if (set.refreshToken === undefined)
      return { ok: false, refused: true, reason: 'the connection has no refresh token' };
    // One replica refreshes; the others wait for the set it stores.
    const release = await store.lockRefresh(name, callerId);
    if (!release) return awaitOtherRefresh(name, callerId, set);
    try {
      // Another replica may have refreshed it just before this one took the lock.
      const current = await store.get(name, callerId);
      if (!current) return { ok: false, refused: true, reason: 'the connection was removed' };
      if (current.accessToken !== set.accessToken) return { ok: true, set: current };
      return await refreshWith(provider, callerId, current);
    } finally {
      await release();
    }
  };
  /** The set another replica is refreshing, once it is stored (or why not). */
  const awaitOtherRefresh = async (
    name: string,
    callerId: string,
    set: TokenSet,
  ): Promise<RefreshResult> => {
    for (let i = 0; i < OTHER_REFRESH_POLLS; i++) {
      await new Promise((resolve) => setTimeout(resolve, OTHER_REFRESH_POLL_MS));
      const current = await store.get(name, callerId);
      if (!current) return { ok: false, refused: true, reason: 'the provider refused to renew it' };
      if (current.accessToken !== set.accessToken) return { ok: true, set: current };
    }
    return {
      ok: false,
      refused: false,
      reason: 'another replica is renewing this connection and has not finished; retry shortly',
    };
  };
  const refreshWith = async (
    provider: ProviderClient,
    callerId: string,
    set: TokenSet,
  ): Promise<RefreshResult> => {
    const name = provider.descriptor.name;
    if (set.refreshToken === undefined)
      return { ok: false, refused: true, reason: 'the connection has no refresh token' };
    const answer = await requestToken(
      provider.descriptor.tokenUrl,
      { grant_type: 'refresh_token', refresh_token: set.refreshToken },
      provider.client,
      provider.requestOptions,
    );
    if (!answer.ok) {
      const refused = answer.oauthError === 'invalid_grant';
      if (refused) {
        await store.remove(name, callerId).catch(() => false);
        audit({ event: 'removed', provider: name, caller: callerId, reason: 'refresh refused' });
      }
      return { ok: false, refused, reason: answer.reason };
    }
    const next = tokenSetOf(answer.token, set.scope, set.connectedAt);
    // A provider that does not rotate keeps the refresh token it gave first.
    const kept =
      next.refreshToken === undefined && set.refreshToken !== undefined
        ? { ...next, refreshToken: set.refreshToken }
        : next;
    await store.put(name, callerId, kept);
    audit({ event: 'refreshed', provider: name, caller: callerId });
    return { ok: true, set: kept };
  };
  return {
    sealer,
    store,
    spent,
    providers,
    secrets: [
      ...[...providers.values()].map((p) => p.client.secret),
      ...ways.flatMap((w) => w.secrets),
    ],
    link(callerId, provider) {
      const expiresAt = now() + CONNECT_TTL_MS;
      return {
        id: sealer.sealUntil('connect-link', { c: callerId, p: provider }, expiresAt),
        expiresAt,
      };
    },
    refresh(provider, callerId, set) {
      const p = providers.get(provider);
      if (!p) return Promise.resolve({ ok: false, refused: true, reason: 'unknown provider' });
      const key = `${provider}\u0000${callerId}`;
      let running = inFlight.get(key);
      if (!running) {
        running = refreshOnce(p, callerId, set).catch((err: unknown): RefreshResult => ({
          ok: false,
          refused: false,
          reason: `the connection could not be stored: ${(err as Error).message}`,
        }));
        inFlight.set(key, running);
        void running.finally(() => inFlight.delete(key));
      }
      return running;
    },
    tokenSetOf,
    audit,
    close: async () => {
      await Promise.all([store.close(), spent.close(), ...ways.map((w) => w.close())]);
    },
  };
}
