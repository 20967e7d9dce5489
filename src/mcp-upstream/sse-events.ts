/**
 * Server-sent events as they arrive (the Streamable HTTP answer to a POST may be an
 * event stream): the data of each `message` event, fed chunk by chunk, so the answer is
 * taken as soon as its event is complete and the stream need not end.
 *
 * Lines are found in the bytes and each complete line decoded on its own: a CR or LF byte
 * never stands inside a UTF-8 character, so a character split across chunks is always in
 * the unfinished line kept for the next chunk. (A TextDecoder per answer made an ICU
 * converter per call, and searching the decoded text with a regular expression copied it
 * line by line: together a tenth of the gateway's own work on an event-stream answer.)
 */
const CR = 0x0d;
const LF = 0x0a;
const NONE: readonly string[] = [];

export class SseEvents {
  /** The bytes of a line not ended yet, as they came (joined once the line ends). */
  private parts: Buffer[] = [];
  private held = 0;
  /** The bytes held end with a CR, which may be the first half of a CRLF. */
  private heldCr = false;
  private data: string[] = [];
  private event = '';
  /** A byte-order mark is dropped from the stream's first line only, as a TextDecoder does. */
  private first = true;

  /** Feeds bytes; returns the data of every event completed by them. */
  push(chunk: Uint8Array): readonly string[] {
    const bytes = Buffer.isBuffer(chunk)
      ? chunk
      : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let cr = bytes.indexOf(CR);
    let lf = bytes.indexOf(LF);
    if (cr < 0 && lf < 0 && !this.heldCr) {
      // No line ends here: held (copied, the chunk's memory is undici's) until one does.
      if (bytes.length > 0) {
        this.parts.push(Buffer.from(bytes));
        this.held += bytes.length;
      }
      return NONE;
    }
    let buf = bytes;
    if (this.held > 0) {
      const shift = this.held;
      buf = Buffer.concat([...this.parts, bytes]);
      // What is held has no line end but, maybe, its last byte's CR.
      cr = this.heldCr ? shift - 1 : cr < 0 ? -1 : cr + shift;
      lf = lf < 0 ? -1 : lf + shift;
      this.parts = [];
      this.held = 0;
      this.heldCr = false;
    }
    const out: string[] = [];
    let from = 0;
    // The next CR and LF (-1: none left), each searched again only once passed.
    while (cr >= 0 || lf >= 0) {
      const nl = cr < 0 ? lf : lf < 0 ? cr : Math.min(cr, lf);
      let width = 1;
      if (nl === cr) {
        // A CR at the end of what came may be the first half of CRLF: wait for more.
        if (nl === buf.length - 1) break;
        if (buf[nl + 1] === LF) width = 2;
      }
      this.field(this.decode(buf, from, nl), out);
      from = nl + width;
      if (cr >= 0 && cr < from) cr = buf.indexOf(CR, from);
      if (lf >= 0 && lf < from) lf = buf.indexOf(LF, from);
    }
    if (from < buf.length) {
      const tail = Buffer.from(buf.subarray(from));
      this.parts.push(tail);
      this.held = tail.length;
      this.heldCr = tail[tail.length - 1] === CR;
    }
    return out;
  }

  private decode(buf: Buffer, start: number, end: number): string {
    const line = buf.toString('utf8', start, end);
    if (!this.first) return line;
    this.first = false;
    return line.startsWith('\uFEFF') ? line.slice(1) : line;
  }

  private field(line: string, out: string[]): void {
    if (line === '') {
      if (this.data.length && (this.event === '' || this.event === 'message'))
        out.push(this.data.join('\n'));
      this.data = [];
      this.event = '';
      return;
    }
    if (line.startsWith(':')) return; // a comment (keep-alive)
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (name === 'data') this.data.push(value);
    else if (name === 'event') this.event = value;
  }
}
