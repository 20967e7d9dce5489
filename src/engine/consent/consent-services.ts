/**
 * The key and stores behind `confirm` and `approve`, made once for a server process
 * (reloads keep them, so pending approvals and spent states outlive a reload): in memory,
 * or in Redis when `limits redis-env` is set, so that any replica can take a retry and a
 * restarted one still sees what is pending (docs/spec-language.md, "Confirmation and
 * approval").
 */
import type { Logger } from 'pino';
import type { CompiledSpec } from '../../compiler/descriptor.js';
import type { Env } from '../../process/env.js';
import { redisUrlFrom } from '../redis/redis-url.js';
import { StartupError } from '../../process/startup-error.js';
import type { ApprovalStore } from './approvals.js';
import { consentKeyFrom, randomConsentKey } from './consent-key.js';
import type { ConsentAudit, ConsentServices } from './consent-types.js';
import { createMemoryApprovalStore } from './memory-approval-store.js';
import { createMemorySpentStates, type SpentStates } from './spent-states.js';

export interface OwnedConsentServices extends ConsentServices {
  /** Where the state lives, for the start-up line: 'memory' or 'redis'. */
  readonly shared: boolean;
  close(): Promise<void>;
}

export interface ConsentServicesOptions {
  readonly env: Env;
  readonly log?: Pick<Logger, 'warn' | 'info'>;
  readonly audit?: ConsentAudit;
}

/** Whether any grant of the spec has `confirm` or `approve`. */
export function hasConsent(spec: CompiledSpec): boolean {
  return spec.tools.some((d) => d.consent !== undefined);
}

// One random key per process when the spec names none: reloads keep sealing with it.
let processKey: ReturnType<typeof randomConsentKey> | undefined;

/**
 * Seals with `key` instead of a random one of this process: a worker of `serve --workers`
 * takes the key its primary made, so a state sealed by one worker opens in every other.
 */
export function adoptProcessKey(key: ReturnType<typeof randomConsentKey>): void {
  processKey = key;
}

export async function createConsentServices(
  spec: CompiledSpec,
  opts: ConsentServicesOptions,
): Promise<OwnedConsentServices> {
  const variable = spec.access?.confirmKeyEnv;
  let key;
  if (variable !== undefined) {
    const read = consentKeyFrom(variable, opts.env[variable]);
    if (!read.ok) throw new StartupError(read.message);
    key = read.key;
  } else {
    key = processKey ??= randomConsentKey();
    if (spec.tools.some((d) => d.consent?.confirm))
      opts.log?.warn(
        'confirmation states are sealed with a key of this process (shared by its workers): a retry must reach the same replica. Set access confirm-key-env="V" to a variable holding 32 random bytes (hex or base64) shared by every replica',
      );
  }
  let spent: SpentStates;
  let approvals: ApprovalStore;
  const shared = spec.redisEnv !== undefined && hasConsent(spec);
  if (shared) {
    const url = redisUrlFrom(
      spec.redisEnv!,
      opts.env,
      'to keep confirmations and approvals per pod',
    );
    // Loaded only here, as for the rate limiter: ioredis costs every process that imports it.
    const [{ createRedisSpentStates }, { createRedisApprovalStore }] = await Promise.all([
      import('./redis-spent-states.js'),
      import('./redis-approval-store.js'),
    ]);
    spent = await createRedisSpentStates(url, { ...(opts.log && { log: opts.log }) });
    try {
      approvals = await createRedisApprovalStore(url, { ...(opts.log && { log: opts.log }) });
    } catch (err) {
      await spent.close();
      throw err;
    }
  } else {
    spent = createMemorySpentStates();
    approvals = createMemoryApprovalStore();
  }
  return {
    key,
    spent,
    approvals,
    shared,
    ...(opts.audit && { audit: opts.audit }),
    async close() {
      await Promise.all([spent.close(), approvals.close()]);
    },
  };
}
