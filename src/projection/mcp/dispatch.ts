/** Method tables per era: the method string picks the handler before params are read. */
import { callArguments } from '../../engine/call-arguments.js';
import { isRpcError } from './rpc-codes.js';
import { rpcError, type RpcReply } from './rpc-reply.js';
import { resultBytes, resultText } from '../../mcp-wire/json-rpc.js';
import type { McpDeps, RpcRequest } from './mcp-request.js';
import { completeArgument } from './completion-method.js';
import { requestScopeOf, callRefusal } from './method-support.js';
import { getPrompt, listPrompts } from './prompt-methods.js';
import { listResources, listTemplates, readResource } from './resource-methods.js';
import { toolResultText, type ResultTail } from './tool-result-text.js';
import {
  inputRequiredText,
  missingCapabilityReply,
  questionsOf,
  urlElicitationRequired,
} from './consent-round-trip.js';
import { UNDECLARED } from '../unaskable.js';
import type { Questions } from '../../engine/consent/questions.js';
import { isLegacyVersion, LEGACY_VERSIONS, type Era } from '../../mcp-wire/versions.js';
import { recordCall } from '../../telemetry/call-span.js';

type Handler = (req: RpcRequest, deps: McpDeps, era: Era) => RpcReply | Promise<RpcReply>;

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
      return ok(req, d.payloads.initialize.get(version)!);
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

export function dispatchLegacy(req: RpcRequest, deps: McpDeps): Promise<RpcReply> | RpcReply {
  const handler = LEGACY.get(req.method);
  if (!handler)
    return rpcError('METHOD_NOT_FOUND', req.id, `Method not found: ${req.method}`, {
      legacy: true,
    });
  return handler(req, deps, 'legacy');
}

/** Where no page is served (stdio), a request is never sent to one: it cannot visit. */
function pagesServed(q: Questions, deps: McpDeps): Questions {
  return deps.confirmationUrl || !q.canVisit ? q : { ...q, canVisit: false };
}

/** What a modern result carries after its content; a legacy result carries nothing more. */
function resultTail(deps: McpDeps, era: Era): ResultTail {
  return { modern: era === 'modern', meta: deps.payloads.modernMeta };
}

async function answerToolsCall(req: RpcRequest, deps: McpDeps, era: Era): Promise<RpcReply> {
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
  // Only a grant with confirm/approve, called in 2026-07-28, can be answered with a question.
  const out = await deps.gateway.call(
    op,
    args.args,
    op.consent && era === 'modern'
      ? { ...scope, questions: pagesServed(questionsOf(req), deps), unaskable: UNDECLARED }
      : scope,
  );
  if (deps.span?.recording) recordCall(deps.span, op.name, out);
  if ('asked' in out) {
    const pages = { approval: deps.approvalUrl, confirmation: deps.confirmationUrl };
    if (era === 'modern')
      return ok(req, inputRequiredText(out.asked, pages, deps.payloads.modernMeta));
    // The 2025 era: a page to open is -32042, and the client repeats the same call.
    return (
      urlElicitationRequired(req, out.asked, pages) ??
      rpcError('INTERNAL', req.id, 'a 2025-era request was asked a question it cannot be put')
    );
  }
  if (!out.ok) {
    // The catalogue says which failures refuse the call itself (a missing scope: HTTP 403
    // with its challenge) rather than answer it with a tool result.
    if (isRpcError(out.error.code)) return callRefusal(req, deps, era, out.error);
    if (era === 'modern') {
      const missing = missingCapabilityReply(req, out.error);
      if (missing) return missing;
    }
  }
  const body = resultText(req.id, toolResultText(out, resultTail(deps, era)));
  return out.ok ? { status: 200, body } : { status: 200, body, errorType: out.error.code };
}
