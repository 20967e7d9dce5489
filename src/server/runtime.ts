/**
 * Everything built from one compiled spec: the prepared gateway, inbound access, the
 * request guard and the precompiled listings of both projections. A reload builds a
 * new Runtime and swaps it in whole; a request keeps the one it started with.
 */
import type { Logger } from 'pino';
import { createAccessControl } from '../access/access-control.js';
import type { Env } from '../process/env.js';
import { releaseStartupGarbage } from '../process/release-memory.js';
import type { Observer } from '../telemetry/observer.js';
import { Gateway } from '../engine/gateway.js';
import type { ConsentServices } from '../engine/consent/consent-types.js';
import type { RateLimiter } from '../engine/rate-limit/rate-limiter.js';
import { MCP_PATH, type McpRuntime } from '../projection/mcp/mcp-routes.js';
import { buildPayloads } from '../projection/mcp/payloads.js';
import { sessionSealOf } from '../projection/mcp/session-id.js';
import type { OpenQuestions } from '../projection/mcp/open-questions.js';
import { prepareRestListing, type RestRuntime } from '../projection/rest/rest-routes.js';
import type { CompiledSpec } from '../compiler/descriptor.js';
import { prepareRequestGuard, type RequestGuard } from './request-guards.js';
import { TELEMETRY_OFF, type Telemetry } from '../telemetry/telemetry.js';
import type { SignInServices } from '../access/sign-in/sign-in-services.js';
import type { ConnectionServices } from '../connections/connection-services.js';

export interface Runtime extends RestRuntime, McpRuntime {
  readonly spec: CompiledSpec;
  readonly guard: RequestGuard;
  /** 1 for the spec loaded at start, then one more per successful reload. */
  readonly generation: number;
  /** With `sign-in`: the authorization server's keys and stores (one per process). */
  readonly signIn?: SignInServices;
  /** With an `oauth-provider`: the connected accounts (one per process). */
  readonly connections?: ConnectionServices;
}

export interface RuntimeOptions {
  readonly env: Env;
  readonly publicUrl?: string;
  readonly allowedHosts: readonly string[];
  readonly loopbackOnly: boolean;
  readonly maxInFlight?: number;
  readonly log?: Logger;
  /** Where each call and each upstream call is reported (server/audit.ts). */
  readonly observer?: Observer;
  /** One per server process, so rate-limit counts survive reloads. */
  readonly rateLimiter?: RateLimiter;
  /** One per server process, so pending approvals and spent states survive reloads. */
  readonly consent?: ConsentServices;
  /** One per server process: the 2025-era questions waiting on their answers. */
  readonly questions?: OpenQuestions;
  /** One per server process (TELEMETRY_OFF when absent): the spans of requests and calls. */
  readonly telemetry?: Telemetry;
  /** One per server process, with `sign-in`: the authorization server's keys and stores. */
  readonly signIn?: SignInServices;
  /** One per server process, with an `oauth-provider`: the connected accounts. */
  readonly connections?: ConnectionServices;
}

/** How long after the warm-up start-up's garbage is collected. */
const RELEASE_AFTER_MS = 250;

export async function buildRuntime(
  spec: CompiledSpec,
  generation: number,
  opts: RuntimeOptions,
): Promise<Runtime> {
  // The process's sign-in services serve only a spec that still signs in: a reload that
  // drops `sign-in` stops accepting the gateway's own tokens with it.
  const signIn = spec.access?.signIn ? opts.signIn : undefined;
  // Access first: a missing API-key variable stops the load before any pool opens.
  const access = await createAccessControl(spec.access, {
    env: opts.env,
    mcpPath: MCP_PATH,
    toolsets: spec.toolsets.map((t) => t.name),
    ...(opts.publicUrl && { publicUrl: opts.publicUrl }),
    ...(signIn && { signIn }),
  });
  const gateway = await Gateway.prepare(spec, {
    env: opts.env,
    // The providers' client secrets are redacted like the API keys.
    extraSecrets: [...access.secrets, ...(opts.connections?.secrets ?? [])],
    ...(opts.log && { log: opts.log }),
    ...(opts.maxInFlight && { maxInFlight: opts.maxInFlight }),
    ...(opts.observer && { observer: opts.observer }),
    ...(opts.rateLimiter && { rateLimiter: opts.rateLimiter }),
    ...(opts.consent && { consent: opts.consent }),
    ...(opts.connections && { connections: opts.connections }),
  });
  // Validators compile in the background: readiness does not wait for a large spec.
  // Then what start-up left behind is given back (release-memory.ts), a moment later:
  // a small spec warms up before its first /readyz, and the collection would delay it.
  void gateway
    .warmUp((tool, message) =>
      opts.log?.error(
        { tool, err: message },
        'the input schema of a tool does not compile; its calls will fail',
      ),
    )
    .then(() => setTimeout(releaseStartupGarbage, RELEASE_AFTER_MS).unref());
  return {
    spec,
    generation,
    gateway,
    access,
    telemetry: opts.telemetry ?? TELEMETRY_OFF,
    restListing: prepareRestListing(gateway),
    // The consent key seals the 2025 era's session ids too (a key of its own, derived).
    ...(gateway.consent && { sessions: sessionSealOf(gateway.consent.key) }),
    ...(opts.questions && { questions: opts.questions }),
    ...(signIn && { signIn }),
    ...(opts.connections && { connections: opts.connections }),
    mcpPayloads: buildPayloads(gateway, access.enabled),
    // Every toolset's endpoint is ready at boot, as /mcp is: a request only looks it up.
    toolsetPayloads: new Map(
      [...gateway.toolsets.values()].map((t) => [
        t.name,
        buildPayloads(gateway, access.enabled, t),
      ]),
    ),
    guard: prepareRequestGuard({
      allowOrigins: spec.access?.allowOrigins ?? [],
      allowedHosts: opts.allowedHosts,
      loopbackOnly: opts.loopbackOnly,
    }),
  };
}
