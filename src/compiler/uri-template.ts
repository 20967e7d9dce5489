/**
 * Resource URIs and URI templates (RFC 6570 level 1: `{var}` only), for the checker,
 * lowering and the engine alike. Adjacent variables are refused: nothing would say where
 * one ends. How a URI is matched against the pieces parsed here is uri-match.ts.
 */
import { MAX_URI_CHARACTERS } from './uri-match.js';

export type UriTemplate =
  | {
      readonly ok: true;
      /** The variable names, in order. */
      readonly variables: readonly string[];
      /** Literal text between the variables: always `variables.length + 1` pieces. */
      readonly literals: readonly string[];
    }
  | { readonly ok: false; readonly reason: string };

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** What a URI may hold outside its variables: no spaces, quotes, brackets or controls. */
const URI_TEXT = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/?#%[\]]*$/;

export function parseUriTemplate(uri: string): UriTemplate {
  if (!SCHEME.test(uri))
    return { ok: false, reason: 'must be an absolute URI with a scheme, like docs://team/guide' };
  const variables: string[] = [];
  const literals: string[] = [];
  let rest = uri;
  for (;;) {
    const open = rest.indexOf('{');
    const close = rest.indexOf('}');
    if (open < 0) {
      if (close >= 0) return { ok: false, reason: 'has a "}" without its "{"' };
      literals.push(rest);
      break;
    }
    if (close < open) return { ok: false, reason: 'has a "}" without its "{"' };
    const literal = rest.slice(0, open);
    const name = rest.slice(open + 1, close);
    if (!VARIABLE_NAME.test(name))
      return {
        ok: false,
        reason: `variable {${name}} must be a name matching ${VARIABLE_NAME.source} (RFC 6570 level 1)`,
      };
    if (variables.includes(name)) return { ok: false, reason: `variable {${name}} appears twice` };
    if (variables.length > 0 && literal === '')
      return {
        ok: false,
        reason: `variables {${variables.at(-1)}}{${name}} need text between them`,
      };
    literals.push(literal);
    variables.push(name);
    rest = rest.slice(close + 1);
  }
  for (const l of literals)
    if (!URI_TEXT.test(l))
      return { ok: false, reason: `holds characters a URI cannot: ${JSON.stringify(l)}` };
  if (variables.length > 0 && !SCHEME.test(literals[0]!))
    return { ok: false, reason: 'the scheme cannot be a variable' };
  // The shortest URI it serves: its literals and one character per variable.
  const shortest = literals.reduce((n, l) => n + l.length, variables.length);
  if (shortest > MAX_URI_CHARACTERS)
    return {
      ok: false,
      reason: `is over ${MAX_URI_CHARACTERS} characters (counting one per variable), and a longer URI matches nothing`,
    };
  return { ok: true, variables, literals };
}

/**
 * The default resource name: the last path segment without a variable
 * (`docs://helpdesk/refund-policy` → `refund-policy`), undefined when there is none.
 */
export function lastPlainSegment(uri: string): string | undefined {
  const afterScheme = uri.replace(SCHEME, '').replace(/^\/\//, '');
  const path = afterScheme.split(/[?#]/)[0]!;
  const segments = path.split('/').filter((s) => s !== '' && !s.includes('{'));
  return segments.at(-1);
}
