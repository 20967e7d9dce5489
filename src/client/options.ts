/**
 * The command line of the remote commands (`tools <url>`, `call`, `discover`):
 * kept apart from connect.ts so that parsing it does not load the MCP client.
 */
import { parseDuration } from '../compiler/values.js';
import type { Era } from '../mcp-wire/versions.js';

/** `--era`: an era, or `auto` (server/discover first, initialize when the server is older). */
export type EraChoice = 'auto' | Era;
export const ERAS: readonly EraChoice[] = ['auto', 'modern', 'legacy'];
export const DEFAULT_TIMEOUT_MS = 30_000;

export interface RemoteOptions {
  readonly url: URL;
  readonly headers: Headers;
  readonly era: EraChoice;
  readonly timeoutMs: number;
}

/** The remote flags as given (src/cli/commands/remote-flags.ts declares them). */
export interface RemoteArgValues {
  header?: string[];
  'bearer-env'?: string;
  era?: string;
  timeout?: string;
}

export class UsageError extends Error {}

export function isRemoteTarget(text: string): boolean {
  return /^https?:\/\//i.test(text);
}

/** Validates the URL and the remote options; throws UsageError naming what is wrong. */
export function remoteOptions(
  target: string,
  values: RemoteArgValues,
  env: NodeJS.ProcessEnv = process.env,
): RemoteOptions {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw new UsageError(`${JSON.stringify(target)} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${JSON.stringify(target)} is not an http:// or https:// URL`);
  }
  const headers = new Headers();
  for (const line of values.header ?? []) {
    const colon = line.indexOf(':');
    const name = colon < 0 ? '' : line.slice(0, colon).trim();
    if (!name) throw new UsageError(`--header ${JSON.stringify(line)} is not 'Name: value'`);
    try {
      headers.append(name, line.slice(colon + 1).trim());
    } catch {
      throw new UsageError(`--header ${JSON.stringify(line)} is not a valid HTTP header`);
    }
  }
  const bearerEnv = values['bearer-env'];
  if (bearerEnv !== undefined) {
    const token = env[bearerEnv];
    if (!token) throw new UsageError(`--bearer-env ${bearerEnv}: the variable is not set`);
    if (headers.has('authorization')) {
      throw new UsageError('--bearer-env and --header Authorization: give only one');
    }
    try {
      headers.set('authorization', `Bearer ${token.trim()}`);
    } catch {
      throw new UsageError(`--bearer-env ${bearerEnv}: the token is not a valid header value`);
    }
  }
  const era = (values.era ?? 'auto') as EraChoice;
  if (!ERAS.includes(era)) {
    throw new UsageError(`--era ${JSON.stringify(values.era)}: use auto, modern or legacy`);
  }
  let timeoutMs = DEFAULT_TIMEOUT_MS;
  if (values.timeout !== undefined) {
    const t = values.timeout;
    const ms = /^\d{1,6}$/.test(t) ? Number(t) * 1000 : parseDuration(t);
    if (!ms) throw new UsageError(`--timeout ${JSON.stringify(t)} is not a duration like 10s`);
    timeoutMs = ms;
  }
  return { url, headers, era, timeoutMs };
}

/**
 * `remoteOptions` for a command that reads nothing else from its flags: a bad flag value
 * is handed to `badValue`, whose exit code is returned instead.
 */
export function remoteOptionsOr(
  target: string,
  values: RemoteArgValues,
  badValue: (message: string) => number,
): RemoteOptions | number {
  try {
    return remoteOptions(target, values);
  } catch (err) {
    if (err instanceof UsageError) return badValue(err.message);
    throw err;
  }
}
