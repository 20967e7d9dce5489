/**
 * The 2025-era form round trip of a `confirm` grant (docs/spec-language.md, "`confirm` in
 * the 2025 era"): the engine answered `ask`; the POST is then answered as an SSE stream
 * carrying `elicitation/create` under a fresh random id, kept alive by comment
 * lines while the client's answer is awaited (open-questions.ts), and closed by the
 * JSON-RPC response to the original request. The answer is handed back to the engine as
 * the same retry a 2026-07-28 client sends (the sealed state, `isRetry`, `answers.confirm`),
 * so "used once", the audit lines and the rate limit all stay in the engine's step.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { Question } from '../../engine/consent/questions.js';
import type { ConsentAudit } from '../../engine/consent/consent-types.js';
import { engineError, type EngineError } from '../../engine/error-catalogue.js';
import { resultText } from '../../mcp-wire/json-rpc.js';
import { CONFIRM_SCHEMA } from './confirm-form.js';
import type { RpcRequest } from './mcp-request.js';
import type { ConfirmAnswer, Outcome, QuestionTicket } from './open-questions.js';

import type { AskedQuestion, RpcReply } from './rpc-reply.js';
import { toolResultText } from './tool-result-text.js';

/** How often a comment line keeps a waiting stream (and the proxies on its way) open. */
export const KEEPALIVE_MS = 15_000;

export interface AskParts {
  readonly req: RpcRequest;
  readonly question: Extract<Question, { kind: 'confirm' }>;
  readonly ticket: QuestionTicket;
  /** The negotiated version: 2025-06-18 knows no `mode`, 2025-11-25 names it. */
  readonly version: string;
  readonly tool: string;
  readonly caller: string;
  readonly audit: ConsentAudit | undefined;
  /** The wait's bound, in ms (10 minutes; shorter only in tests). */
  readonly waitMs: number;
  resume(answer: ConfirmAnswer, state: string): Promise<RpcReply>;
}

const LEGACY_TAIL = { modern: false, meta: '' };

/** A wait in words: "10 minutes", or seconds below a minute. */
function spoken(ms: number): string {
  return ms >= 60_000 ? `${Math.round(ms / 60_000)} minutes` : `${Math.round(ms / 1000)} seconds`;
}

/** The failure text of the original request's response, as an isError tool result. */
function failureText(req: RpcRequest, error: EngineError): string {
  return resultText(req.id, toolResultText({ ok: false, error }, LEGACY_TAIL));
}

export function askedQuestion(p: AskParts): AskedQuestion {
  const { req, question, ticket } = p;
  const params = {
    ...(p.version !== '2025-06-18' && { mode: 'form' }),
    message: question.message,
    requestedSchema: CONFIRM_SCHEMA,
  };
  return {
    ticket,
    request: JSON.stringify({
      jsonrpc: '2.0',
      id: ticket.id,
      method: 'elicitation/create',
      params,
    }),
    resume: (answer) => p.resume(answer, question.state),
    unanswered: (kind) =>
      failureText(
        req,
        kind === 'timeout'
          ? engineError(
              'CONFIRMATION_TIMED_OUT',
              `the user did not answer the confirmation within ${spoken(p.waitMs)}; nothing was sent. The call may be made again`,
            )
          : kind === 'shutdown'
            ? engineError('DRAINING', 'the gateway is shutting down; nothing was sent')
            : engineError('INTERNAL', 'the confirmed call failed inside the gateway'),
      ),
    abandoned: (reason) =>
      p.audit?.({
        event: 'confirmation_abandoned',
        tool: p.tool,
        caller: p.caller,
        ...(question.argumentsDigest && { argumentsDigest: question.argumentsDigest }),
        reason,
      }),
  };
}

function event(res: ServerResponse, json: string): void {
  res.write(`event: message\ndata: ${json}\n\n`);
}

const ABANDONED: Record<Exclude<Outcome['kind'], 'answer'>, string> = {
  closed: 'the client closed the stream',
  cancelled: 'the client cancelled the call',
  timeout: 'no answer within the wait',
  shutdown: 'the gateway shut down',
};

/**
 * Answers the POST as the question's stream: the question, keep-alive comments, then the
 * response once the wait ends; nothing more when the client closed it.
 */
export async function streamQuestion(
  reply: FastifyReply,
  asked: AskedQuestion,
  keepAliveMs: number,
  headers: Readonly<Record<string, string>> | undefined,
): Promise<void> {
  const res = reply.raw;
  // The route writes this response itself: fastify sends nothing more for it.
  reply.hijack();
  const { ticket } = asked;
  const onClose = (): void => ticket.close();
  res.once('close', onClose);
  if (!res.destroyed) {
    res.writeHead(200, {
      ...headers,
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      'x-accel-buffering': 'no',
    });
    event(res, asked.request);
  } else ticket.close();
  const alive = setInterval(() => res.write(': keep-alive\n\n'), keepAliveMs);
  let outcome: Outcome;
  try {
    outcome = await ticket.outcome;
  } finally {
    clearInterval(alive);
  }
  let text: string;
  if (outcome.kind === 'answer') {
    try {
      const out = await asked.resume(outcome.answer);
      text = typeof out.body === 'string' ? out.body : out.body.toString('utf8');
    } catch {
      // The response is ours to write (hijacked): a bug here still ends the stream.
      text = asked.unanswered('internal');
    }
  } else {
    asked.abandoned(ABANDONED[outcome.kind]);
    if (outcome.kind === 'closed') return;
    if (outcome.kind === 'cancelled') {
      res.off('close', onClose);
      res.end();
      return;
    }
    text = asked.unanswered(outcome.kind);
  }
  res.off('close', onClose);
  if (res.destroyed) return;
  event(res, text);
  res.end();
}
