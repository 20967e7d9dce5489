/**
 * The questions a 2025-era `confirm` call is waiting on (docs/spec-language.md,
 * "`confirm` in the 2025 era"): each POST that asked holds its stream open until its
 * client POSTs the answer, which may arrive on any request of the same caller, and with
 * `limits redis-env` on any replica (redis-answers.ts relays it). One registry per
 * process, outliving reloads. Bounded: one caller holds at most 20, each waits at most
 * 10 minutes, and a drain answers them all.
 */
import { randomUUID } from 'node:crypto';
import type { Answers } from '../../engine/consent/questions.js';

export type ConfirmAnswer = NonNullable<Answers['confirm']>;

/** How a wait ended: the client's answer, its stream closed, the bound, or a shutdown. */
export type Outcome =
  | { readonly kind: 'answer'; readonly answer: ConfirmAnswer }
  | { readonly kind: 'closed' | 'cancelled' | 'timeout' | 'shutdown' };

/** One open question: its id on the wire, and the end of its wait. */
export interface QuestionTicket {
  /** The `elicitation/create` request's id: a random UUID (122 random bits, 36 characters). */
  readonly id: string;
  readonly outcome: Promise<Outcome>;
  /** The client closed the stream: the question is dropped. */
  close(): void;
}

/** Where an answer that reached another replica comes from (redis-answers.ts). */
export interface AnswerRelay {
  /** Records that this replica asks `id` for `callerKey`, for `ttlMs`. */
  record(id: string, callerKey: string, ttlMs: number): Promise<void>;
  /** The question is no longer open here. */
  forget(id: string): void;
  /** Whether `id` is open on some replica for `callerKey`; taken, so a second answer is refused. */
  claim(id: string, callerKey: string): Promise<boolean>;
  /** Hands `answer` to the replica asking `id`. */
  publish(id: string, answer: ConfirmAnswer): Promise<void>;
  /** Where this replica is told of answers published for its questions. */
  listen(take: (id: string, answer: ConfirmAnswer) => void): void;
  close(): Promise<void>;
}

/** The spec's bounds. */
export const QUESTION_WAIT_MS = 10 * 60_000;
export const QUESTIONS_PER_CALLER = 20;

interface Entry {
  readonly callerKey: string;
  /** The asking request, as its client names it in notifications/cancelled. */
  readonly origin: string | undefined;
  readonly settle: (o: Outcome) => void;
}

export interface OpenQuestionsOptions {
  readonly waitMs?: number;
  /** How often a waiting stream gets a comment line (question-stream.ts). */
  readonly keepAliveMs?: number;
  readonly perCaller?: number;
  readonly relay?: AnswerRelay;
  /** Told when the relay fails to record or publish (Redis away): the question stays local. */
  readonly onRelayError?: (err: Error) => void;
}

/** The key of a request in its client's words: its session id and its JSON-RPC id. */
export function originOf(sessionId: string, requestId: unknown): string {
  return `${sessionId}\n${typeof requestId}:${String(requestId)}`;
}

export class OpenQuestions {
  private readonly open = new Map<string, Entry>();
  /** Question ids by the request that asked them (session id and request id). */
  private readonly byOrigin = new Map<string, string>();
  private readonly held = new Map<string, number>();
  readonly waitMs: number;
  readonly keepAliveMs: number;
  private readonly perCaller: number;
  private readonly relay: AnswerRelay | undefined;
  private readonly onRelayError: (err: Error) => void;
  private draining = false;

  constructor(opts: OpenQuestionsOptions = {}) {
    this.waitMs = opts.waitMs ?? QUESTION_WAIT_MS;
    this.keepAliveMs = opts.keepAliveMs ?? 15_000;
    this.perCaller = opts.perCaller ?? QUESTIONS_PER_CALLER;
    this.relay = opts.relay;
    this.onRelayError = opts.onRelayError ?? (() => undefined);
    this.relay?.listen((id, answer) => this.settle(id, { kind: 'answer', answer }));
  }

  /** Questions open now, on this replica. */
  get size(): number {
    return this.open.size;
  }

  /**
   * A new open question for `callerKey`, or undefined when it already holds its 20.
   * `origin` names the asking request (originOf), so that the client's
   * notifications/cancelled of it drops the question.
   */
  reserve(callerKey: string, origin?: string): QuestionTicket | undefined {
    // A call that was asked just as the drain began: its question ends at once.
    if (this.draining)
      return {
        id: randomUUID(),
        outcome: Promise.resolve({ kind: 'shutdown' }),
        close: () => undefined,
      };
    const count = this.held.get(callerKey) ?? 0;
    if (count >= this.perCaller) return undefined;
    this.held.set(callerKey, count + 1);
    // randomUUID draws from a cached batch of random bytes: a randomBytes call per
    // question showed in profiles.
    const id = randomUUID();
    let settle!: (o: Outcome) => void;
    const outcome = new Promise<Outcome>((resolve) => (settle = resolve));
    const timer = setTimeout(() => this.settle(id, { kind: 'timeout' }), this.waitMs);
    timer.unref();
    if (origin !== undefined) this.byOrigin.set(origin, id);
    this.open.set(id, {
      callerKey,
      origin,
      settle: (o) => {
        clearTimeout(timer);
        settle(o);
      },
    });
    this.relay?.record(id, callerKey, this.waitMs).catch(this.onRelayError);
    return { id, outcome, close: () => this.settle(id, { kind: 'closed' }) };
  }

  /**
   * The client's answer to question `id`: true when it was an open question of this
   * caller (here, or on another replica through the relay), false when it answers none.
   */
  answer(id: unknown, callerKey: string, answer: ConfirmAnswer): boolean | Promise<boolean> {
    if (typeof id !== 'string') return false;
    const here = this.open.get(id);
    if (here) {
      if (here.callerKey !== callerKey) return false;
      this.settle(id, { kind: 'answer', answer });
      return true;
    }
    const relay = this.relay;
    if (!relay) return false;
    return relay.claim(id, callerKey).then(
      async (mine) => {
        if (mine) await relay.publish(id, answer);
        return mine;
      },
      (err: Error) => {
        this.onRelayError(err);
        return false;
      },
    );
  }

  /**
   * The client cancelled the request that asked (notifications/cancelled, SDK timeouts
   * send one): its question is dropped and its stream ends with no response, as the
   * protocol says of a cancelled request. Only on the replica that asked.
   */
  cancel(origin: string, callerKey: string): void {
    const id = this.byOrigin.get(origin);
    if (id !== undefined && this.open.get(id)?.callerKey === callerKey)
      this.settle(id, { kind: 'cancelled' });
  }

  /** The shutdown: every open question ends now, its stream told why. */
  drain(): void {
    this.draining = true;
    for (const id of [...this.open.keys()]) this.settle(id, { kind: 'shutdown' });
  }

  async close(): Promise<void> {
    this.drain();
    await this.relay?.close();
  }

  private settle(id: string, outcome: Outcome): void {
    const entry = this.open.get(id);
    if (!entry) return;
    this.open.delete(id);
    if (entry.origin !== undefined) this.byOrigin.delete(entry.origin);
    const count = (this.held.get(entry.callerKey) ?? 1) - 1;
    if (count <= 0) this.held.delete(entry.callerKey);
    else this.held.set(entry.callerKey, count);
    // An answer that came through the relay was claimed there already.
    this.relay?.forget(id);
    entry.settle(outcome);
  }
}
