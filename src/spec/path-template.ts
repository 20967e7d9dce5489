/**
 * Path templates: `/repos/{owner}/{repo}/issues`. A parameter fills exactly one
 * percent-encoded segment (or part of one); the literal text is fixed by the spec.
 */
import type { PathPart } from './descriptor.js';
import { FIELD_NAME } from './parse-field.js';

export type TemplateResult =
  { ok: true; parts: PathPart[]; params: string[] } | { ok: false; reason: string };

// RFC 3986 pchar plus '/', and '%' only as part of a %XX escape (checked below).
const LITERAL = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/%]*$/;

export function parseTemplate(template: string): TemplateResult {
  if (!template.startsWith('/')) return { ok: false, reason: 'must start with "/"' };
  const parts: PathPart[] = [];
  const params: string[] = [];
  const re = /\{([^{}]*)\}/g;
  let last = 0;
  for (let m = re.exec(template); m; m = re.exec(template)) {
    const literal = template.slice(last, m.index);
    const bad = literalProblem(literal);
    if (bad) return { ok: false, reason: bad };
    if (literal) parts.push({ literal });
    const name = m[1]!;
    if (!FIELD_NAME.test(name))
      return {
        ok: false,
        reason: `parameter {${name}} must be a name matching ${FIELD_NAME.source}`,
      };
    if (params.includes(name)) return { ok: false, reason: `parameter {${name}} appears twice` };
    params.push(name);
    parts.push({ param: name });
    last = m.index + m[0].length;
  }
  const tail = template.slice(last);
  const bad = literalProblem(tail);
  if (bad) return { ok: false, reason: bad };
  if (tail) parts.push({ literal: tail });
  const segments = template.split('/').slice(1);
  if (segments.some((s) => s.includes('{') && !/^\{[^{}]*\}$/.test(s))) {
    return {
      ok: false,
      reason: 'must give each {param} a whole segment (a value fills exactly one segment)',
    };
  }
  if (segments.some((s) => s === '.' || s === '..'))
    return { ok: false, reason: 'must not contain "." or ".." segments' };
  // A trailing "/" is a real path (`/items/`); an empty segment inside is not.
  if (template.includes('//'))
    return { ok: false, reason: 'must not contain an empty segment ("//")' };
  return { ok: true, parts, params };
}

function literalProblem(literal: string): string | undefined {
  if (/[{}]/.test(literal)) return 'has an unbalanced "{" or "}"';
  if (/[?#]/.test(literal)) return 'must not contain "?" or "#": use `query` and `set { query }`';
  if (!LITERAL.test(literal))
    return `contains characters that are not allowed in a URL path: ${JSON.stringify(literal)}`;
  if (/%(?![0-9A-Fa-f]{2})/.test(literal)) return 'contains a "%" that is not a %XX escape';
  return undefined;
}
