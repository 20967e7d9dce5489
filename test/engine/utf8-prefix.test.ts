/**
 * decodeUtf8Prefix decodes an upstream body cut at the read cap: a character the cut
 * splits is dropped whole, never shown as a replacement mark; whole characters are kept.
 */
import { describe, expect, it } from 'vitest';
import { decodeUtf8Prefix } from '../../src/outbound/utf8-prefix.js';

const TEXT = 'a é € 🐛'; // 1-, 2-, 3- and 4-byte characters.
const BYTES = Buffer.from(TEXT, 'utf8');

describe('decodeUtf8Prefix', () => {
  it('decodes bytes that end on a whole character as they are', () => {
    expect(decodeUtf8Prefix(BYTES)).toBe(TEXT);
    expect(decodeUtf8Prefix(Buffer.alloc(0))).toBe('');
  });

  it('drops a character cut anywhere inside it, and keeps every one before it', () => {
    for (let end = 0; end <= BYTES.length; end += 1) {
      // The whole characters that fit in the first `end` bytes.
      let expected = '';
      for (const ch of TEXT) {
        if (Buffer.byteLength(expected + ch, 'utf8') > end) break;
        expected += ch;
      }
      expect(decodeUtf8Prefix(BYTES.subarray(0, end)), `cut at ${end}`).toBe(expected);
    }
  });
});
