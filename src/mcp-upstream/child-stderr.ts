/**
 * A stdio child's stderr in the gateway's log (spec-language.md, "Connections"): each
 * line redacted and cut at STDERR_LINE_BYTES, and only so many lines a second, so that
 * a child flooding stderr (one call wrote 4.3 MB of it) costs the log a bounded number
 * of lines and one summary of the rest, said at most every STDERR_SUMMARY_MS and when
 * the child exits. The budget belongs to the server, not to one process: a child that
 * crashes and is restarted does not get a fresh burst each time.
 */
import type { LineSink } from './bounded-lines.js';
import { LineBudget } from './line-budget.js';
import type { UpstreamLog } from './upstream-log.js';

/** Each stderr line is logged up to this many bytes. */
export const STDERR_LINE_BYTES = 2048;
/**
 * 200 lines at once, so a start-up banner or a stack trace (tens of lines, rarely over a
 * hundred) reaches the log whole; then 10 a second, above the line or two per call a
 * healthy server says, while a flood costs the log at most ~20 KB a second (10 lines of
 * at most 2 KB) instead of megabytes.
 */
export const STDERR_BURST_LINES = 200;
export const STDERR_LINES_PER_SECOND = 10;
/** How long after the first dropped line the summary is said, at the latest. */
export const STDERR_SUMMARY_MS = 5_000;

export class ChildStderr implements LineSink {
  private readonly budget = new LineBudget(STDERR_BURST_LINES, STDERR_LINES_PER_SECOND);
  private summaryTimer: NodeJS.Timeout | undefined = undefined;

  constructor(
    private readonly name: string,
    private readonly log: UpstreamLog,
    private readonly redact: (text: string) => string,
  ) {}

  line(text: string): void {
    if (this.admit(Buffer.byteLength(text, 'utf8')))
      this.log('info', `mcp-server ${this.name} stderr: ${this.redact(text)}`);
  }

  overlong(head: string, _tail: string, bytes: number): void {
    if (this.admit(bytes))
      this.log(
        'info',
        `mcp-server ${this.name} stderr: ${this.redact(head)}… (${bytes} bytes, cut)`,
      );
  }

  /**
   * Says how many lines were dropped, if any. Not behind the `stderr:` prefix of the
   * child's own lines, so a child cannot write a summary of its own.
   */
  flush(): void {
    clearTimeout(this.summaryTimer);
    this.summaryTimer = undefined;
    const d = this.budget.takeDropped();
    if (d === undefined) return;
    this.log(
      'warn',
      `mcp-server ${this.name}: stderr: ${d.lines} lines (${d.bytes} bytes) dropped in the last ${(d.ms / 1000).toFixed(1)} s, over the log's budget of ${STDERR_BURST_LINES} lines at once and ${STDERR_LINES_PER_SECOND} a second`,
    );
  }

  private admit(bytes: number): boolean {
    if (this.budget.admit(bytes)) return true;
    if (this.summaryTimer === undefined) {
      this.summaryTimer = setTimeout(() => this.flush(), STDERR_SUMMARY_MS);
      this.summaryTimer.unref?.();
    }
    return false;
  }
}
