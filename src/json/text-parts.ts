/**
 * A JSON text given in parts, written straight into one Buffer. For large answers:
 * assembled as one string, an answer past 128 KB is placed in V8's large-object space
 * when it is flattened to be measured, and is then encoded again to be sent; here each
 * part is measured and encoded once (bench/RESULTS.md, "A large result's answer").
 */
export function bytesOfParts(parts: readonly string[]): Buffer {
  let size = 0;
  for (const part of parts) size += Buffer.byteLength(part);
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const part of parts) at += out.write(part, at);
  return out;
}

/**
 * Past this many characters, an answer is better written from its parts: with what
 * surrounds it (an MCP answer adds the text copy) it would pass 128 KB as one string.
 */
export const LARGE_ANSWER_CHARS = 64 * 1024;
