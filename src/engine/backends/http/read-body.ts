/**
 * Reads an upstream body up to a byte cap and stops there (security.md, "Upstream
 * misbehaviour"): an endless or huge body never grows memory past the cap.
 */
import type { Readable } from 'node:stream';

export interface ReadResult {
  readonly bytes: Buffer;
  /** The body went on past the cap; `bytes` holds the first `cap` bytes. */
  readonly overflow: boolean;
}

export async function readCapped(body: Readable, cap: number): Promise<ReadResult> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (total + chunk.length > cap) {
      chunks.push(chunk.subarray(0, cap - total));
      body.destroy();
      return { bytes: Buffer.concat(chunks), overflow: true };
    }
    chunks.push(chunk);
    total += chunk.length;
  }
  return { bytes: Buffer.concat(chunks, total), overflow: false };
}

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
