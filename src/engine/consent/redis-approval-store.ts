/**
 * The shared approval store: approvals in Redis, so any replica can take the repeat of
 * a call and a restarted process still sees what was pending. Every step that reads
 * and then writes is one Lua script, so two replicas consuming one approval at once
 * get one 'run' between them. Times come from the injected clock (the engine computes
 * `expiresAt` with it too); key lifetimes are relative, so Redis's clock only bounds
 * how long a record is kept.
 *
 * Key layout (prefix default `mcpb:ap:`):
 *   <prefix>a:<id>          hash: the approval (callerId, tool, digest, message, scope,
 *                           requestedAt, expiresAt, status, decidedBy, and kind:
 *                           absent on an approval, `confirmation` on a confirmation);
 *                           PEXPIRE at expiresAt + retainMs
 *   <prefix>k:<requestKey>  string: the id of the caller+tool+digest's approval; same life
 *   <prefix>pending         sorted set: pending ids scored by expiresAt (listing)
 *   <prefix>c:<callerHash>  sorted set: one caller's pending ids by expiresAt (its cap,
 *                           MAX_PENDING_PER_CALLER); lives as long as its last record
 *   <prefix>cf:<callerHash> the same for its pending confirmations, which are never in
 *                           <prefix>pending (approvers do not list them)
 *
 * Scripts name their other keys from the prefix, so on a Redis Cluster the prefix must
 * hold a hash tag (e.g. `mcpb:{ap}:`) to keep every key in one slot.
 *
 * Unlike the rate limiter there is no fallback: a Redis that does not answer makes the
 * operation reject, and the call is refused (an approval is never granted by default).
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { failFastRedis } from '../redis/redis-client.js';
import {
  DEFAULT_RETAIN_MS,
  holdsScope,
  isApprovalIdShape,
  MAX_PENDING_PER_CALLER,
  newApprovalId,
  refused,
  requestKey,
  type Approval,
  type ApprovalRequest,
  type ApprovalStatus,
  type ApprovalStore,
  type ApprovalStoreOptions,
  type ConsumeOutcome,
  type DecideOutcome,
  type DecideRefusal,
  type Decision,
  type RecordKind,
  type RequestOutcome,
  type ScopesHeld,
} from './approvals.js';

/**
 * KEYS[1] the request key, KEYS[2] the caller's pending set (of the kind). ARGV: prefix,
 * now, ttlMs, id, callerId, tool, digest, message, scope, expiresAt, the most pending a
 * caller may hold, kind ('' for an approval), requestedAt. Returns {'existing'|'created', record} or
 * {'full', count, soonest expiresAt}.
 */
const REQUEST_SCRIPT = `
local p, now = ARGV[1], tonumber(ARGV[2])
local old = redis.call('GET', KEYS[1])
if old then
  local a = p .. 'a:' .. old
  local exp = redis.call('HGET', a, 'expiresAt')
  if exp and tonumber(exp) > now then return {'existing', redis.call('HGETALL', a)} end
  redis.call('DEL', a)
  redis.call('ZREM', p .. 'pending', old)
end
-- The caller's ids still pending: lapsed, decided and consumed ones leave first, so the
-- set holds at most the cap plus those decided since the caller last parked one.
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
for _, id in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
  if redis.call('HGET', p .. 'a:' .. id, 'status') ~= 'pending' then
    redis.call('ZREM', KEYS[2], id)
  end
end
local count = redis.call('ZCARD', KEYS[2])
if count >= tonumber(ARGV[11]) then
  local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  return {'full', tostring(count), first[2]}
end
local a = p .. 'a:' .. ARGV[4]
redis.call('HSET', a, 'id', ARGV[4], 'callerId', ARGV[5], 'tool', ARGV[6], 'digest', ARGV[7],
  'message', ARGV[8], 'scope', ARGV[9], 'requestedAt', ARGV[13], 'expiresAt', ARGV[10],
  'status', 'pending')
if ARGV[12] ~= '' then redis.call('HSET', a, 'kind', ARGV[12]) end
redis.call('PEXPIRE', a, ARGV[3])
redis.call('SET', KEYS[1], ARGV[4], 'PX', ARGV[3])
if ARGV[12] == '' then redis.call('ZADD', p .. 'pending', ARGV[10], ARGV[4]) end
redis.call('ZADD', KEYS[2], ARGV[10], ARGV[4])
if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[2], ARGV[3]) end
return {'created', redis.call('HGETALL', a)}
`;

/**
 * KEYS[1] the record. ARGV: prefix, now, decision status, deciderId, kind ('' for an
 * approval), holdsAll ('1'|'0'), then the scopes held. Returns {'decided', record} or
 * {'refused', reason}.
 */
const DECIDE_SCRIPT = `
local p, now = ARGV[1], tonumber(ARGV[2])
local f = redis.call('HMGET', KEYS[1], 'status', 'expiresAt', 'scope', 'callerId', 'id', 'kind')
if not f[1] or (f[6] or '') ~= ARGV[5] then return {'refused', 'unknown'} end
if ARGV[5] == 'confirmation' then
  if f[4] ~= ARGV[4] then return {'refused', 'other-caller'} end
else
  local held = ARGV[6] == '1'
  if not held then
    for i = 7, #ARGV do if ARGV[i] == f[3] then held = true break end end
  end
  if not held then return {'refused', 'missing-scope'} end
  if f[4] == ARGV[4] then return {'refused', 'own-request'} end
end
if tonumber(f[2]) <= now then return {'refused', 'expired'} end
if f[1] ~= 'pending' then return {'refused', 'already-decided'} end
redis.call('HSET', KEYS[1], 'status', ARGV[3], 'decidedBy', ARGV[4])
redis.call('ZREM', p .. 'pending', f[5])
return {'decided', redis.call('HGETALL', KEYS[1])}
`;

/**
 * KEYS[1] the request key. ARGV: prefix, now.
 * Returns {'none'} | {'expired'} | {'run'|'pending'|'declined', record}.
 */
const CONSUME_SCRIPT = `
local p, now = ARGV[1], tonumber(ARGV[2])
local id = redis.call('GET', KEYS[1])
if not id then return {'none'} end
local a = p .. 'a:' .. id
local rec = redis.call('HGETALL', a)
if #rec == 0 then redis.call('DEL', KEYS[1]) return {'none'} end
local f = redis.call('HMGET', a, 'status', 'expiresAt')
if f[1] == 'pending' and tonumber(f[2]) > now then return {'pending', rec} end
redis.call('DEL', a, KEYS[1])
redis.call('ZREM', p .. 'pending', id)
if f[1] == 'declined' then return {'declined', rec} end
if tonumber(f[2]) <= now then return {'expired'} end
return {'run', rec}
`;

export interface RedisApprovalStoreOptions extends ApprovalStoreOptions {
  readonly log?: Pick<Logger, 'warn'>;
  /** Prepended to every key (default `mcpb:ap:`). */
  readonly prefix?: string;
  readonly connectTimeoutMs?: number;
  readonly commandTimeoutMs?: number;
}

type Flat = string[];

interface ApprovalCommands {
  mcpbApprovalRequest(
    key: string,
    callerKey: string,
    ...argv: string[]
  ): Promise<[string, Flat | string, string?]>;
  mcpbApprovalDecide(key: string, ...argv: string[]): Promise<[string, Flat | string]>;
  mcpbApprovalConsume(key: string, ...argv: string[]): Promise<[string, Flat?]>;
}

function toApproval(flat: Flat): Approval {
  const f = new Map<string, string>();
  for (let i = 0; i + 1 < flat.length; i += 2) f.set(flat[i]!, flat[i + 1]!);
  const decidedBy = f.get('decidedBy');
  return {
    kind: f.get('kind') === 'confirmation' ? 'confirmation' : 'approval',
    id: f.get('id') ?? '',
    tool: f.get('tool') ?? '',
    message: f.get('message') ?? '',
    scope: f.get('scope') ?? '',
    requestedBy: f.get('callerId') ?? '',
    requestedAt: Number(f.get('requestedAt')),
    expiresAt: Number(f.get('expiresAt')),
    status: (f.get('status') ?? 'pending') as ApprovalStatus,
    ...(decidedBy === undefined ? {} : { decidedBy }),
  };
}

export async function createRedisApprovalStore(
  url: string,
  opts: RedisApprovalStoreOptions = {},
): Promise<ApprovalStore> {
  const prefix = opts.prefix ?? 'mcpb:ap:';
  const now = opts.now ?? Date.now;
  const retainMs = opts.retainMs ?? DEFAULT_RETAIN_MS;
  // No queue while disconnected and no retries: an operation rejects at once (fail closed).
  const redis = failFastRedis(url, opts);
  const { client } = redis;
  const connectTimeout = redis.connectTimeoutMs;
  client.defineCommand('mcpbApprovalRequest', { numberOfKeys: 2, lua: REQUEST_SCRIPT });
  client.defineCommand('mcpbApprovalDecide', { numberOfKeys: 1, lua: DECIDE_SCRIPT });
  client.defineCommand('mcpbApprovalConsume', { numberOfKeys: 1, lua: CONSUME_SCRIPT });
  const cmd = client as unknown as ApprovalCommands;

  await redis.firstConnection();
  if (client.status !== 'ready')
    opts.log?.warn(
      {
        approvals: 'unavailable',
        reason: redis.lastError() ?? `not connected within ${connectTimeout} ms`,
      },
      'Redis is unreachable: calls needing approval are refused until it answers',
    );

  const keyOf = (callerId: string, tool: string, digest: string, kind: RecordKind): string =>
    `${prefix}k:${requestKey(callerId, tool, digest, kind)}`;
  /** What the scripts store as the kind: nothing for an approval, as earlier versions wrote. */
  const kindField = (kind: RecordKind): string => (kind === 'approval' ? '' : kind);

  return {
    async request(req: ApprovalRequest): Promise<RequestOutcome> {
      const t = now();
      const ttl = Math.max(1, req.expiresAt - t + retainMs);
      const recordKind = req.kind ?? 'approval';
      const callerSet = recordKind === 'approval' ? 'c' : 'cf';
      const [kind, flat, soonest] = await cmd.mcpbApprovalRequest(
        keyOf(req.callerId, req.tool, req.argumentsDigest, recordKind),
        `${prefix}${callerSet}:${createHash('sha256').update(req.callerId).digest('base64url')}`,
        prefix,
        String(t),
        String(ttl),
        newApprovalId(),
        req.callerId,
        req.tool,
        req.argumentsDigest,
        req.message,
        req.scope,
        String(req.expiresAt),
        String(MAX_PENDING_PER_CALLER),
        kindField(recordKind),
        String(req.requestedAt ?? t),
      );
      if (kind === 'full')
        return { kind, pending: Number(flat), soonestExpiresAt: Number(soonest) };
      const approval = toApproval(flat as Flat);
      if (approval.status !== 'pending') return { kind: 'decided', approval };
      return { kind: 'pending', approval, created: kind === 'created' };
    },

    async listPending(scopesHeld: ScopesHeld): Promise<readonly Approval[]> {
      const t = now();
      const pendingKey = `${prefix}pending`;
      // Entries whose record lapsed are dropped here; decided ones left the set when decided.
      await client.zremrangebyscore(pendingKey, '-inf', String(t));
      const ids = await client.zrangebyscore(pendingKey, `(${t}`, '+inf');
      if (ids.length === 0) return [];
      const pipe = client.pipeline();
      for (const id of ids) pipe.hgetall(`${prefix}a:${id}`);
      const rows = (await pipe.exec()) ?? [];
      const out: Approval[] = [];
      for (const [err, rec] of rows) {
        if (err) throw err;
        const fields = rec as Record<string, string>;
        if (!fields.id) continue;
        const a = toApproval(Object.entries(fields).flat());
        if (a.kind !== 'approval') continue;
        if (a.status === 'pending' && a.expiresAt > t && holdsScope(scopesHeld, a.scope))
          out.push(a);
      }
      return out;
    },

    async decide(
      id: string,
      decision: Decision,
      deciderId: string,
      deciderScopes: ScopesHeld,
      recordKind: RecordKind = 'approval',
    ): Promise<DecideOutcome> {
      if (!isApprovalIdShape(id)) return refused('unknown');
      const [kind, rest] = await cmd.mcpbApprovalDecide(
        `${prefix}a:${id}`,
        prefix,
        String(now()),
        decision === 'approve' ? 'approved' : 'declined',
        deciderId,
        kindField(recordKind),
        deciderScopes === 'all' ? '1' : '0',
        ...(deciderScopes === 'all' ? [] : [...deciderScopes]),
      );
      if (kind === 'decided') return { kind: 'decided', approval: toApproval(rest as Flat) };
      return refused(rest as DecideRefusal);
    },

    async find(id: string, kind: RecordKind): Promise<Approval | undefined> {
      if (!isApprovalIdShape(id)) return undefined;
      const fields = await client.hgetall(`${prefix}a:${id}`);
      if (!fields.id) return undefined;
      const a = toApproval(Object.entries(fields).flat());
      return a.kind === kind ? a : undefined;
    },

    async consume(
      callerId: string,
      tool: string,
      argumentsDigest: string,
      recordKind: RecordKind = 'approval',
    ): Promise<ConsumeOutcome> {
      const [kind, flat] = await cmd.mcpbApprovalConsume(
        keyOf(callerId, tool, argumentsDigest, recordKind),
        prefix,
        String(now()),
      );
      if (kind === 'none') return { kind: 'none' };
      if (kind === 'expired') return { kind: 'expired' };
      const approval = toApproval(flat ?? []);
      if (kind === 'run' || kind === 'pending' || kind === 'declined') return { kind, approval };
      throw new Error(`unexpected answer from the approval script: ${kind}`);
    },

    async close() {
      client.disconnect();
    },
  };
}
