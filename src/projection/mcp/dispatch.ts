/** Method tables per era: the method string picks the handler before params are read. */
import { callArguments } from '../../engine/call-arguments.js';
import { isRpcError } from './rpc-codes.js';
import { connectElicitation } from './connect-elicitation.js';
import { rpcError, type RpcReply } from './rpc-reply.js';
import { LARGE_ANSWER_CHARS } from '../../json/text-parts.js';
import { resultBytes, resultFromParts, resultText } from '../../mcp-wire/json-rpc.js';
import type { McpDeps, RpcRequest } from './mcp-request.js';
import { completeArgument } from './completion-method.js';
import { requestScopeOf, callRefusal } from './method-support.js';
import { getPrompt, listPrompts } from './prompt-methods.js';
import { listResources, listTemplates, readResource } from './resource-methods.js';
import { toolResultParts, toolResultText, type ResultTail } from './tool-result-text.js';
import {
  inputRequiredText,
  missingCapabilityReply,
  questionsOf,
  urlElicitationRequired,
} from './consent-round-trip.js';
import { NO_EVENT_STREAM, UNDECLARED } from '../unaskable.js';
import { callerKey, declaredModes, type SessionCaps } from './session-id.js';
import { originOf, QUESTIONS_PER_CALLER, type ConfirmAnswer } from './open-questions.js';
import { askedQuestion } from './question-stream.js';
import { engineError } from '../../engine/error-catalogue.js';
import type { Question, Questions } from '../../engine/consent/questions.js';
import type { RequestScope } from '../../engine/call-context.js';
import type { Done, Failed, Outcome } from '../../engine/execute.js';
import { isLegacyVersion, LEGACY_VERSIONS, type Era } from '../../mcp-wire/versions.js';
import { recordCall } from '../../telemetry/call-span.js';

type Handler = (
  req: RpcRequest,
  deps: McpDeps,
  era: Era,
  session?: SessionCaps,
) => RpcReply | Promise<RpcReply>;

function ok(req: RpcRequest, json: string): RpcReply {
  return { status: 200, body: resultText(req.id, json) };
}

function okBytes(req: RpcRequest, bytes: Buffer): RpcReply {
  return { status: 200, body: resultBytes(req.id, bytes) };
}

/** Resources, prompts and completions: the same handlers in both eras. */
const SPEC_METHODS: readonly (readonly [string, Handler])[] = [
  ['resources/list', listResources],
  ['resources/templates/list', listTemplates],
  ['resources/read', readResource],
  ['prompts/list', listPrompts],
  ['prompts/get', getPrompt],
  ['completion/complete', completeArgument],
];

const MODERN: ReadonlyMap<string, Handler> = new Map<string, Handler>([
  ['server/discover', (req, d) => ok(req, d.payloads.discover)],
  ['tools/list', (req, d) => okBytes(req, d.payloads.toolLists(d.caller).modern)],
  ['tools/call', answerToolsCall],
  ...SPEC_METHODS,
]);

const LEGACY: ReadonlyMap<string, Handler> = new Map<string, Handler>([
  [
    'initialize',
    (req, d) => {
      const asked = req.params?.protocolVersion;
      // An unknown version gets our newest as a counter-offer; the client decides.
      const version =
        typeof asked === 'string' && isLegacyVersion(asked) ? asked : LEGACY_VERSIONS[0];
      const body = resultText(req.id, d.payloads.initialize.get(version)!);
      if (!d.sessions) return { status: 200, body };
      // What the client declared, sealed into the session id it sends back (session-id.ts).
      const caps = declaredModes(version, req.params?.capabilities);
      return { status: 200, body, headers: { 'mcp-session-id': d.sessions.seal(caps, d.caller) } };
    },
  ],
  ['ping', (req) => ok(req, '{}')],
  ['tools/list', (req, d) => okBytes(req, d.payloads.toolLists(d.caller).legacy)],
  ['tools/call', answerToolsCall],
  ...SPEC_METHODS,
]);

export function dispatchModern(req: RpcRequest, deps: McpDeps): Promise<RpcReply> | RpcReply {
  const handler = MODERN.get(req.method);
  if (!handler) return rpcError('METHOD_NOT_FOUND', req.id, `Method not found: ${req.method}`);
  return handler(req, deps, 'modern');
}

export function dispatchLegacy(
  req: RpcRequest,
  deps: McpDeps,
  session?: SessionCaps,
): Promise<RpcReply> | RpcReply {
  const handler = LEGACY.get(req.method);
  if (!handler)
    return rpcError('METHOD_NOT_FOUND', req.id, `Method not found: ${req.method}`, {
      legacy: true,
    });
  return handler(req, deps, 'legacy', session);
}

/** Where no page is served (stdio), a request is never sent to one: it cannot visit. */
function pagesServed(q: Questions, deps: McpDeps): Questions {
  return deps.confirmationUrl || !q.canVisit ? q : { ...q, canVisit: false };
}

/** What a modern result carries after its content; a legacy result carries nothing more. */
function resultTail(deps: McpDeps, era: Era): ResultTail {
  return { modern: era === 'modern', meta: deps.payloads.modernMeta };
}

/** The retry of a 2025-era question answered on its stream: what it was asked. */
const ASKED_ON_STREAM: Questions = { canConfirm: true, canVisit: false, isRetry: false };

/**
 * The questions and wording of a call to a grant with `confirm` or `approve`: a
 * 2026-07-28 request says on itself what it can be asked; a 2025-era one said it in
 * `initialize` (its session id): it is asked to confirm on the POST's stream when it
 * declared form elicitation and takes a stream, and sent to the confirmation page when
 * it declared URL elicitation. Its retry is the same call repeated (no state echoed), so
 * it is never sent to an approval's page.
 */
function askingScope(
  req: RpcRequest,
  deps: McpDeps,
  era: Era,
  session: SessionCaps | undefined,
): Pick<RequestScope, 'questions' | 'unaskable'> | undefined {
  if (era === 'modern')
    return { questions: pagesServed(questionsOf(req), deps), unaskable: UNDECLARED };
  if (!session) return undefined;
  const onStream = session.form && deps.questions !== undefined && deps.acceptsStream === true;
  const onPage = session.url && deps.confirmationUrl !== undefined;
  if (onStream || onPage)
    return {
      questions: { canConfirm: onStream, canVisit: onPage, isRetry: false },
      unaskable: NO_EVENT_STREAM,
    };
  return session.form && deps.questions ? { unaskable: NO_EVENT_STREAM } : undefined;
}

async function answerToolsCall(
  req: RpcRequest,
  deps: McpDeps,
  era: Era,
  session?: SessionCaps,
): Promise<RpcReply> {
  const name = req.params?.name;
  if (typeof name !== 'string')
    return rpcError('INVALID_PARAMS', req.id, 'tools/call needs params.name (a string)');
  const op = deps.view.operation(name);
  if (!op) return rpcError('UNKNOWN_TOOL', req.id, `Unknown tool: ${JSON.stringify(name)}`);
  // What arguments may be is the engine's decision; a call it refuses is malformed (-32602).
  const args = callArguments(op.name, {
    value: req.params?.arguments,
    texts: req.paramsTexts?.at('arguments'),
  });
  if (!args.ok)
    return rpcError('INVALID_PARAMS', req.id, 'tools/call params.arguments must be an object');
  const scope = requestScopeOf(req, deps, era);
  // Only a grant with confirm/approve, from a request that can ask its user, can be
  // answered with a question.
  const asking = op.consent && askingScope(req, deps, era, session);
  const asked = asking ? { ...scope, ...asking } : scope;
  const out = await deps.gateway.call(op, args.args, asked);
  if (deps.span?.recording) recordCall(deps.span, op, scope.caller, out);
  if ('asked' in out) {
    const pages = { approval: deps.approvalUrl, confirmation: deps.confirmationUrl };
    if (era === 'modern')
      return ok(req, inputRequiredText(out.asked, pages, deps.payloads.modernMeta));
    // The 2025 era: a form question goes on the POST's own stream ...
    if (out.asked.kind === 'confirm')
      return askOnStream(req, deps, out.asked, session!, (answer, state) =>
        deps.gateway.call(op, args.args, {
          ...asked,
          questions: {
            ...ASKED_ON_STREAM,
            isRetry: true,
            answers: { confirm: answer, visited: false },
            state,
          },
        }),
      );
    // ... a page to open is -32042, and the client repeats the same call.
    return (
      urlElicitationRequired(req, out.asked, pages) ??
      rpcError('INTERNAL', req.id, 'a 2025-era request was asked a question it cannot be put')
    );
  }
  // No connected account (auth user): a client that can open a page is sent to connect one.
  if (!out.ok && out.error.code === 'AUTHORIZATION_REQUIRED') {
    const canVisit = era === 'modern' ? questionsOf(req).canVisit : session?.url === true;
    const connect = connectElicitation(req, era, out.error, canVisit, deps.payloads.modernMeta);
    if (connect) return connect;
  }
  return callReply(req, deps, era, out);
}

/** A call's outcome as the response to its tools/call. */
function callReply(req: RpcRequest, deps: McpDeps, era: Era, out: Done | Failed): RpcReply {
  if (!out.ok) {
    // The catalogue says which failures refuse the call itself (a missing scope: HTTP 403
    // with its challenge) rather than answer it with a tool result.
    if (isRpcError(out.error.code)) return callRefusal(req, deps, era, out.error);
    if (era === 'modern') {
      const missing = missingCapabilityReply(req, out.error);
      if (missing) return missing;
    }
  }
  const tail = resultTail(deps, era);
  if (out.ok && out.envelope.json.length > LARGE_ANSWER_CHARS)
    return {
      status: 200,
      body: resultFromParts(req.id, toolResultParts(out, tail)),
      jsonText: true,
    };
  const body = resultText(req.id, toolResultText(out, tail));
  return out.ok ? { status: 200, body } : { status: 200, body, errorType: out.error.code };
}

/**
 * The 2025-era question: an open question of this caller (RATE_LIMITED beyond its 20),
 * put on the POST's stream by the route (question-stream.ts); the answer runs `retry`.
 */
function askOnStream(
  req: RpcRequest,
  deps: McpDeps,
  question: Question,
  session: SessionCaps,
  retry: (answer: ConfirmAnswer, state: string) => Promise<Outcome>,
): RpcReply {
  const questions = deps.questions!;
  const ticket =
    question.kind === 'confirm' &&
    questions.reserve(callerKey(deps.caller), originOf(deps.sessionId!, req.id));
  if (!ticket) {
    // The engine asked (and logged the request); the question is never put.
    deps.gateway.consent?.audit?.({
      event: 'confirmation_abandoned',
      tool: req.params!.name as string,
      caller: deps.caller.id,
      ...(question.kind === 'confirm' &&
        question.argumentsDigest && { argumentsDigest: question.argumentsDigest }),
      reason: `the caller already holds ${QUESTIONS_PER_CALLER} open questions`,
    });
    const error = engineError(
      'RATE_LIMITED',
      `this caller already waits on ${QUESTIONS_PER_CALLER} confirmations; answer or close one first. Nothing was asked or sent`,
    );
    return callReply(req, deps, 'legacy', { ok: false, error });
  }
  const confirm = question as Extract<Question, { kind: 'confirm' }>;
  return {
    status: 200,
    body: '',
    question: askedQuestion({
      req,
      question: confirm,
      ticket,
      version: session.version,
      tool: req.params!.name as string,
      caller: deps.caller.id,
      audit: deps.gateway.consent?.audit,
      waitMs: questions.waitMs,
      async resume(answer, state) {
        const out = await retry(answer, state);
        if ('asked' in out)
          return callReply(req, deps, 'legacy', {
            ok: false,
            error: engineError('INTERNAL', 'the retry of a confirmation asked again'),
          });
        return callReply(req, deps, 'legacy', out);
      },
    }),
  };
}
