/**
 * A fetch answer's body as text, read only up to a cap: the token endpoints and discovery
 * documents the gateway reads belong to somebody else, and a larger answer is refused
 * without being read to its end.
 */

/** The body of `res` as text, or undefined past `maxBytes` (the rest is not read). */
export async function boundedText(res: Response, maxBytes: number): Promise<string | undefined> {
  const declared = Number(res.headers.get('content-length') ?? '0');
  if (declared > maxBytes) {
    await res.body?.cancel();
    return undefined;
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
