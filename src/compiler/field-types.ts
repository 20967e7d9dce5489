/** The field types and string formats of the spec language, and a field as written (spec-language.md, "Fields"). */
import type { Located, Position } from './diagnostics.js';
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

/** A field as written (spec-language.md, "Fields"); the values a check may refuse keep their place. */
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
