/**
 * DraftSpec → `.mcp.kdl` text, laid out as the examples in specs/ are: four-space
 * indentation, `describe` first, one field per line with its properties in a fixed
 * order, `enum` as a child. The same draft always gives the same bytes.
 */
import type {
  DraftAuth,
  DraftBlock,
  DraftField,
  DraftGrant,
  DraftSpec,
  Scalar,
} from './draft-types.js';

const INDENT = '    ';
const RESERVED = new Set(['true', 'false', 'null', 'inf', 'nan']);

/** A KDL 2.0 quoted string: escapes, and no code point KDL forbids in a document. */
export function kdlString(text: string): string {
  const escaped = text
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd')
    .replace(/[\\"]/g, (c) => `\\${c}`)
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r')
    .replace(/\t/g, '\\t')
    .replace(
      /[\p{Cc}\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/gu,
      (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`,
    );
  return `"${escaped}"`;
}

/** An identifier-like value (`list`, `repo-issues`) bare, anything else quoted. */
function ident(text: string): string {
  return /^[A-Za-z_][A-Za-z0-9_-]*$/.test(text) && !RESERVED.has(text) ? text : kdlString(text);
}

function value(v: Scalar): string {
  if (typeof v === 'string') return kdlString(v);
  if (typeof v === 'boolean') return v ? '#true' : '#false';
  return String(v);
}

function comment(text: string): string {
  return `// ${text.replace(/\s+/g, ' ').trim()}`;
}

function fieldLines(f: DraftField, depth: number): string[] {
  const pad = INDENT.repeat(depth);
  const props: string[] = [];
  if (f.required) props.push('required=#true');
  if (f.default !== undefined) props.push(`default=${value(f.default)}`);
  if (f.min !== undefined) props.push(`min=${f.min}`);
  if (f.max !== undefined) props.push(`max=${f.max}`);
  if (f.minLength !== undefined) props.push(`min-length=${f.minLength}`);
  if (f.maxLength !== undefined) props.push(`max-length=${f.maxLength}`);
  if (f.pattern !== undefined) props.push(`pattern=${kdlString(f.pattern)}`);
  if (f.format !== undefined) props.push(`format=${kdlString(f.format)}`);
  if (f.minItems !== undefined) props.push(`min-items=${f.minItems}`);
  if (f.maxItems !== undefined) props.push(`max-items=${f.maxItems}`);
  if (f.as !== undefined) props.push(`as=${kdlString(f.as)}`);
  if (f.kind !== undefined) props.push(`kind=${kdlString(f.kind)}`);
  if (f.describe !== undefined) props.push(`describe=${kdlString(f.describe)}`);
  const head = [ident(f.name), kdlString(f.type), ...props].join(' ');
  const lines = (f.lead ?? []).map((l) => `${pad}${comment(l)}`);
  const children: string[] = [];
  if (f.enum) children.push(`${pad}${INDENT}enum ${f.enum.map(value).join(' ')}`);
  for (const c of f.fields ?? []) children.push(...fieldLines(c, depth + 1));
  for (const n of f.notes ?? []) children.push(`${pad}${INDENT}${comment(n)}`);
  if (children.length === 0) lines.push(`${pad}${head}`);
  else lines.push(`${pad}${head} {`, ...children, `${pad}}`);
  return lines;
}

function block(head: string, b: DraftBlock): string[] {
  if (b.fields.length === 0 && b.notes.length === 0) return [];
  return [
    `${INDENT}${head} {`,
    ...b.fields.flatMap((f) => fieldLines(f, 2)),
    ...b.notes.map((n) => `${INDENT}${INDENT}${comment(n)}`),
    `${INDENT}}`,
  ];
}

function grantLines(g: DraftGrant): string[] {
  const lines = [comment(g.source), `can ${ident(g.verb)} ${ident(g.resource)} {`];
  lines.push(`${INDENT}describe ${kdlString(g.describe)}`);
  for (const n of g.notes) lines.push(`${INDENT}${comment(n)}`);
  if (g.method) lines.push(`${INDENT}method ${kdlString(g.method)}`);
  if (g.pathParams.length === 0 && g.pathNotes.length === 0)
    lines.push(`${INDENT}path ${kdlString(g.path)}`);
  else
    lines.push(
      `${INDENT}path ${kdlString(g.path)} {`,
      ...g.pathParams.flatMap((f) => fieldLines(f, 2)),
      ...g.pathNotes.map((n) => `${INDENT}${INDENT}${comment(n)}`),
      `${INDENT}}`,
    );
  lines.push(...block('query', g.query));
  if (g.body)
    lines.push(...block(g.body.encoding === 'form' ? 'body encoding="form"' : 'body', g.body));
  if (g.set && g.set.query.length + g.set.header.length > 0)
    lines.push(
      `${INDENT}set {`,
      ...g.set.query.map(([k, v]) => `${INDENT}${INDENT}query ${kdlString(k)} ${kdlString(v)}`),
      ...g.set.header.map(([k, v]) => `${INDENT}${INDENT}header ${kdlString(k)} ${kdlString(v)}`),
      `${INDENT}}`,
    );
  lines.push('}');
  return lines;
}

function authLine(a: DraftAuth): string {
  switch (a.kind) {
    case 'bearer':
      return `auth bearer env=${kdlString(a.env)}`;
    case 'basic':
      return `auth basic username-env=${kdlString(a.usernameEnv)} password-env=${kdlString(a.passwordEnv)}`;
    case 'header':
      return `auth header ${kdlString(a.header)} env=${kdlString(a.env)}`;
    case 'query':
      return `auth query ${kdlString(a.param)} env=${kdlString(a.env)}`;
  }
}

export function renderKdl(d: DraftSpec): string {
  const out: string[] = [...d.preamble.map(comment), ''];
  out.push(`wrap ${kdlString(d.name)} version=${kdlString(d.version)} {`);
  out.push(`${INDENT}title ${kdlString(d.title)}`);
  out.push(`${INDENT}describe ${kdlString(d.describe)}`);
  out.push('}', '');
  out.push(...d.baseUrlNotes.map(comment), `base-url ${kdlString(d.baseUrl)}`);
  out.push(...d.authNotes.map(comment));
  if (d.auth) out.push(authLine(d.auth));
  for (const e of d.entries) {
    out.push('');
    if (e.kind === 'grant') out.push(...grantLines(e.grant));
    else out.push(comment(e.skipped.source), comment(`skipped: ${e.skipped.reason}`));
  }
  return `${out.join('\n')}\n`;
}
