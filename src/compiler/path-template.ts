/**
 * Path templates: `/repos/{owner}/{repo}/issues`, `/items/{id}.json`, `/{a}-{b}`. A
 * segment holds literal text and parameters; each value is percent-encoded inside its
 * segment and never leaves it. The literal text is fixed by the spec.
 */
import type { PathPart } from './descriptor.js';
import { FIELD_NAME } from './naming.js';

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
  if (segments.some((s) => s === '.' || s === '..'))
    return { ok: false, reason: 'must not contain "." or ".." segments' };
  for (const segment of segments) {
    const why = segment.includes('{') ? mixedSegmentProblem(segment) : segmentProblem(segment);
    if (why) return { ok: false, reason: `has the segment ${JSON.stringify(segment)}, ${why}` };
  }
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

/** What a normalising upstream does with such a segment, said once for every refusal. */
const CONSEQUENCE =
  'an upstream that normalises the path would serve another path than the one written (under a path prefix, one outside it)';

/**
 * Why a literal path segment (of a path template, or of the base-url's own path) is one
 * an upstream may read as another path, or undefined. Under a tenant prefix
 * (`https://api.example.com/tenants/acme`) a server that decodes `%2e%2e`, drops `;`
 * parameters (`..;`, as Tomcat and Spring do), decodes `%2F` or `%5C` to a separator,
 * or decodes twice (`%252e`) would climb out of the prefix the spec means to fix.
 */
export function segmentProblem(segment: string): string | undefined {
  if (segment === '.' || segment === '..') return `a dot segment: ${CONSEQUENCE}`;
  if (segment.includes('\\')) return `whose "\\" a URL parser reads as "/": ${CONSEQUENCE}`;
  const escape = /%(2f|5c|25)/i.exec(segment);
  if (escape) {
    const [text, hex] = escape;
    const reads =
      hex === '25'
        ? `whose ${text} an upstream that decodes twice reads as "%"`
        : `whose ${text} an upstream may decode to ${hex!.toLowerCase() === '2f' ? '"/"' : '"\\"'}`;
    return `${reads}: ${CONSEQUENCE}`;
  }
  const decoded = segment.replace(/%2e/gi, '.').replace(/%3b/gi, ';');
  const name = decoded.split(';')[0];
  if (name !== '.' && name !== '..') return undefined;
  const how = /%(2e|3b)/i.test(segment) ? 'once percent-decoded' : 'without its ";" parameters';
  return `which reads as "${name}" ${how}: ${CONSEQUENCE}`;
}

/**
 * A segment with parameters (`{id}.json`, `..;{x}`), or undefined. Two parameters side
 * by side (`{a}{b}`) cannot be told apart in the sent path. Otherwise the segment is
 * judged as the upstream would read it with any value in place: a value is never empty,
 * `.` or `..`, and holds no `/`, `\` or `%` (metachar.ts), so a stand-in `x` reads the
 * same. `..;{x}` is `..` to a server that drops `;` parameters, whatever `x` is.
 */
function mixedSegmentProblem(segment: string): string | undefined {
  const adjacent = /\{([^{}]*)\}\{([^{}]*)\}/.exec(segment);
  if (adjacent)
    return `which puts {${adjacent[1]}} and {${adjacent[2]}} side by side: literal text must separate two parameters, or the upstream cannot tell where one value ends`;
  return segmentProblem(segment.replace(/\{[^{}]*\}/g, 'x'));
}
