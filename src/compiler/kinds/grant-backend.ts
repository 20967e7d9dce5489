/**
 * What a backend sub-kind of the grant is (spec-language.md, "Grants"): the children it
 * adds to `can` (HTTP: path, query, body, set; sql: sql, params, max-rows), its slice of
 * the top-level settings, its checks, and its lowering to the descriptor's `backend`.
 * The grant kind (kinds/grant.ts) holds the table of them and dispatches through it; a
 * new backend is one more module that implements this, named by its kind's descriptor
 * (engine/backends/<kind>/<kind>-kind.ts), and one more row of that table.
 */
import type { Claims } from '../argument-claims.js';
import type { Diagnostics, Located, Position, SpecErrorCode, Subject } from '../diagnostics.js';
import type {
  AccessDescriptor,
  JsonSchema,
  RateLimit,
  ToolDescriptor,
  UpstreamAuth,
} from '../descriptor.js';
import type { FieldSpec } from '../field-types.js';
import { childNamed, type Built, type TableRow } from '../kdl-reader.js';
import type { Placement } from '../placement.js';
import type { HttpMethod } from '../verbs.js';
import type { ApproveSpec, ConfirmSpec } from './consent.js';
import type { FieldLabel } from './field.js';
import type { RestrictSpec } from './restrict.js';
import type { UpstreamSettings } from './upstream.js';

/** A `can <verb> <resource>` node as read: its common children and its backend's, unread. */
export interface GrantSpec {
  /** The tool name (`can create issue-comment` → `create_issue_comment`), once. */
  readonly name: string;
  readonly verb: Located<string>;
  readonly resource: string;
  readonly at: Position;
  readonly describe?: string;
  readonly title?: string;
  readonly method?: Located<string>;
  /** `pick` / `omit`: the node's place, and each path with its own. */
  readonly pick?: Located<readonly Located<string>[]>;
  readonly omit?: Located<readonly Located<string>[]>;
  readonly scopes: readonly string[];
  readonly rateLimit?: RateLimit;
  readonly timeoutMs?: number;
  readonly maxBytes?: number;
  readonly budgetBytes?: number;
  /** `confirm` and `approve` (kinds/consent.ts). */
  readonly confirm?: ConfirmSpec;
  readonly approve?: ApproveSpec;
  /** The children some backend owns, as built: the grant's backend reads its own. */
  readonly parts: readonly Built[];
}

/**
 * The top-level settings that belong to some backend, as the top kind found them
 * (kinds/top.ts): each backend reads only its own slice of them (`settings`).
 */
export interface TopSettings {
  /** The normalized base-url; '' when it is refused (its own errors are reported on it). */
  readonly baseUrl?: string;
  readonly auth?: UpstreamAuth;
  /** The header `auth` fills, which no other header may set. */
  readonly authHeader?: string;
  readonly headers: readonly (readonly [string, string])[];
  /** The database's statement-timeout, its default filled in; none without a database. */
  readonly statementTimeoutMs?: number;
  /** The declared `mcp-server` names, each with its call timeout (kinds/mcp-server.ts). */
  readonly mcpServers: ReadonlyMap<string, number>;
  /** The named `upstream`s, each as its HTTP grants are checked against (kinds/upstream.ts). */
  readonly upstreams: ReadonlyMap<string, UpstreamSettings>;
  /** The named `database`s, each with its statement timeout. */
  readonly databases: ReadonlyMap<string, number>;
}

/** What every grant needs of the spec around it, found once by the top kind (kinds/top.ts). */
export interface GrantContext {
  readonly file: string;
  readonly diag: Diagnostics;
  /** What belongs to the backends, each reading its own slice. */
  readonly top: TopSettings;
  /** The top-level `timeout`. */
  readonly timeoutMs?: number;
  readonly hasOauth: boolean;
  /** The `access` block: who could approve an `approve` (kinds/consent.ts). */
  readonly access?: AccessDescriptor;
  readonly rateLimit?: RateLimit;
  readonly limits: { readonly maxBytes?: number; readonly budgetBytes?: number };
  readonly restrict: readonly Located<RestrictSpec>[];
  /** Restrict entries that matched some grant's argument (for the unused warning). */
  readonly restrictUsed: Set<string>;
}

export type BackendDescriptor = ToolDescriptor['backend'];

/** What a backend's check found, handed to its lowering. */
export interface CheckedBackend {
  /** False when the grant cannot make a tool (no base-url, no database, no template). */
  readonly ok: boolean;
  /** Every argument, in the order they claim their names. */
  readonly placements: readonly Placement[];
  /** Groups of argument names of which at most one may be given. */
  readonly exclusive: readonly (readonly string[])[];
  /** The descriptor's `backend`; called only when the whole spec is clean. */
  lower(tool: { readonly method: HttpMethod; readonly readOnly: boolean }): BackendDescriptor;
}

/** One grant's check by its backend: its own children as read, its slice of the settings. */
export interface BackendCheck<Own, Settings> {
  readonly grant: GrantSpec;
  readonly own: Own;
  readonly settings: Settings;
  readonly ctx: GrantContext;
  readonly diag: Diagnostics;
  readonly subject: Subject;
  readonly claims: Claims;
}

/** A top-level setting a grant of the kind needs and the spec lacks, and where to say so. */
export interface Missing {
  readonly code: SpecErrorCode;
  readonly at: Position;
  readonly message: string;
}

/**
 * A backend sub-kind. `Own` is its children of a grant as read, by name (`max-rows` as
 * `maxRows`: the grant kind reads them, ownChildren); `Settings` its slice of TopSettings.
 */
export interface GrantBackend<Own = unknown, Settings = unknown> {
  /** How messages name the kind: "HTTP", "sql". */
  readonly name: string;
  /** The child that makes a grant of this kind; its value holds the place blamed. */
  readonly marker: string;
  /** "`path` (an HTTP operation)", in "a grant needs ... or ...". */
  readonly needs: string;
  /** "a path (HTTP)", in "a grant has either ... or ..., not both". */
  readonly either: string;
  /** The children it adds to the grant's table, in the order the hint lists them. */
  readonly children: Readonly<Record<string, TableRow>>;
  /** The result's outputSchema before shaping. */
  readonly outputSchema: JsonSchema;
  /** Whether the tool reaches outside the gateway's own systems (MCP `openWorldHint`). */
  readonly openWorld: boolean;
  /** Its slice of the top-level settings: those of the upstream or database it names. */
  settings(top: TopSettings, own: Own): Settings;
  /** Its field blocks, with the labels their messages use (bounds are checked first). */
  blocks(own: Own): [FieldLabel, readonly FieldSpec[]][];
  /** What the grant needs of the top-level settings and lacks: the grant makes no tool. */
  missing?(own: Own, settings: Settings): Missing | undefined;
  check(c: BackendCheck<Own, Settings>): CheckedBackend;
  /** Its arguments as written, unchecked: what a `from=` resource sees of a grant whose
   * backend is in doubt (it names two), so the resource's own errors are still found. */
  place(own: Own): Placement[];
}

/** A backend's own children of a grant, by name, a `max-rows` child as `maxRows`. */
export function ownChildren(parts: readonly Built[], backend: GrantBackend): unknown {
  const own: Record<string, unknown> = {};
  for (const [name, key] of ownNames(backend)) own[key] = childNamed(parts, name);
  return own;
}

/** Each child's name and its key in `own`, worked out once per backend, not per grant. */
function ownNames(backend: GrantBackend): readonly (readonly [string, string])[] {
  let names = ownNamesOf.get(backend);
  if (!names) {
    names = Object.keys(backend.children).map(
      (name) => [name, name.replace(/-(\w)/g, (_, c: string) => c.toUpperCase())] as const,
    );
    ownNamesOf.set(backend, names);
  }
  return names;
}
const ownNamesOf = new WeakMap<GrantBackend, readonly (readonly [string, string])[]>();
