/**
 * The upstream credential (spec-language.md, `auth`), read from the environment once
 * at start-up. A missing variable stops start-up naming it; the value never leaves
 * this module except as a header or query value bound for the spec's own base-url.
 */
import type { UpstreamAuth } from '../../../spec/descriptor.js';
import { StartupError } from '../../startup-error.js';
import type { Env } from '../backend.js';

export interface Credential {
  readonly headers: readonly (readonly [string, string])[];
  readonly query: readonly (readonly [string, string])[];
  /** Every form in which the secret could be echoed back, for redaction. */
  readonly secrets: readonly string[];
}

const NONE: Credential = { headers: [], query: [], secrets: [] };

function read(env: Env, name: string): string {
  const v = env[name];
  if (v === undefined || v === '') {
    throw new StartupError(
      `environment variable ${name} is not set; the spec's \`auth\` reads the upstream credential from it`,
    );
  }
  return v;
}

export function resolveCredential(auth: UpstreamAuth | undefined, env: Env): Credential {
  if (!auth) return NONE;
  switch (auth.kind) {
    case 'bearer': {
      const token = read(env, auth.env);
      return { headers: [['authorization', `Bearer ${token}`]], query: [], secrets: [token] };
    }
    case 'header': {
      const value = read(env, auth.env);
      return {
        headers: [[auth.header.toLowerCase(), `${auth.prefix}${value}`]],
        query: [],
        secrets: [value],
      };
    }
    case 'basic': {
      const user = read(env, auth.usernameEnv);
      const pass = read(env, auth.passwordEnv);
      const encoded = Buffer.from(`${user}:${pass}`).toString('base64');
      return {
        headers: [['authorization', `Basic ${encoded}`]],
        query: [],
        // The user name is not a secret: redacting every "admin" in results would hurt.
        secrets: [encoded, pass],
      };
    }
    case 'query': {
      const value = read(env, auth.env);
      return {
        headers: [],
        query: [[auth.param, value]],
        secrets: [value, encodeURIComponent(value)],
      };
    }
  }
}
