/**
 * Upstream bodies are read up to a byte cap and stop there (exchange.ts); a body cut
 * at the cap may end inside a character, which would decode as a replacement mark.
 */

/** UTF-8 text of possibly cut bytes, without a broken character at the end. */
export function decodeUtf8Prefix(bytes: Buffer): string {
  let end = bytes.length;
  // Step back over a trailing incomplete multi-byte sequence.
  let back = 0;
  while (back < 3 && end - back - 1 >= 0 && (bytes[end - back - 1]! & 0xc0) === 0x80) back += 1;
  const lead = bytes[end - back - 1];
  if (lead !== undefined && lead >= 0xc0) {
    const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
    if (back + 1 < need) end = end - back - 1;
  }
  return bytes.subarray(0, end).toString('utf8');
}
