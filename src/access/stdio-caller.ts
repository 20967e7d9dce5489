/**
 * Who calls over stdio (`serve --stdio`). The process has one caller, the local user
 * whose host launched it, and no request carries a credential, so it is decided once,
 * at start:
 * - a spec without `access` trusts whoever can reach it, as a loopback listener does:
 *   the local user holds every scope;
 * - a spec with `access` says who may call what, and stdio does not step around it: the
 *   caller acts as one of the spec's API keys, read from the variable `--key-env` names
 *   (its scopes, its id in the audit lines). Without one, start-up stops. An OAuth token
 *   is not taken here: it expires, and a host's config file holds it for months.
 */
import type { AccessDescriptor } from '../compiler/descriptor.js';
import type { Caller } from '../engine/caller.js';
import type { Env } from '../process/env.js';
import { StartupError } from '../process/startup-error.js';
import { loadApiKeys } from './api-keys.js';

/** The local user of a spec without `access`: every scope, named in the audit lines. */
export const LOCAL_USER: Caller = Object.freeze({ id: 'stdio', scopes: 'all' });

export function stdioCaller(
  access: AccessDescriptor | undefined,
  env: Env,
  keyEnv: string | undefined,
): Caller {
  if (!access) {
    if (keyEnv === undefined) return LOCAL_USER;
    throw new StartupError(
      `--key-env ${keyEnv}: the spec has no \`access\` block, so there is no key to act as; the stdio caller holds every scope (drop --key-env)`,
    );
  }
  if (keyEnv === undefined)
    throw new StartupError(
      `the spec has an \`access\` block: name the variable holding the API key the stdio caller acts as, with --key-env NAME${access.apiKeys.length === 0 ? ' (the spec has oauth only: add an `api-key` to its access block)' : ''}`,
    );
  const key = env[keyEnv]?.trim();
  if (!key)
    throw new StartupError(`--key-env ${keyEnv}: environment variable ${keyEnv} is not set`);
  const caller = loadApiKeys(access, env).match(key);
  if (!caller)
    throw new StartupError(
      `--key-env ${keyEnv}: the value of ${keyEnv} is none of the spec's API keys (${access.apiKeys.map((k) => k.env).join(', ') || 'it has none'})`,
    );
  return caller;
}
