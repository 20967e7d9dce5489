/** The tools view: the try-it example of a tool, built from its input schema. */
/* global has, isObject */
/* exported exampleArguments */

/** The try-it example nests no deeper than this. */
const EXAMPLE_MAX_DEPTH = 8;

const FORMAT_EXAMPLES = {
  'date-time': '2025-01-01T00:00:00Z',
  date: '2025-01-01',
  time: '00:00:00Z',
  email: 'someone@example.com',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  uuid: '00000000-0000-4000-8000-000000000000',
};

// --- The try-it example: a starting point built from the input schema. ---

/**
 * The required properties and those with a default, each filled with its default, first
 * enum value, or a plain value of its type.
 */
function exampleValue(schema, depth) {
  if (!isObject(schema)) return null;
  if (has(schema, 'default')) return schema.default;
  if (has(schema, 'const')) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  // A `raw` field without kind= is anyOf object | array: its first branch stands for it.
  if (Array.isArray(schema.anyOf) && schema.anyOf.length > 0 && !has(schema, 'type'))
    return exampleValue(schema.anyOf[0], depth);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object': {
      const out = {};
      if (depth > EXAMPLE_MAX_DEPTH) return out;
      const props = isObject(schema.properties) ? schema.properties : {};
      const required = Array.isArray(schema.required) ? schema.required : [];
      for (const [name, sub] of Object.entries(props)) {
        if (required.includes(name) || (isObject(sub) && has(sub, 'default')))
          out[name] = exampleValue(sub, depth + 1);
      }
      return out;
    }
    case 'array':
      return [];
    case 'integer':
    case 'number':
      if (typeof schema.minimum === 'number') return schema.minimum;
      if (typeof schema.exclusiveMinimum === 'number')
        return Math.floor(schema.exclusiveMinimum) + 1;
      return 0;
    case 'boolean':
      return false;
    case 'string':
      return typeof schema.format === 'string' && has(FORMAT_EXAMPLES, schema.format)
        ? FORMAT_EXAMPLES[schema.format]
        : '';
    default:
      return null;
  }
}

function exampleArguments(schema) {
  const v = exampleValue(schema, 0);
  return isObject(v) ? v : {};
}
