/**
 * completion/complete, both eras: the engine's enum values by prefix, for a prompt
 * argument (`ref/prompt`) or a resource template variable (`ref/resource`).
 */
import type { CompletionRef } from '../../engine/resources-prompts/completion.js';
import { LIST_TTL_MS, modernTailText } from './payloads.js';
import type { RpcReply } from './rpc-reply.js';
import { resultText } from '../../mcp-wire/json-rpc.js';
import type { McpDeps, RpcRequest } from './mcp-request.js';
import type { Era } from '../../mcp-wire/versions.js';
import { engineErrorReply, invalidParams, notServed } from './method-support.js';

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function completeArgument(req: RpcRequest, deps: McpDeps, era: Era): RpcReply {
  if (!deps.payloads.serves.completion) return notServed(req, deps, era);
  const ref = req.params?.ref;
  const argument = req.params?.argument;
  if (!isObject(ref) || !isObject(argument))
    return invalidParams(req, 'completion/complete needs params.ref and params.argument');
  if (typeof argument.name !== 'string' || typeof argument.value !== 'string')
    return invalidParams(req, 'params.argument needs name and value (strings)');
  let target: CompletionRef;
  if (ref.type === 'ref/prompt' && typeof ref.name === 'string')
    target = { type: 'ref/prompt', name: ref.name };
  else if (ref.type === 'ref/resource' && typeof ref.uri === 'string')
    target = { type: 'ref/resource', uri: ref.uri };
  else
    return invalidParams(
      req,
      'params.ref must be {type:"ref/prompt", name} or {type:"ref/resource", uri}',
    );
  const out = deps.view.complete(target, argument.name, argument.value, deps.caller);
  if (!out.ok) return engineErrorReply(req, deps, era, out.error);
  const completion = { values: out.values, total: out.total, hasMore: out.hasMore };
  const tail =
    era === 'modern'
      ? modernTailText(
          LIST_TTL_MS,
          deps.payloads.filtered ? 'private' : 'public',
          deps.payloads.modernMeta,
        )
      : '';
  return {
    status: 200,
    body: resultText(req.id, `{"completion":${JSON.stringify(completion)}${tail}}`),
  };
}
