/**
 * What the gateway as an authorization server keeps for the life of the process
 * (spec-language.md, "Sign-in for MCP clients"), opened at start beside the consent
 * stores: the keys derived from `access token-key-env` and the sealer built on them.
 * A spec without `sign-in` opens nothing.
 */
import type { CompiledSpec, SignInDescriptor } from '../../compiler/descriptor.js';
import type { Env } from '../../process/env.js';
import { StartupError } from '../../process/startup-error.js';
import { Sealer } from './sealed.js';
import { tokenKeysFrom, type TokenKeys } from './token-key.js';

export interface SignInServices {
  readonly descriptor: SignInDescriptor;
  readonly keys: TokenKeys;
  readonly sealer: Sealer;
  close(): Promise<void>;
}

export interface SignInServiceOptions {
  readonly env: Env;
}

export async function createSignInServices(
  spec: CompiledSpec,
  opts: SignInServiceOptions,
): Promise<SignInServices | undefined> {
  const descriptor = spec.access?.signIn;
  const variable = spec.access?.tokenKeyEnv;
  if (!descriptor || variable === undefined) return undefined;
  const read = await tokenKeysFrom(variable, opts.env[variable]);
  if (!read.ok) throw new StartupError(read.message);
  return {
    descriptor,
    keys: read.keys,
    sealer: new Sealer(read.keys.sealing),
    close: async () => {},
  };
}
