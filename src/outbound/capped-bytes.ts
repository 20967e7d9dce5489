/**
 * The bytes of an upstream answer kept up to a cap, as both readers of the exchange
 * (http/http-exchange.ts, mcp-upstream/http-post.ts) hold them: past the cap the reader stops
 * the exchange, so an endless body never grows memory.
 */
export class CappedBytes {
  /** The most bytes kept; a reader sets it once it knows the status. */
  cap = 0;
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private seen = 0;

  /** Keeps `chunk`; false, keeping only what fits, when the answer goes past the cap. */
  add(chunk: Buffer): boolean {
    this.seen += chunk.length;
    if (this.kept + chunk.length > this.cap) {
      this.chunks.push(chunk.subarray(0, this.cap - this.kept));
      this.kept = this.cap;
      return false;
    }
    this.chunks.push(chunk);
    this.kept += chunk.length;
    return true;
  }

  /** Counts `bytes` read elsewhere (an event stream's) without keeping them; false past the cap. */
  count(bytes: number): boolean {
    this.seen += bytes;
    return this.seen <= this.cap;
  }

  bytes(): Buffer {
    return this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.kept);
  }
}
