/**
 * Server-sent events as they arrive (the Streamable HTTP answer to a POST may be an
 * event stream): the data of each `message` event, fed chunk by chunk, so the answer is
 * taken as soon as its event is complete and the stream need not end.
 */
export class SseEvents {
  private buffer = '';
  private data: string[] = [];
  private event = '';
  private readonly decoder = new TextDecoder();

  /** Feeds bytes; returns the data of every event completed by them. */
  push(chunk: Uint8Array): string[] {
    this.buffer += this.decoder.decode(chunk, { stream: true });
    const out: string[] = [];
    let nl: number;
    while ((nl = this.buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = this.buffer.slice(0, nl);
      const width = this.buffer.startsWith('\r\n', nl) ? 2 : 1;
      // A lone \r at the end of the buffer may be the first half of \r\n: wait for more.
      if (width === 1 && this.buffer[nl] === '\r' && nl === this.buffer.length - 1) break;
      this.buffer = this.buffer.slice(nl + width);
      this.field(line, out);
    }
    return out;
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
