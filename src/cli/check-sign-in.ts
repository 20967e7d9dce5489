/**
 * `check`'s line about `sign-in` (spec-language.md, "Sign-in for MCP clients"): what the
 * team must configure at its identity provider, said where they read the spec's summary.
 * The provider's issuer, the redirect URI its client must hold (the gateway's `/callback`
 * under `--public-url`, which only the operator knows), and the ID-token claim the
 * gateway scopes come from: without `grant-scopes` a person signed in holds none, which
 * reads as a working sign-in whose every call is refused, so it is said here.
 */
import type { CompiledSpec } from '../compiler/descriptor.js';

/** What the redirect URI reads as when `check` is not told the gateway's public URL. */
export const UNKNOWN_GATEWAY = 'https://<your gateway>';

/** `--public-url`: an absolute http(s) URL without query or fragment, else a reason. */
export function publicUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `--public-url ${JSON.stringify(value)} is not an absolute URL`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return `--public-url must be an http or https URL, not ${url.protocol}`;
  if (url.search || url.hash) return '--public-url must have no query or fragment';
  return undefined;
}

/** The redirect URI the gateway sends to the provider: its `/callback` under the public URL. */
export function callbackUri(publicUrl: string | undefined): string {
  return `${(publicUrl ?? UNKNOWN_GATEWAY).replace(/\/+$/, '')}/callback`;
}

/**
 * `  sign-in  issuer https://…  redirect URI https://mcp.example.com/callback  scopes from claim roles`,
 * or nothing for a spec without sign-in.
 */
export function signInCheckLines(spec: CompiledSpec, publicUrl?: string): string[] {
  const signIn = spec.access?.signIn;
  if (!signIn) return [];
  const scopes =
    signIn.grantScopesFromClaim === undefined
      ? 'no grant-scopes: a person signed in holds no scope'
      : `scopes from claim ${signIn.grantScopesFromClaim}`;
  return [`  sign-in  issuer ${signIn.issuer}  redirect URI ${callbackUri(publicUrl)}  ${scopes}`];
}
