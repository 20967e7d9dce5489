/**
 * W3C Baggage (https://www.w3.org/TR/baggage/) as the gateway passes it on: the caller's
 * `_meta.baggage` or `baggage` header goes upstream only when it is baggage, else it is
 * dropped and the call goes on without it. Unchecked, a 1 MB value became a 1 MB upstream
 * header or `_meta`, and CR/LF in it made the upstream request fail to be sent, answered
 * as a misleading UPSTREAM_UNREACHABLE. Valid baggage is forwarded as written, not
 * re-serialised: the gateway is an intermediary, not a baggage participant.
 */

/** The spec's limits for a baggage-string: its bytes, and its list-members. */
export const BAGGAGE_MAX_BYTES = 8192;
export const BAGGAGE_MAX_MEMBERS = 180;

// The spec's grammar: list-member = key OWS "=" OWS value *( OWS ";" OWS property ),
// property = key OWS "=" OWS value / key OWS, key = an RFC 7230 token, value = baggage-octets
// (printable ASCII but space, DQUOTE, comma, semicolon and backslash). No part of it
// matches a character another part can also take, so the match is linear.
const OWS = '[ \\t]*';
const KEY = "[!#$%&'*+\\-.^_`|~0-9A-Za-z]+";
const VALUE = '[\\x21\\x23-\\x2b\\x2d-\\x3a\\x3c-\\x5b\\x5d-\\x7e]*';
const PROPERTY = `${KEY}(?:${OWS}=${OWS}${VALUE})?`;
const LIST_MEMBER = new RegExp(
  `^${OWS}${KEY}${OWS}=${OWS}${VALUE}(?:${OWS};${OWS}${PROPERTY})*${OWS}$`,
);

/**
 * `baggage` when it is a W3C baggage-string within the limits, else undefined. The
 * length is checked first, before anything is split: a string longer than 8192 UTF-16
 * units is longer than 8192 bytes, and one that passes the grammar is ASCII, one byte a
 * character.
 */
export function validBaggage(baggage: unknown): string | undefined {
  if (typeof baggage !== 'string' || baggage.length > BAGGAGE_MAX_BYTES) return undefined;
  const members = baggage.split(',');
  if (members.length > BAGGAGE_MAX_MEMBERS) return undefined;
  return members.every((m) => LIST_MEMBER.test(m)) ? baggage : undefined;
}
