/**
 * AUTHORIZATION_REQUIRED (`auth user`: the caller has no connected account) as an MCP
 * client that declared URL elicitation is asked to open a page, the way the approval and
 * confirmation pages are put (consent-round-trip.ts): in the 2026-07-28 era an
 * `input_required` result with one URL elicitation, in the 2025-11-25 era the
 * URL-elicitation-required error (-32042). Either way the client opens the connect link,
 * then makes the same call again; nothing was sent upstream. A client that declared no
 * URL elicitation gets the ordinary error result, whose text gives the code and the link.
 */
import { createHash } from 'node:crypto';
import type { EngineError } from '../../engine/error-catalogue.js';
import { errorText, resultText } from '../../mcp-wire/json-rpc.js';
import type { Era } from '../../mcp-wire/versions.js';
import type { RpcRequest } from './mcp-request.js';
import { RPC } from './rpc-codes.js';
import type { RpcReply } from './rpc-reply.js';

interface Authorization {
  readonly provider: string;
  readonly url: string;
}

function authorizationOf(e: EngineError): Authorization | undefined {
  const a = (e.details as { authorization?: Partial<Authorization> } | undefined)?.authorization;
  return typeof a?.url === 'string' && typeof a.provider === 'string'
    ? { provider: a.provider, url: a.url }
    : undefined;
}

/** The reply that asks the client to open the connect link, or undefined to answer as usual. */
export function connectElicitation(
  req: RpcRequest,
  era: Era,
  e: EngineError,
  canVisit: boolean,
  modernMeta: string,
): RpcReply | undefined {
  if (e.code !== 'AUTHORIZATION_REQUIRED' || !canVisit) return undefined;
  const a = authorizationOf(e);
  if (!a) return undefined;
  const message = `Connect your ${a.provider} account on the page this link opens, then make the same call again`;
  const elicitation = { mode: 'url', message, url: a.url };
  if (era === 'modern') {
    const inputRequests = { connect: { method: 'elicitation/create', params: elicitation } };
    // The state only names the link: the retry is a plain call, decided by the store.
    const state = createHash('sha256').update(a.url).digest('base64url').slice(0, 22);
    return {
      status: 200,
      body: resultText(
        req.id,
        `{"resultType":"input_required","inputRequests":${JSON.stringify(inputRequests)},"requestState":${JSON.stringify(state)},"_meta":${modernMeta}}`,
      ),
      errorType: e.code,
    };
  }
  const elicitationId = createHash('sha256').update(a.url).digest('base64url').slice(0, 22);
  return {
    status: 200,
    body: errorText(req.id, RPC.URL_ELICITATION_REQUIRED, `${message}: ${a.url}`, {
      elicitations: [{ ...elicitation, elicitationId }],
      code: e.code,
    }),
    errorType: e.code,
  };
}
