/**
 * The draft spec the importer builds before it writes KDL: grants and fields as the
 * `.mcp.kdl` language knows them, plus the `//` notes that say what was left out.
 */
import type { FieldType, Format } from '../../compiler/field-types.js';

export type Scalar = string | number | boolean;

export interface DraftField {
  /** The argument name (FIELD_NAME); `as` holds the upstream name when they differ. */
  readonly name: string;
  readonly type: FieldType;
  readonly required?: boolean;
  readonly default?: Scalar;
  readonly min?: number;
  readonly max?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly format?: Format;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly as?: string;
  readonly kind?: 'object' | 'array';
  readonly describe?: string;
  readonly enum?: readonly Scalar[];
  readonly fields?: readonly DraftField[];
  /** `//` lines written inside this field's block (its left-out children). */
  readonly notes?: readonly string[];
  /** `//` lines written just above this field (why it is narrower than upstream). */
  readonly lead?: readonly string[];
}

export interface DraftBlock {
  readonly fields: readonly DraftField[];
  /** `//` lines for what was left out of this block. */
  readonly notes: readonly string[];
}

export interface DraftGrant {
  /** `GET /repos/{owner}/{repo}/issues (issues/list-for-repo)`. */
  readonly source: string;
  readonly verb: string;
  readonly resource: string;
  /** Written only when the verb does not imply the operation's method. */
  readonly method?: string;
  readonly describe: string;
  readonly path: string;
  readonly pathParams: readonly DraftField[];
  /** `//` lines inside the path block (a parameter left a plain string). */
  readonly pathNotes: readonly string[];
  readonly query: DraftBlock;
  readonly body?: DraftBlock & { readonly encoding: 'json' | 'form' };
  /** Values every call sends, no argument of the caller's: `set { query; header }`. */
  readonly set?: DraftSet;
  /** `//` lines at grant level (header and cookie parameters, deprecation). */
  readonly notes: readonly string[];
}

export interface DraftSet {
  /** A fixed `?key=value` written in the document's path key. */
  readonly query: readonly (readonly [name: string, value: string])[];
  /** A required header that allows one value (`X-Amz-Target`). */
  readonly header: readonly (readonly [name: string, value: string])[];
}

/** One selected operation (or upstream tool) that could not become a grant, and why. */
export interface Skipped {
  readonly source: string;
  readonly reason: string;
}

/**
 * Every selected operation (or upstream tool), in the order written: a grant or the
 * reason it is not one.
 */
export type DraftEntry<G = DraftGrant> =
  | { readonly kind: 'grant'; readonly grant: G }
  | { readonly kind: 'skipped'; readonly skipped: Skipped };

export type DraftAuth =
  | { readonly kind: 'bearer'; readonly env: string }
  | { readonly kind: 'basic'; readonly usernameEnv: string; readonly passwordEnv: string }
  | { readonly kind: 'header'; readonly header: string; readonly env: string }
  | { readonly kind: 'query'; readonly param: string; readonly env: string };

export interface DraftSpec {
  readonly name: string;
  readonly version: string;
  readonly title: string;
  readonly describe: string;
  readonly baseUrl: string;
  readonly baseUrlNotes: readonly string[];
  /**
   * `--upstream <name>`: base-url and auth are written as `upstream "<name>"` and every
   * grant names it, so drafts of several documents can live in one spec.
   */
  readonly upstream?: string;
  readonly auth?: DraftAuth;
  readonly authNotes: readonly string[];
  /** The header comment lines of the file. */
  readonly preamble: readonly string[];
  readonly entries: readonly DraftEntry[];
  /** Written after the grants (`--toolsets=tag`); none without the flag. */
  readonly toolsets?: readonly DraftToolset[];
}

/** A `toolset` node: its name, the document's tags it stands for, its members in spec order. */
export interface DraftToolset {
  readonly name: string;
  readonly tags: readonly string[];
  readonly describe?: string;
  readonly tools: readonly string[];
}
