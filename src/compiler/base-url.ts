import { segmentProblem } from './path-template.js';

/**
 * base-url must be absolute http(s), without credentials, query or fragment; the
 * result is origin + prefix with no trailing slash, the fixed part of every URL.
 */
export function normalizeBaseUrl(
  text: string,
): { ok: true; url: string } | { ok: false; problem: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, problem: `${JSON.stringify(text)} is not an absolute URL` };
  }
  const problem =
    url.protocol !== 'http:' && url.protocol !== 'https:'
      ? `scheme ${url.protocol} is not http or https`
      : url.username || url.password
        ? 'credentials belong in `auth`, not in the URL'
        : url.search || url.hash || text.includes('?') || text.includes('#')
          ? 'a base-url takes no query or fragment: use `set { query }`'
          : pathProblem(text);
  if (problem) return { ok: false, problem: `${JSON.stringify(text)}: ${problem}` };
  return { ok: true, url: `${url.origin}${url.pathname.replace(/\/+$/, '')}` };
}

/**
 * The path as written, segment by segment: the URL parser drops `..` and `%2e%2e`
 * silently, and keeps `..;` and `%2F` for the upstream to read as another path.
 */
function pathProblem(text: string): string | undefined {
  const path = text.replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/\\?#]*/, '');
  const segments = path.split('/').slice(1);
  for (const [i, segment] of segments.entries()) {
    // `https://api.example//host`: an importer's protocol-relative server pasted after a
    // placeholder host; an empty segment is no prefix an upstream is known to keep.
    if (segment === '' && i < segments.length - 1)
      return 'its path has an empty segment (`//`): write each segment once';
    const why = segmentProblem(segment);
    if (why) return `its path has the segment ${JSON.stringify(segment)}, ${why}`;
  }
  return undefined;
}
