/**
 * Whether a reload may change `sign-in` (spec-language.md, "Sign-in for MCP clients"). Kept
 * apart from sign-in-services.ts so that a gateway without sign-in loads none of the
 * authorization server (jose, the provider client) to ask.
 */
import type { CompiledSpec } from '../../compiler/descriptor.js';
import type { SignInServices } from './sign-in-services.js';

/**
 * Why a reload to `spec` is refused, or undefined: the provider and the keys are opened once
 * per process, so a spec that adds `sign-in` or changes it (issuer, client, scopes, claim,
 * token key) would be served with what start-up opened. Dropping it is fine: the routes
 * close and the gateway's tokens are no longer accepted.
 */
export function signInReloadRefusal(
  spec: CompiledSpec,
  opened: SignInServices | undefined,
  openedTokenKeyEnv: string | undefined,
): string | undefined {
  const next = spec.access?.signIn;
  if (!next) return undefined;
  if (!opened)
    return 'access sign-in was added: the authorization server is opened at start; restart the gateway to serve it';
  if (
    JSON.stringify(next) !== JSON.stringify(opened.descriptor) ||
    spec.access?.tokenKeyEnv !== openedTokenKeyEnv
  )
    return 'access sign-in or token-key-env changed: the authorization server keeps what it opened at start; restart the gateway to apply the change';
  return undefined;
}
