/**
 * Newline-delimited messages from a child's stdout, each line at most `maxLineBytes`:
 * a child that writes a huge line, or never a newline, must not grow our memory. A line
 * past the cap is dropped as it streams, keeping only its first and last bytes, where a
 * JSON-RPC id usually stands (serializers put it first or last), so the call it answered
 * can be told that its answer was too large.
 */

/** Bytes kept from each end of an overlong line by default, to find its id. */
const EDGE_BYTES = 256;
const NEWLINE = 0x0a;

export interface LineSink {
  line(text: string): void;
  /** A line longer than the cap ended: its first and last bytes, and its length. */
  overlong(head: string, tail: string, bytes: number): void;
}

export class BoundedLines {
  private chunks: Buffer[] = [];
  private size = 0;
  /** Set while an overlong line streams by. */
  private head: Buffer | undefined = undefined;
  private tail: Buffer = Buffer.alloc(0);
  private dropped = 0;

  constructor(
    private readonly maxLineBytes: number,
    private readonly sink: LineSink,
    private readonly edgeBytes: number = EDGE_BYTES,
  ) {}

  /** Bytes of the current overlong line dropped so far (0 when none is streaming). */
  get overflowing(): number {
    return this.head === undefined ? 0 : this.dropped;
  }

  push(chunk: Buffer): void {
    let from = 0;
    while (from < chunk.length) {
      const nl = chunk.indexOf(NEWLINE, from);
      const end = nl < 0 ? chunk.length : nl;
      this.take(chunk.subarray(from, end));
      if (nl < 0) return;
      this.endLine();
      from = nl + 1;
    }
  }

  private take(part: Buffer): void {
    if (part.length === 0) return;
    if (this.head !== undefined) {
      this.dropped += part.length;
      this.tail = this.last(Buffer.concat([this.tail, part.subarray(-this.edgeBytes)]));
      return;
    }
    if (this.size + part.length <= this.maxLineBytes) {
      this.chunks.push(part);
      this.size += part.length;
      return;
    }
    // Past the cap: keep the edges only, from here to the end of the line.
    const sofar = Buffer.concat([...this.chunks, part]);
    this.head = Buffer.from(sofar.subarray(0, this.edgeBytes));
    this.tail = this.last(sofar);
    this.dropped = sofar.length;
    this.chunks = [];
    this.size = 0;
  }

  private endLine(): void {
    if (this.head !== undefined) {
      const head = this.head.toString('utf8');
      const tail = this.tail.toString('utf8');
      const bytes = this.dropped;
      this.head = undefined;
      this.tail = Buffer.alloc(0);
      this.dropped = 0;
      this.sink.overlong(head, tail, bytes);
      return;
    }
    const text = (this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks)).toString(
      'utf8',
    );
    this.chunks = [];
    this.size = 0;
    // CRLF-terminated lines are accepted; blank lines are not messages.
    const line = text.endsWith('\r') ? text.slice(0, -1) : text;
    if (line.trim()) this.sink.line(line);
  }

  private last(b: Buffer): Buffer {
    return Buffer.from(b.length <= this.edgeBytes ? b : b.subarray(-this.edgeBytes));
  }
}
