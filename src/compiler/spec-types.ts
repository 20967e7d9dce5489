/**
 * The typed Spec: what the `.mcp.kdl` file says, checked for shape (known nodes,
 * properties and value types) but not yet for meaning. A value that a later check may
 * refuse is `Located`, so the message can name its line; the parts that need no
 * further check are the descriptor's own types.
 */
import type { Located, Position } from './diagnostics.js';
import type {
  AccessDescriptor,
  DatabaseSettings,
  DatabaseTarget,
  RateLimit,
  UpstreamAuth,
} from './descriptor.js';
import type { FieldType, Format } from './field-types.js';
import type { Scalar } from './kdl-reader.js';

export { FIELD_TYPES, FORMATS, type FieldType, type Format } from './field-types.js';

export interface FieldSpec {
  readonly name: string;
  readonly type: FieldType;
  /** Where the type is written; absent for undeclared path params. */
  readonly typeAt?: Position;
  readonly at: Position;
  readonly required: boolean;
  readonly default?: Located<Scalar>;
  readonly describe?: string;
  readonly min?: Located<number>;
  readonly max?: Located<number>;
  readonly minLength?: Located<number>;
  readonly maxLength?: Located<number>;
  readonly pattern?: Located<string>;
  readonly format?: Format;
  readonly minItems?: Located<number>;
  readonly maxItems?: Located<number>;
  readonly as?: Located<string>;
  /** `arg=`: the top-level argument a nested body field is filled from. */
  readonly arg?: Located<string>;
  readonly fromClaim?: Located<string>;
  readonly kind?: 'object' | 'array';
  readonly enum?: readonly Located<Scalar>[];
  readonly fields?: readonly FieldSpec[];
}

/** `query`, `body` and `params`: fields, and groups of which at most one may be given. */
export interface FieldBlockSpec {
  readonly at: Position;
  readonly fields: readonly FieldSpec[];
  readonly exclusive: readonly Located<readonly Located<string>[]>[];
}

/** `query encoding="form"`: how query keys and values are escaped (url.ts). */
export interface QuerySpec extends FieldBlockSpec {
  readonly encoding?: 'percent' | 'form';
}

export interface BodySpec extends FieldBlockSpec {
  readonly encoding: 'json' | 'form';
}

export interface SetSpec {
  readonly target: 'query' | 'header' | 'body';
  readonly key: string;
  readonly value: Scalar;
  readonly at: Position;
}

export interface GrantSpec {
  readonly verb: Located<string>;
  readonly resource: string;
  readonly at: Position;
  readonly describe?: string;
  readonly title?: string;
  readonly method?: Located<string>;
  readonly path?: Located<string> & { readonly params: readonly FieldSpec[] };
  readonly query?: QuerySpec;
  readonly body?: BodySpec;
  readonly set?: Located<readonly SetSpec[]>;
  readonly sql?: Located<string>;
  readonly params?: FieldBlockSpec;
  readonly maxRows?: Located<number>;
  /** `pick` / `omit`: the node's place, and each path with its own. */
  readonly pick?: Located<readonly Located<string>[]>;
  readonly omit?: Located<readonly Located<string>[]>;
  readonly scopes: readonly string[];
  readonly rateLimit?: RateLimit;
  readonly timeoutMs?: number;
  readonly maxBytes?: number;
  readonly budgetBytes?: number;
}

export interface RestrictSpec {
  readonly argument: string;
  readonly values?: readonly Located<Scalar>[];
  readonly pattern?: Located<string>;
}

export interface Spec {
  readonly file: string;
  readonly wrap: {
    readonly name: string;
    readonly version: string;
    readonly title?: string;
    readonly describe?: string;
  };
  /** `connections=N`: the most connections open to the upstream origin at once. */
  readonly baseUrl?: Located<string> & { readonly connections?: number };
  readonly auth?: Located<UpstreamAuth>;
  readonly headers: readonly Located<readonly [string, string]>[];
  readonly timeoutMs?: number;
  /** Settings left out are filled in by lowering. */
  readonly database?: DatabaseTarget & Partial<DatabaseSettings>;
  readonly restrict: readonly Located<RestrictSpec>[];
  readonly limits: {
    readonly maxBytes?: number;
    readonly budgetBytes?: number;
    readonly redisEnv?: string;
  };
  readonly rateLimit?: RateLimit;
  readonly access?: AccessDescriptor;
  readonly grants: readonly GrantSpec[];
  readonly resources: readonly ResourceSpec[];
  readonly prompts: readonly PromptSpec[];
}

/** `resource "<uri>" ...` (spec-language.md, "Resources and prompts"), as written. */
export interface ResourceSpec {
  /** An absolute URI, or a template with `{var}` segments. */
  readonly uri: Located<string>;
  readonly at: Position;
  readonly name?: Located<string>;
  readonly title?: string;
  readonly describe?: string;
  readonly mime?: Located<string>;
  /** The content sources as given; the checker wants exactly one. */
  readonly file?: Located<string>;
  readonly text?: Located<string>;
  readonly from?: Located<string>;
  readonly scopes: readonly string[];
}

export interface PromptArgumentSpec {
  readonly name: string;
  readonly at: Position;
  readonly required: boolean;
  readonly default?: Located<string>;
  readonly describe?: string;
  readonly pattern?: Located<string>;
  readonly maxLength?: Located<number>;
  readonly enum?: readonly Located<string>[];
}

/** `message "<role>" "<text>"` or `message "<role>" resource="<uri>"`. */
export interface PromptMessageSpec {
  readonly role: Located<string>;
  readonly at: Position;
  readonly text?: Located<string>;
  readonly resource?: Located<string>;
}

export interface PromptSpec {
  readonly name: Located<string>;
  readonly at: Position;
  readonly title?: string;
  readonly describe?: string;
  readonly arguments: readonly PromptArgumentSpec[];
  readonly messages: readonly PromptMessageSpec[];
  readonly scopes: readonly string[];
}
