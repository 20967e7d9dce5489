/**
 * The 2026-07-28 side of `confirm` and `approve` (docs/spec-language.md, "Confirmation
 * and approval"): what a request says about asking its user, the `input_required`
 * answer (MRTR: the question and a sealed state, no session), and the -32021 a request
 * gets when it did not declare the capability a confirmation needs.
 */
import type { ConsentChannel, InputRequired } from '../../engine/consent/consent-types.js';
import type { EngineError } from '../../engine/error-catalogue.js';
import { rpcRow } from './rpc-codes.js';
import type { RpcReply } from './rpc-reply.js';
import { errorText } from '../../mcp-wire/json-rpc.js';
import type { RpcRequest } from './mcp-request.js';
import { actionableMessage } from './tool-result-text.js';
import { META_CLIENT_CAPABILITIES } from '../../mcp-wire/versions.js';

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * The request's elicitation capability and its retry fields. An empty `elicitation`
 * object means form mode (the modes were split out later, form staying the default).
 */
export function consentChannelOf(req: RpcRequest): ConsentChannel {
  const params = req.params ?? {};
  const meta = isObject(params._meta) ? params._meta : undefined;
  const caps = isObject(meta?.[META_CLIENT_CAPABILITIES]) ? meta[META_CLIENT_CAPABILITIES] : {};
  const elicitation = isObject(caps.elicitation) ? caps.elicitation : undefined;
  const modes = elicitation === undefined ? 0 : Object.keys(elicitation).length;
  return {
    elicitForm: elicitation !== undefined && (modes === 0 || isObject(elicitation.form)),
    elicitUrl: elicitation !== undefined && isObject(elicitation.url),
    ...(params.inputResponses !== undefined && { inputResponses: params.inputResponses }),
    ...(params.requestState !== undefined && { requestState: params.requestState }),
  };
}

/** `{resultType:"input_required", inputRequests, requestState}` with the modern `_meta`. */
export function inputRequiredText(asked: InputRequired, modernMeta: string): string {
  return `{"resultType":"input_required","inputRequests":${JSON.stringify(asked.inputRequests)},"requestState":${JSON.stringify(asked.requestState)},"_meta":${modernMeta}}`;
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
  const data = { ...(isObject(e.details) ? e.details : {}), code: e.code };
  return {
    status: 400,
    // The message names the code too: the SDKs rebuild `data` from requiredCapabilities
    // alone, so an agent may see nothing else of it.
    body: errorText(req.id, row.modernRpc, actionableMessage(e), data),
    errorType: e.code,
  };
}
