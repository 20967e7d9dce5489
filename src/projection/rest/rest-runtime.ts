/**
 * What the REST routes (rest-routes.ts, resource-prompt-routes.ts) read from the spec being
 * served now; a reload swaps it whole. Its own file so both route files can name it
 * without importing each other.
 */
import type { AccessControl } from '../../access/access-control.js';
import type { Caller } from '../../engine/caller.js';
import type { Gateway } from '../../engine/gateway.js';
import type { Toolset } from '../../engine/view/toolsets.js';
import type { ResourcePromptListing } from './resource-prompt-listing.js';
import type { Telemetry } from '../../telemetry/telemetry.js';
import type { ConnectionServices } from '../../connections/connection-services.js';

/** The listing of GET /api, prepared once per loaded spec. */
export interface RestListing {
  /** The body for this caller: of the whole spec, or of `toolset`'s members only. */
  forCaller(caller: Caller, toolset?: Toolset): string;
  /** The prepared answer to POST /api/resources/read of a fixed resource. */
  fixedRead: ResourcePromptListing['fixedRead'];
}

export interface RestRuntime {
  readonly gateway: Gateway;
  readonly access: AccessControl;
  readonly restListing: RestListing;
  /** Spans for calls (issue 30); TELEMETRY_OFF when absent. */
  readonly telemetry?: Telemetry;
  /** With an `oauth-provider`: the connected accounts (`/api/connections`). */
  readonly connections?: ConnectionServices;
}
