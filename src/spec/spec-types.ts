/**
 * The typed Spec: what the `.mcp.kdl` file says, checked for shape (known nodes,
 * properties and value types) but not yet for meaning. Every part keeps its source
 * position so the compiler can name the line of a semantic error.
 */
import type { Position } from './diagnostics.js';
import type { Scalar } from './kdl-reader.js';

export const FIELD_TYPES = [
  'string',
  'integer',
  'number',
  'boolean',
  'string[]',
  'integer[]',
  'number[]',
  'boolean[]',
  'object',
  'object[]',
  'raw',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export const FORMATS = ['date-time', 'date', 'email', 'uri', 'uuid'] as const;
export type Format = (typeof FORMATS)[number];

export interface FieldSpec {
  readonly name: string;
  readonly type: FieldType;
  /** Where the type is written; absent for undeclared path params. */
  readonly typeAt?: Position;
  readonly at: Position;
  readonly required: boolean;
  readonly default?: { readonly value: Scalar; readonly at: Position };
  readonly describe?: string;
  readonly min?: number;
  readonly max?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: { readonly source: string; readonly at: Position };
  readonly format?: Format;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly as?: string;
  readonly asAt?: Position;
  readonly arg?: { readonly name: string; readonly at: Position };
  readonly fromClaim?: { readonly claim: string; readonly at: Position };
  readonly kind?: 'object' | 'array';
  readonly enum?: readonly { readonly value: Scalar; readonly at: Position }[];
  readonly fields?: readonly FieldSpec[];
}

export interface ExclusiveSpec {
  readonly names: readonly { readonly value: string; readonly at: Position }[];
  readonly at: Position;
}

export interface FieldBlockSpec {
  readonly at: Position;
  readonly fields: readonly FieldSpec[];
  readonly exclusive: readonly ExclusiveSpec[];
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

export interface RateLimitSpec {
  readonly count: number;
  readonly windowMs: number;
  readonly text: string;
  readonly at: Position;
}

export interface GrantSpec {
  readonly verb: string;
  /** Where the verb is written, for SPEC_UNKNOWN_VERB. */
  readonly verbAt: Position;
  readonly resource: string;
  readonly at: Position;
  readonly describe?: string;
  readonly title?: string;
  readonly method?: { readonly value: string; readonly at: Position };
  readonly path?: {
    readonly template: string;
    readonly at: Position;
    readonly params: readonly FieldSpec[];
  };
  readonly query?: FieldBlockSpec;
  readonly body?: BodySpec;
  readonly set: readonly SetSpec[];
  readonly sql?: { readonly statement: string; readonly at: Position };
  readonly params?: FieldBlockSpec;
  readonly maxRows?: number;
  /** Where `max-rows` is written, for SPEC_GRANT_KIND in an HTTP grant. */
  readonly maxRowsAt?: Position;
  /** Where `set` is written, for SPEC_GRANT_KIND in a sql grant. */
  readonly setAt?: Position;
  readonly scopes: readonly string[];
  readonly rateLimit?: RateLimitSpec;
  readonly timeoutMs?: number;
  readonly maxBytes?: number;
  readonly budgetBytes?: number;
}

export type AuthSpec =
  | { readonly kind: 'bearer'; readonly env: string; readonly at: Position }
  | {
      readonly kind: 'header';
      readonly header: string;
      readonly env: string;
      readonly prefix: string;
      readonly at: Position;
    }
  | {
      readonly kind: 'basic';
      readonly usernameEnv: string;
      readonly passwordEnv: string;
      readonly at: Position;
    }
  | { readonly kind: 'query'; readonly param: string; readonly env: string; readonly at: Position };

interface DatabaseCommon {
  readonly pool: number;
  readonly statementTimeoutMs: number;
  /** How long a call waits for a free connection before a 503. */
  readonly checkoutTimeoutMs: number;
  readonly at: Position;
}

export type DatabaseSpec =
  | (DatabaseCommon & { readonly kind: 'env'; readonly env: string })
  | (DatabaseCommon & { readonly kind: 'embedded'; readonly seed?: string });

export interface RestrictSpec {
  readonly argument: string;
  readonly values?: readonly { readonly value: Scalar; readonly at: Position }[];
  readonly pattern?: { readonly source: string; readonly at: Position };
  readonly at: Position;
}

export interface AccessSpec {
  readonly apiKeys: readonly {
    readonly env: string;
    readonly scopes: readonly string[];
    readonly at: Position;
  }[];
  readonly oauth?: {
    readonly issuer: string;
    readonly audience: string;
    readonly jwksUri: string;
    readonly at: Position;
  };
  readonly allowOrigins: readonly string[];
  readonly at: Position;
}

export interface Spec {
  readonly file: string;
  readonly wrap: {
    readonly name: string;
    readonly version: string;
    readonly title?: string;
    readonly describe?: string;
  };
  readonly baseUrl?: {
    readonly url: string;
    readonly at: Position;
    /** `connections=N`: the most connections open to the upstream origin at once. */
    readonly connections?: number;
  };
  readonly auth?: AuthSpec;
  readonly headers: readonly {
    readonly name: string;
    readonly value: string;
    readonly at: Position;
  }[];
  readonly timeoutMs?: number;
  readonly database?: DatabaseSpec;
  readonly restrict: readonly RestrictSpec[];
  readonly limits: {
    readonly maxBytes?: number;
    readonly budgetBytes?: number;
    readonly redisEnv?: string;
  };
  readonly rateLimit?: RateLimitSpec;
  readonly access?: AccessSpec;
  readonly grants: readonly GrantSpec[];
}
