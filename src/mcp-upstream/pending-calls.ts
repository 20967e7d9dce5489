/**
 * Calls in flight on one stdio child, multiplexed by JSON-RPC id: each has its own
 * deadline and settles exactly once, by its answer, its deadline, its caller going
 * away, or the child's death (failAll). Ids are numbers this process hands out, never
 * reused within one child's life, so a late answer to a timed-out call finds nothing.
 */
import type { Cancellation } from '../outbound/cancellation.js';
import type { UpstreamReply } from './rpc-channel.js';
import type { RpcId } from '../mcp-wire/json-rpc.js';
import type { UpstreamFailure } from './upstream-outcome.js';

interface Pending {
  readonly settle: (reply: UpstreamReply) => void;
  /** Set once the child wrote non-JSON while this call waited: said again at its deadline. */
  noise?: string;
}

export interface AddedCall {
  readonly id: number;
  readonly reply: Promise<UpstreamReply>;
}

export class PendingCalls {
  private readonly calls = new Map<number, Pending>();
  private nextId = 1;

  get size(): number {
    return this.calls.size;
  }

  ids(): number[] {
    return [...this.calls.keys()];
  }

  /**
   * Registers a call. `onGiveUp` runs when the deadline or the caller ends it (to tell
   * the child with `notifications/cancelled`), not when an answer or failAll does.
   */
  add(
    timeoutMs: number,
    cancel: Cancellation | undefined,
    describe: string,
    onGiveUp: (id: number) => void,
  ): AddedCall {
    const id = this.nextId++;
    const reply = new Promise<UpstreamReply>((resolve) => {
      const timer = setTimeout(() => {
        const noise = this.calls.get(id)?.noise;
        if (!end()) return;
        onGiveUp(id);
        resolve(
          failure(
            noise === undefined ? 'timeout' : 'protocol',
            noise === undefined
              ? `no answer to ${describe} within ${timeoutMs} ms`
              : `no answer to ${describe} within ${timeoutMs} ms; meanwhile the child wrote non-JSON to stdout: ${noise}`,
          ),
        );
      }, timeoutMs);
      const end = (): boolean => {
        if (!this.calls.delete(id)) return false;
        clearTimeout(timer);
        cancel?.onCancel(undefined);
        return true;
      };
      this.calls.set(id, {
        settle: (r) => {
          if (end()) resolve(r);
        },
      });
      if (cancel?.cancelled) {
        end();
        resolve(failure('unavailable', 'the call was cancelled by the caller'));
        return;
      }
      cancel?.onCancel(() => {
        if (!end()) return;
        onGiveUp(id);
        resolve(failure('unavailable', 'the call was cancelled by the caller'));
      });
    });
    return { id, reply };
  }

  /** Delivers an answer; false when no call waits for `id` (late, or never ours). */
  settle(id: RpcId, reply: UpstreamReply): boolean {
    const call = typeof id === 'number' ? this.calls.get(id) : undefined;
    if (!call) return false;
    call.settle(reply);
    return true;
  }

  /** Remembers that non-JSON arrived while `id` waited (see Pending.noise). */
  noteNoise(id: number, excerpt: string): void {
    const call = this.calls.get(id);
    if (call && call.noise === undefined) call.noise = excerpt;
  }

  failAll(error: UpstreamFailure): void {
    for (const call of [...this.calls.values()]) call.settle({ kind: 'failed', error });
  }
}

function failure(kind: 'timeout' | 'unavailable' | 'protocol', message: string): UpstreamReply {
  return { kind: 'failed', error: { kind, message } };
}
