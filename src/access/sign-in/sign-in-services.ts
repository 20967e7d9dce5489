/**
 * What the gateway as an authorization server keeps for the life of the process
 * (spec-language.md, "Sign-in for MCP clients"),
 * opened at start beside the consent stores: the keys derived from `access token-key-env`
 * and the sealer built on them, the provider found by discovery, the store that makes
 * codes and refresh tokens single use (Redis with `limits redis-env`, so a code spent at
 * one replica is spent at all), and the fetcher of client ID metadata documents.
 * A spec without `sign-in` opens nothing.
 */
import type { Logger } from 'pino';
import type { CompiledSpec, SignInDescriptor } from '../../compiler/descriptor.js';
import type { Env } from '../../process/env.js';
import { StartupError } from '../../process/startup-error.js';
import { redisUrlFrom } from '../../engine/redis/redis-url.js';
import { createMemorySpentStates, type SpentStates } from '../../engine/consent/spent-states.js';
import { Sealer } from './sealed.js';
import { tokenKeysFrom, type TokenKeys } from './token-key.js';
import {
  createIdentityProvider,
  discoverProvider,
  type IdentityProvider,
} from './identity-provider.js';
import type { ClientMetadataFetcher } from './sign-in-types.js';
import {
  createClientMetadataFetcher,
  type ClientMetadataFetcherOptions,
} from './client-metadata-document.js';

/** One sign-in event for the audit log: who and which client, never a token. */
export interface SignInAuditLine {
  readonly event:
    | 'sign_in'
    | 'page_sign_in'
    | 'token_issued'
    | 'token_refreshed'
    | 'client_registered'
    | 'refused';
  readonly sub?: string;
  readonly clientId?: string;
  /** RFC 6749 error of a refusal, and what it was about (never the input). */
  readonly error?: string;
  readonly reason?: string;
}

export interface SignInServices {
  readonly descriptor: SignInDescriptor;
  readonly keys: TokenKeys;
  readonly sealer: Sealer;
  readonly provider: IdentityProvider;
  /** Single use of codes and refresh tokens, by their `jti`. */
  readonly spent: SpentStates;
  /** Resolves an https `client_id` (a client ID metadata document). */
  readonly clientMetadata: ClientMetadataFetcher;
  /** The client secret and the token key's text: redacted from every log line. */
  readonly secrets: readonly string[];
  audit(line: SignInAuditLine): void;
  close(): Promise<void>;
}

export interface SignInServiceOptions {
  readonly env: Env;
  readonly log?: Logger;
  /**
   * How client ID metadata documents are fetched (client-metadata-document.ts): tests let
   * it reach 127.0.0.1; `serve` sets nothing, and private addresses stay refused.
   */
  readonly clientMetadataFetch?: ClientMetadataFetcherOptions;
}

function variable(env: Env, name: string, what: string): string {
  const value = env[name];
  if (value === undefined || value === '')
    throw new StartupError(
      `access sign-in: the variable ${name} (${what}) is not set; set it to the value your identity provider gave the gateway's client`,
    );
  return value;
}

export async function createSignInServices(
  spec: CompiledSpec,
  opts: SignInServiceOptions,
): Promise<SignInServices | undefined> {
  const descriptor = spec.access?.signIn;
  const tokenKeyEnv = spec.access?.tokenKeyEnv;
  if (!descriptor || tokenKeyEnv === undefined) return undefined;
  const read = await tokenKeysFrom(tokenKeyEnv, opts.env[tokenKeyEnv]);
  if (!read.ok) throw new StartupError(read.message);
  const clientId = variable(opts.env, descriptor.clientIdEnv, 'client-id-env');
  const clientSecret = variable(opts.env, descriptor.clientSecretEnv, 'client-secret-env');
  // The provider is found once, before serving: a wrong issuer stops start-up, not a sign-in.
  const found = await discoverProvider(descriptor.issuer);
  if (!found.ok) throw new StartupError(found.message);
  const provider = createIdentityProvider(descriptor, found.endpoints, {
    id: clientId,
    secret: clientSecret,
  });
  let spent: SpentStates;
  if (spec.redisEnv !== undefined) {
    const url = redisUrlFrom(
      spec.redisEnv,
      opts.env,
      'to keep sign-in codes and refresh tokens per pod',
    );
    const { createRedisSpentStates } = await import('../../engine/consent/redis-spent-states.js');
    spent = await createRedisSpentStates(url, {
      prefix: 'mcpb:signin:',
      what: 'sign-in codes and refresh tokens',
      ...(opts.log && { log: opts.log }),
    });
  } else {
    spent = createMemorySpentStates();
  }
  const log = opts.log;
  const clientMetadata = createClientMetadataFetcher(opts.clientMetadataFetch);
  return {
    descriptor,
    keys: read.keys,
    sealer: new Sealer(read.keys.sealing),
    provider,
    spent,
    clientMetadata,
    secrets: [clientSecret, opts.env[tokenKeyEnv]!],
    audit(line) {
      if (!log) return;
      const fields = {
        audit: 'sign_in',
        event: line.event,
        ...(line.sub !== undefined && { sub: line.sub }),
        ...(line.clientId !== undefined && { client: clientLabel(line.clientId) }),
        ...(line.error !== undefined && { error: line.error }),
        ...(line.reason !== undefined && { reason: line.reason }),
      };
      if (line.event === 'refused') log.warn(fields, 'sign-in refused');
      else log.info(fields, line.event.replace('_', ' '));
    },
    close: async () => {
      await Promise.all([spent.close(), clientMetadata.close()]);
    },
  };
}

/**
 * How a client is named in a log line: a metadata document URL as it is, a sealed
 * registration by a short digest (the sealed text is long and says nothing to a reader).
 */
function clientLabel(clientId: string): string {
  if (clientId.startsWith('https://')) return clientId.slice(0, 300);
  return `registered:${clientId.slice(0, 12)}`;
}
