/**
 * How a query key or value is spelled on the wire, in the grant's query encoding: the
 * URL builder (http/url.ts) and the credential's redaction (credentials.ts) use the same
 * functions, so a query credential is redacted in the exact text it was sent as.
 */

/**
 * A query key or value as a form-encoded URL carries it: URLSearchParams' encoding
 * (application/x-www-form-urlencoded: space as `+`, `~ ! ' ( )` percent-encoded).
 */
export function formComponent(s: string): string {
  return new URLSearchParams([['', s]]).toString().slice(1);
}

/**
 * A query key or value percent-encoded as RFC 3986 reads it: everything but the
 * unreserved `A-Z a-z 0-9 - . _ ~` is escaped (encodeURIComponent leaves `! ' ( ) *`,
 * which some servers treat as delimiters). A lone surrogate cannot be encoded as UTF-8
 * and becomes U+FFFD, as URLSearchParams does.
 */
// With the u flag a surrogate pair is one code point, so only a lone half matches.
const LONE_SURROGATE = /\p{Cs}/gu;

export function percentComponent(s: string): string {
  return encodeURIComponent(s.replace(LONE_SURROGATE, '\uFFFD')).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}
