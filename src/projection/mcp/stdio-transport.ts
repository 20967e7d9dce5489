/**
 * MCP over stdio (`serve --stdio`): one JSON-RPC message per line on stdin, one answer
 * per line on stdout, nothing else on stdout. Only the framing is this file's: each line
 * goes through the same `readMessage` and `handleMessage` as a POST to `/mcp`, with no
 * headers (the stdio binding has none to mirror), so both eras, every refusal and every
 * guard are the HTTP endpoint's. Answers are written as they are ready: a slow
 * tools/call does not hold back a tools/list sent after it (ids pair them).
 */
import type { Readable, Writable } from 'node:stream';
import type { Caller } from '../../engine/caller.js';
import { Cancellation } from '../../outbound/cancellation.js';
import { TELEMETRY_OFF } from '../../telemetry/telemetry.js';
import { approvalPageUrl } from '../approval-url.js';
import { handleMessage, NO_HEADERS, readMessage } from './handle-message.js';
import type { McpRuntime } from './mcp-routes.js';
import { rpcError, type RpcReply } from './rpc-reply.js';
import { field } from './served-version.js';

export interface StdioOptions {
  readonly runtime: McpRuntime;
  /** The one caller of the process: the local user, or the API key it acts as. */
  readonly caller: Caller;
  readonly input: Readable;
  readonly output: Writable;
  /** A line longer than this is refused unread, as a POST body over the limit is. */
  readonly maxLineBytes: number;
  /** Cancelled when the process is told to stop (SIGTERM): the calls running end with it. */
  readonly stop: Cancellation;
  /** `--toolset`: serve that toolset's members only, as `/mcp/<toolset>` does over HTTP. */
  readonly toolset?: string;
}

const NEWLINE = 0x0a;

/**
 * Serves until stdin ends (the host closed it, or a shell's pipe ran out): the calls
 * still running finish (each within its grant's deadline) and are answered, then the
 * promise settles. `echo '<tools/call>' | mcp-beaver serve spec --stdio` prints its answer.
 */
export async function serveStdio(opts: StdioOptions): Promise<void> {
  const { runtime, caller, output, maxLineBytes } = opts;
  const { gateway } = runtime;
  // Chosen once: the process serves one endpoint's payloads for its whole life.
  const payloads =
    (opts.toolset !== undefined && runtime.toolsetPayloads.get(opts.toolset)) ||
    runtime.mcpPayloads;
  const view = gateway.view(payloads.toolset);
  const running = new Set<Promise<void>>();
  const write = (out: RpcReply): void => {
    // A notification is answered with nothing on stdio (its HTTP answer is a bare 202).
    if (out.status === 202) return;
    output.write(typeof out.body === 'string' ? `${out.body}\n` : Buffer.concat([out.body, LF]));
  };
  // Each call's cancellation, by request id: the host's notifications/cancelled and a
  // SIGTERM (`stop`) end it, as a closed connection does on HTTP.
  const cancels = new Map<unknown, Cancellation>();
  opts.stop.onCancel(() => {
    for (const c of cancels.values()) c.cancel();
  });
  const answer = (line: string): void => {
    if (line.trim() === '') return;
    const read = readMessage(line);
    const msg = read.ok ? read.msg.value : undefined;
    const cancelled = cancelledRequestOf(msg);
    if (cancelled !== undefined) cancels.get(cancelled)?.cancel();
    const id = field(msg, 'id');
    let cancel: Cancellation | undefined;
    const handled = handleMessage(read, NO_HEADERS, {
      gateway,
      payloads,
      view,
      caller,
      // No WWW-Authenticate on stdio: a refusal's message says what is missing.
      challenge: () => undefined,
      // Made on first use, as on HTTP: only a call into the engine asks for one.
      callerCancel: () => {
        if (!cancel) {
          cancel = new Cancellation();
          if (opts.stop.cancelled) cancel.cancel();
          else cancels.set(id, cancel);
        }
        return cancel;
      },
      // Unreached: --stdio refuses a spec with `approve` (its page is served over HTTP).
      approvalUrl: (approval) => approvalPageUrl('', approval),
      telemetry: runtime.telemetry ?? TELEMETRY_OFF,
    });
    if (!(handled instanceof Promise)) return write(handled);
    const done = handled
      .then(write, () => write(rpcError('INTERNAL', null, 'Internal error')))
      .finally(() => {
        if (cancel && cancels.get(id) === cancel) cancels.delete(id);
      });
    running.add(done);
    void done.finally(() => running.delete(done));
  };

  let chunks: Buffer[] = [];
  let size = 0;
  let overlong = false;
  for await (const chunk of opts.input as AsyncIterable<Buffer>) {
    let from = 0;
    for (let nl = chunk.indexOf(NEWLINE, from); nl !== -1; nl = chunk.indexOf(NEWLINE, from)) {
      const piece = chunk.subarray(from, nl);
      from = nl + 1;
      if (overlong || size + piece.length > maxLineBytes) {
        write(tooLong(maxLineBytes));
      } else {
        chunks.push(piece);
        answer(Buffer.concat(chunks).toString('utf8'));
      }
      chunks = [];
      size = 0;
      overlong = false;
    }
    const rest = chunk.subarray(from);
    // A line past the cap is dropped as it streams: memory stays bounded by the cap.
    if (overlong || size + rest.length > maxLineBytes) {
      overlong = true;
      chunks = [];
      size = 0;
    } else if (rest.length > 0) {
      chunks.push(rest);
      size += rest.length;
    }
  }
  // A last message without its newline is still a message.
  if (overlong) write(tooLong(maxLineBytes));
  else if (size > 0) answer(Buffer.concat(chunks).toString('utf8'));
  await Promise.allSettled([...running]);
}

const LF = Buffer.from('\n');

/** The request a `notifications/cancelled` names (either era sends it), if `msg` is one. */
function cancelledRequestOf(msg: unknown): unknown {
  if (field(msg, 'method') !== 'notifications/cancelled' || Object.hasOwn(Object(msg), 'id'))
    return undefined;
  return field(field(msg, 'params'), 'requestId');
}

function tooLong(maxLineBytes: number): RpcReply {
  return rpcError('PAYLOAD_TOO_LARGE', null, `message is over ${maxLineBytes} bytes`);
}
