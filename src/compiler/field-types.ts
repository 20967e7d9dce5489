/** The field types and string formats of the spec language (spec-language.md, "Fields"). */
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
