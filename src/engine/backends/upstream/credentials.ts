/**
 * The upstream credential (spec-language.md, `auth`), read from the environment once
 * at start-up. A missing variable stops start-up naming it; the value never leaves
 * this module except as a header or query value bound for the spec's own base-url.
 */
import type { UpstreamAuth } from '../../../compiler/descriptor.js';
import { StartupError } from '../../../process/startup-error.js';
import type { Env } from '../../../process/env.js';
import { formComponent, percentComponent } from './query-encoding.js';

export interface Credential {
  readonly headers: readonly (readonly [string, string])[];
  readonly query: readonly (readonly [string, string])[];
  /**
   * The secret values, for redaction in every spelling (redact.ts), and the exact text
   * sent where it differs (a query value as the URL carries it).
   */
  readonly secrets: readonly string[];
  /** Whole values as sent (`Bearer <t>`, `user:pass`), for redaction of their base64. */
  readonly sent: readonly string[];
}

const NONE: Credential = { headers: [], query: [], secrets: [], sent: [] };

function read(env: Env, name: string): string {
  const v = env[name];
  if (v === undefined || v === '') {
    throw new StartupError(
      `environment variable ${name} is not set; the spec's \`auth\` reads the upstream credential from it`,
    );
  }
  return v;
}

/** The variables `auth` reads, in the order it reads them. */
export function credentialVariables(auth: UpstreamAuth | undefined): string[] {
  if (!auth || auth.kind === 'user') return [];
  if ('tokenUrl' in auth) return [auth.clientIdEnv, auth.clientSecretEnv];
  return auth.kind === 'basic' ? [auth.usernameEnv, auth.passwordEnv] : [auth.env];
}

/** A static `auth` read from the environment; a token `auth` sends nothing of its own here. */
export function resolveCredential(auth: UpstreamAuth | undefined, env: Env): Credential {
  if (!auth) return NONE;
  switch (auth.kind) {
    case 'client-credentials':
    case 'exchange':
    case 'user':
      return NONE;
    case 'bearer': {
      const token = read(env, auth.env);
      const header = `Bearer ${token}`;
      return { headers: [['authorization', header]], query: [], secrets: [token], sent: [header] };
    }
    case 'header': {
      const value = read(env, auth.env);
      const header = `${auth.prefix}${value}`;
      return {
        headers: [[auth.header.toLowerCase(), header]],
        query: [],
        secrets: [value],
        sent: [header],
      };
    }
    case 'basic': {
      const user = read(env, auth.usernameEnv);
      const pass = read(env, auth.passwordEnv);
      const pair = `${user}:${pass}`;
      const encoded = Buffer.from(pair).toString('base64');
      const header = `Basic ${encoded}`;
      return {
        headers: [['authorization', header]],
        query: [],
        // The user name is not a secret: redacting every "admin" in results would hurt.
        // The encoded pair is one too, so that it is found in every spelling, not only
        // as the base64 of `sent`.
        secrets: [pass, encoded],
        sent: [pair, header],
      };
    }
    case 'query': {
      const value = read(env, auth.env);
      // The URL carries the value escaped by the grant's query encoding (http/url.ts builds
      // the query with the same functions): the credential is shared by every grant, so
      // the exact text of both encodings is a secret of its own.
      const spellings = [...new Set([formComponent, percentComponent].map((c) => c(value)))];
      const pairs = [formComponent, percentComponent].map((c) => `${c(auth.param)}=${c(value)}`);
      return {
        headers: [],
        query: [[auth.param, value]],
        secrets: [value, ...spellings],
        sent: [...new Set(pairs)],
      };
    }
  }
}
