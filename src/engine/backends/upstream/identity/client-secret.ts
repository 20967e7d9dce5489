/**
 * The client the gateway is at a token endpoint (`client-id-env`, `client-secret-env`),
 * read once at start-up: a missing variable stops start-up naming it, as a static
 * credential's does (credentials.ts).
 */
import type { TokenAuth } from '../../../../compiler/descriptor.js';
import type { TokenClient } from '../../../../outbound/token-request.js';
import type { Env } from '../../../../process/env.js';
import { StartupError } from '../../../../process/startup-error.js';

function read(env: Env, name: string, what: string): string {
  const v = env[name];
  if (v === undefined || v === '')
    throw new StartupError(
      `environment variable ${name} is not set; the spec's \`auth\` reads the ${what} from it`,
    );
  return v;
}

export function tokenClient(auth: TokenAuth, env: Env): TokenClient {
  return {
    id: read(env, auth.clientIdEnv, 'token endpoint client id'),
    secret: read(env, auth.clientSecretEnv, 'token endpoint client secret'),
  };
}
