/**
 * The 2026-07-28 side of `confirm` and `approve` (docs/spec-language.md, "Confirmation
 * and approval"): what a request says about asking its user, read into the engine's
 * neutral questions; the engine's question rendered as the `input_required` answer
 * (MRTR: an elicitation and a sealed state, no session), the pages' URLs built here;
 * and the -32021 a request gets when it did not declare the capability a confirmation
 * needs. A 2025-era request sent to a page gets the URL-elicitation-required error
 * (-32042) instead, and repeats the same call.
 */
import type { Question, Questions } from '../../engine/consent/questions.js';
import type { EngineError } from '../../engine/error-catalogue.js';
import { RPC, rpcRow } from './rpc-codes.js';
import { CONFIRM_SCHEMA } from './confirm-form.js';
import type { RpcReply } from './rpc-reply.js';
import { errorText } from '../../mcp-wire/json-rpc.js';
import type { RpcRequest } from './mcp-request.js';
import { actionableMessage } from './tool-result-text.js';
import { META_CLIENT_CAPABILITIES } from '../../mcp-wire/versions.js';
import { confirmPageUrl, type PageUrls } from '../approval-url.js';

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * The request's elicitation capability and its retry fields, in the engine's words. An
 * empty `elicitation` object means form mode (the modes were split out later, form
 * staying the default).
 */
export function questionsOf(req: RpcRequest): Questions {
  const params = req.params ?? {};
  const meta = isObject(params._meta) ? params._meta : undefined;
  const caps = isObject(meta?.[META_CLIENT_CAPABILITIES]) ? meta[META_CLIENT_CAPABILITIES] : {};
  const elicitation = isObject(caps.elicitation) ? caps.elicitation : undefined;
  const modes = elicitation === undefined ? 0 : Object.keys(elicitation).length;
  const responses = isObject(params.inputResponses) ? params.inputResponses : undefined;
  return {
    canConfirm: elicitation !== undefined && (modes === 0 || isObject(elicitation.form)),
    canVisit: elicitation !== undefined && isObject(elicitation.url),
    echoesState: true,
    isRetry: params.requestState !== undefined || params.inputResponses !== undefined,
    ...(responses && {
      answers: {
        confirm: confirmAnswer(responses.confirm),
        visited: Object.hasOwn(responses, 'approve'),
      },
    }),
    ...(params.requestState !== undefined && { state: params.requestState }),
  };
}

/** A form elicitation's result as a yes, no or dismissal; anything else says neither. */
export function confirmAnswer(
  answer: unknown,
): NonNullable<NonNullable<Questions['answers']>['confirm']> {
  const action = isObject(answer) ? answer.action : undefined;
  const said = isObject(answer) && isObject(answer.content) ? answer.content.confirm : undefined;
  if (action === 'cancel') return 'dismissed';
  if (action === 'decline' || (action === 'accept' && said === false)) return 'no';
  return action === 'accept' && said === true ? 'yes' : 'unreadable';
}

type PageQuestion = Exclude<Question, { kind: 'confirm' }>;

/** The URL elicitation of a page question (2026-07-28: no elicitationId, which it dropped). */
function urlElicitation(
  q: PageQuestion,
  pages: PageUrls,
): { mode: string; message: string; url: string } {
  if (q.kind === 'visit')
    return { mode: 'url', message: q.message, url: pages.approval(q.approvalId) };
  // Unreached without pages: dispatch never lets such a request be sent to one.
  const url = (pages.confirmation ?? ((id) => confirmPageUrl('', id)))(q.confirmationId);
  return { mode: 'url', message: q.message, url };
}

/**
 * The page's id as the 2025-11-25 elicitationId it requires: a question asked again
 * names the same one.
 */
const elicitationIdOf = (q: PageQuestion): string =>
  q.kind === 'visit' ? q.approvalId : q.confirmationId;

/**
 * The elicitation that puts the engine's question: a form to confirm, the confirmation
 * page, or an approval's page.
 */
function inputRequests(q: Question, pages: PageUrls): object {
  const ask = (params: object) => ({ method: 'elicitation/create', params });
  switch (q.kind) {
    case 'confirm':
      return {
        confirm: ask({ mode: 'form', message: q.message, requestedSchema: CONFIRM_SCHEMA }),
      };
    case 'confirm-page':
      return { confirm: ask(urlElicitation(q, pages)) };
    case 'visit':
      return { approve: ask(urlElicitation(q, pages)) };
  }
}

/** `{resultType:"input_required", inputRequests, requestState}` with the modern `_meta`. */
export function inputRequiredText(q: Question, pages: PageUrls, modernMeta: string): string {
  return `{"resultType":"input_required","inputRequests":${JSON.stringify(inputRequests(q, pages))},"requestState":${JSON.stringify(q.state)},"_meta":${modernMeta}}`;
}

/**
 * A 2025-era request sent to a page: the URL-elicitation-required error (-32042, in an
 * HTTP 200 as every 2025-era JSON-RPC error of a call) whose `data.elicitations` holds
 * the page's URL elicitation. The client opens it and repeats the same call; there is no
 * state to echo, the record on the page decides. Undefined for a question in place (a
 * form), which this error cannot carry.
 */
export function urlElicitationRequired(
  req: RpcRequest,
  q: Question,
  pages: PageUrls,
): RpcReply | undefined {
  if (q.kind === 'confirm') return undefined;
  const elicitation = { ...urlElicitation(q, pages), elicitationId: elicitationIdOf(q) };
  const lead =
    q.kind === 'confirm-page'
      ? 'This call runs once its user confirms it on the page this link opens; then make the same call again'
      : 'This call waits for approval on the page this link opens; make the same call again once it is approved';
  return {
    status: 200,
    body: errorText(req.id, RPC.URL_ELICITATION_REQUIRED, `${lead}: ${elicitation.url}`, {
      elicitations: [elicitation],
    }),
  };
}

/**
 * A failure whose catalogue row has a 2026-07-28 JSON-RPC code (CONFIRMATION_UNAVAILABLE:
 * -32021) as that error, HTTP 400 as the SDKs send it, with the capability it lacks in
 * `data.requiredCapabilities` and the catalogue code beside it (and at the head of the
 * message); undefined for the rest.
 */
export function missingCapabilityReply(req: RpcRequest, e: EngineError): RpcReply | undefined {
  const row = rpcRow(e.code);
  if (row.modernRpc === undefined) return undefined;
  const data = {
    requiredCapabilities: { elicitation: {} },
    ...(isObject(e.details) ? e.details : {}),
    code: e.code,
  };
  return {
    status: 400,
    // The message names the code too: the SDKs rebuild `data` from requiredCapabilities
    // alone, so an agent may see nothing else of it.
    body: errorText(req.id, row.modernRpc, actionableMessage(e), data),
    errorType: e.code,
  };
}
