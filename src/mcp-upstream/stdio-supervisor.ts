/**
 * A stdio MCP server run by the gateway (spec-language.md, `mcp-server … command`): one
 * child per server and process, newline-delimited JSON-RPC on its stdin/stdout, calls
 * multiplexed by id, its stderr to the log (child-stderr.ts: capped, redacted, rate-limited), restarted
 * with backoff when it exits, stopped with SIGTERM and, 5 s later, SIGKILL.
 *
 * Whatever the child does (floods stdout, writes non-JSON, never answers, dies in the
 * middle of a call) costs the calls it concerns an error value; nothing here throws at
 * the gateway, and no event of the child is left without a handler.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { decodeUtf8Prefix } from '../outbound/utf8-prefix.js';
import { BoundedLines } from './bounded-lines.js';
import { childEnvironment, findProgram } from './child-environment.js';
import { ChildStderr, STDERR_LINE_BYTES } from './child-stderr.js';
import type { NumberTexts } from '../json/number-text.js';
import type { RpcId } from '../mcp-wire/json-rpc.js';
import { classifyMessage, messageText } from './json-rpc-message.js';
import { PendingCalls } from './pending-calls.js';
import type {
  RequestOptions,
  RpcChannel,
  UpstreamReply,
  UpstreamNotification,
} from './rpc-channel.js';
import { capText } from './upstream-outcome.js';
import { Backoff } from './backoff.js';
import type { UpstreamLog } from './upstream-log.js';

export interface StdioOptions {
  /** The `mcp-server` name, in every message. */
  readonly name: string;
  readonly program: string;
  readonly args: readonly string[];
  /** The working directory (the spec's folder). */
  readonly cwd: string;
  /** The spec's `env` children, values resolved; the only variables beside PATH, HOME, LANG. */
  readonly env: Readonly<Record<string, string>>;
  /** Where PATH, HOME and LANG come from (default process.env). */
  readonly parentEnv?: NodeJS.ProcessEnv;
  /** The longest stdout line (one message) read; a longer answer fails its call. */
  readonly maxMessageBytes: number;
  readonly log: UpstreamLog;
  /** Applied to every text of the child's that is logged or quoted in an error. */
  readonly redact: (text: string) => string;
  readonly onNotification?: (n: UpstreamNotification) => void;
  /** Restart delays (default 1 s doubling to 30 s); tests shorten them. */
  readonly restart?: { readonly firstMs: number; readonly maxMs: number };
  /** From SIGTERM to SIGKILL on stop (default 5 s). */
  readonly killAfterMs?: number;
}

export type ChildState = 'up' | 'down' | 'stopped';

/** A stdout line this many times the message cap, still without a newline, is a flood. */
const FLOOD_FACTOR = 8;
/** Non-JSON output is quoted up to this many characters. */
const NOISE_CHARS = 200;
const DEFAULT_KILL_AFTER_MS = 5_000;

/** Resolves the program (a start-up error naming it when missing) and starts the child. */
export function startStdioChild(
  o: StdioOptions,
):
  | { readonly ok: true; readonly child: StdioSupervisor }
  | { readonly ok: false; readonly message: string } {
  const env = childEnvironment(o.env, o.parentEnv ?? process.env);
  const found = findProgram(o.program, env.PATH, o.cwd);
  if ('missing' in found)
    return { ok: false, message: `mcp-server ${JSON.stringify(o.name)}: ${found.missing}` };
  const child = new StdioSupervisor(o, found.path, env);
  child.start();
  return { ok: true, child };
}

export class StdioSupervisor implements RpcChannel {
  private child: ChildProcess | undefined = undefined;
  private calls = new PendingCalls();
  private spawns = 0;
  private stopped = false;
  /** Why the supervisor killed the current child, said to the calls its death fails. */
  private killReason: string | undefined = undefined;
  /** Until the child has sent one valid message, stdout noise is a banner, not an answer. */
  private spoken = false;
  private restartTimer: NodeJS.Timeout | undefined = undefined;
  private restartAt = 0;
  private lastExit = '';
  private startedAt = 0;
  private readonly backoff: Backoff;
  private readonly stderr: ChildStderr;
  private exited: Promise<void> = Promise.resolve();

  constructor(
    private readonly o: StdioOptions,
    private readonly path: string,
    private readonly env: Record<string, string>,
  ) {
    this.backoff = new Backoff(o.restart?.firstMs ?? 1_000, o.restart?.maxMs ?? 30_000);
    this.stderr = new ChildStderr(o.name, o.log, o.redact);
  }

  get epoch(): number {
    return this.spawns;
  }

  state(): ChildState {
    if (this.stopped) return 'stopped';
    return this.child ? 'up' : 'down';
  }

  /** The child's process id while it runs (tests kill it from outside). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): void {
    if (this.stopped || this.child) return;
    this.spawns += 1;
    this.spoken = false;
    this.killReason = undefined;
    this.calls = new PendingCalls();
    this.startedAt = performance.now();
    let child: ChildProcess;
    try {
      child = spawn(this.path, [...this.o.args], {
        cwd: this.o.cwd,
        env: this.env,
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
        windowsHide: true,
      });
    } catch (err) {
      this.died(undefined, `could not be started: ${errorText(err)}`);
      return;
    }
    this.child = child;
    let resolveExited: () => void = () => {};
    this.exited = new Promise<void>((r) => (resolveExited = r));
    let gone = false;
    const onGone = (why: string): void => {
      if (gone) return;
      gone = true;
      resolveExited();
      this.died(child, why);
    };
    // A spawn that fails (the program vanished since start) emits 'error' and no 'exit'.
    child.on('error', (err) => onGone(`could not be started: ${errorText(err)}`));
    child.on('exit', (code, signal) =>
      onGone(signal ? `was ended by ${signal}` : `exited with code ${code ?? '?'}`),
    );
    // EPIPE on a child that just died: its exit says what happened.
    child.stdin?.on('error', () => {});
    child.stdout?.on('error', () => {});
    child.stderr?.on('error', () => {});

    const cap = this.o.maxMessageBytes;
    const calls = this.calls;
    const stdout = new BoundedLines(cap, {
      line: (text) => this.onLine(child, calls, text),
      overlong: (head, tail, bytes) => this.onOverlong(calls, head, tail, bytes),
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      if (this.child !== child) return;
      stdout.push(chunk);
      if (stdout.overflowing > FLOOD_FACTOR * cap) {
        this.kill(
          child,
          `the child was killed: it wrote more than ${FLOOD_FACTOR * cap} bytes to stdout without a newline (a flood)`,
        );
      }
    });
    const stderr = new BoundedLines(STDERR_LINE_BYTES, this.stderr, STDERR_LINE_BYTES);
    child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
    // Lines read after the exit: their drops are said once the pipe is drained too.
    child.stderr?.on('end', () => this.stderr.flush());
  }

  request(
    method: string,
    params: Record<string, unknown>,
    o: RequestOptions,
  ): Promise<UpstreamReply> {
    const child = this.child;
    if (!child || this.stopped) return Promise.resolve(this.unavailable());
    const calls = this.calls;
    const { id, reply } = calls.add(o.timeoutMs, o.cancel, method, (given) =>
      this.write(child, {
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: given, reason: 'the gateway stopped waiting' },
      }),
    );
    const sent = this.write(child, { jsonrpc: '2.0', id, method, params }, o.texts);
    if (!sent) {
      calls.settle(id, {
        kind: 'failed',
        error: { kind: 'protocol', message: `the request ${method} could not be encoded as JSON` },
      });
    }
    return reply;
  }

  async notify(method: string, params: Record<string, unknown> | undefined): Promise<void> {
    if (this.child && !this.stopped)
      this.write(this.child, { jsonrpc: '2.0', method, ...(params && { params }) });
  }

  legacyVersion(): void {}

  /** SIGTERM now, SIGKILL after `killAfterMs`; resolves when the child is gone. */
  async close(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    const child = this.child;
    this.calls.failAll({ kind: 'unavailable', message: `mcp-server ${this.o.name} is stopping` });
    if (!child) return;
    child.kill('SIGTERM');
    const killer = setTimeout(
      () => child.kill('SIGKILL'),
      this.o.killAfterMs ?? DEFAULT_KILL_AFTER_MS,
    );
    await this.exited;
    clearTimeout(killer);
  }

  private write(
    child: ChildProcess,
    message: Record<string, unknown>,
    paramTexts?: NumberTexts,
  ): boolean {
    let line: string;
    try {
      line = `${messageText(message, paramTexts)}\n`;
    } catch {
      return false;
    }
    if (this.child === child && child.stdin?.writable) child.stdin.write(line);
    return true;
  }

  private onLine(child: ChildProcess, calls: PendingCalls, text: string): void {
    if (this.child !== child) return;
    let value: unknown;
    try {
      value = JSON.parse(text) as unknown;
    } catch {
      this.onNoise(calls, text, 'non-JSON');
      return;
    }
    const m = classifyMessage(value);
    switch (m.kind) {
      case 'response':
        this.spoken = true;
        calls.settle(m.id, m.reply);
        return;
      case 'notification':
        this.spoken = true;
        this.o.onNotification?.({ method: m.method, params: m.params });
        return;
      case 'request':
        this.spoken = true;
        this.answerRequest(child, m.id, m.method);
        return;
      default:
        this.onNoise(calls, text, m.why);
    }
  }

  /**
   * A line that is not an MCP message. Before the child's first message it is a banner
   * (logged only); afterwards, with one call waiting, it is that call's failed answer, and
   * with several it is said at their deadline (one of them may still be answered).
   */
  private onNoise(calls: PendingCalls, text: string, why: string): void {
    const excerpt = JSON.stringify(this.o.redact(capText(text, NOISE_CHARS)));
    this.o.log(
      'warn',
      `mcp-server ${this.o.name} wrote to stdout what is not MCP (${why}): ${excerpt}`,
    );
    if (!this.spoken) return;
    const ids = calls.ids();
    if (ids.length === 1) {
      calls.settle(ids[0]!, {
        kind: 'failed',
        error: {
          kind: 'protocol',
          message: `mcp-server ${this.o.name} answered with what is not MCP (${why}): ${excerpt}`,
        },
      });
      return;
    }
    for (const id of ids) calls.noteNoise(id, excerpt);
  }

  private onOverlong(calls: PendingCalls, head: string, tail: string, bytes: number): void {
    const cap = this.o.maxMessageBytes;
    this.o.log(
      'warn',
      `mcp-server ${this.o.name} sent a message of ${bytes} bytes, over the cap of ${cap}`,
    );
    const ids = calls.ids();
    const id =
      idIn(decodeUtf8Prefix(Buffer.from(head)), tail, ids) ??
      (ids.length === 1 ? ids[0] : undefined);
    if (id === undefined) return;
    calls.settle(id, {
      kind: 'failed',
      error: {
        kind: 'protocol',
        message: `mcp-server ${this.o.name} answered with ${bytes} bytes, more than the cap of ${cap}`,
      },
    });
  }

  /** The gateway offers the child nothing (no sampling, roots, elicitation): only ping is answered. */
  private answerRequest(child: ChildProcess, id: RpcId, method: string): void {
    this.write(
      child,
      method === 'ping'
        ? { jsonrpc: '2.0', id, result: {} }
        : {
            jsonrpc: '2.0',
            id,
            error: { code: -32601, message: `the gateway does not serve ${method}` },
          },
    );
  }

  private kill(child: ChildProcess, reason: string): void {
    if (this.child !== child || this.killReason !== undefined) return;
    this.killReason = reason;
    this.o.log('warn', `mcp-server ${this.o.name}: ${reason}`);
    child.kill('SIGKILL');
  }

  private died(child: ChildProcess | undefined, why: string): void {
    if (child !== undefined && this.child !== child) return;
    this.child = undefined;
    this.stderr.flush();
    const reason = this.killReason ?? `the child ${why}`;
    this.lastExit = reason;
    this.calls.failAll({
      kind: 'unavailable',
      message: `mcp-server ${this.o.name}: ${reason} while this call waited`,
    });
    if (this.stopped) return;
    // A child that ran for a while earns a fresh first delay; one that keeps dying waits longer.
    if (performance.now() - this.startedAt >= this.backoff.maxMs) this.backoff.reset();
    const delay = this.backoff.next();
    this.restartAt = performance.now() + delay;
    this.o.log('warn', `mcp-server ${this.o.name}: ${reason}; restarting in ${delay} ms`);
    this.restartTimer = setTimeout(() => this.start(), delay);
    this.restartTimer.unref?.();
  }

  private unavailable(): UpstreamReply {
    if (this.stopped)
      return {
        kind: 'failed',
        error: { kind: 'unavailable', message: `mcp-server ${this.o.name} is stopped` },
      };
    const left = Math.max(0, Math.round(this.restartAt - performance.now()));
    return {
      kind: 'failed',
      error: {
        kind: 'unavailable',
        message: `mcp-server ${this.o.name} is not running (${this.lastExit}); it restarts in ${left} ms`,
      },
    };
  }
}

/** The id of a waiting call that an overlong line's first or last bytes name. */
function idIn(head: string, tail: string, ids: readonly number[]): number | undefined {
  const found =
    /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(\d{1,15})\s*[,}]/.exec(head)?.[1] ??
    /[,{]\s*"id"\s*:\s*(\d{1,15})\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$/.exec(tail)?.[1];
  const id = found === undefined ? undefined : Number(found);
  return id !== undefined && ids.includes(id) ? id : undefined;
}

function errorText(err: unknown): string {
  const code = err && typeof err === 'object' ? (err as { code?: unknown }).code : undefined;
  const message = err instanceof Error ? err.message : String(err);
  return typeof code === 'string' ? `${code}: ${message}` : message;
}
