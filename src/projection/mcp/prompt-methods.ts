/**
 * prompts/list and prompts/get, both eras. The list is prepared bytes per view; a get
 * is the engine's answer (arguments checked, embedded resources read as the caller).
 */
import { LIST_TTL_MS, modernTailText } from './payloads.js';
import type { RpcReply } from './rpc-reply.js';
import { resultText } from '../../mcp-wire/json-rpc.js';
import type { McpDeps, RpcRequest } from './mcp-request.js';
import type { Era } from '../../mcp-wire/versions.js';
import {
  engineErrorReply,
  invalidParams,
  listMethod,
  notServed,
  requestScopeOf,
} from './method-support.js';

export const listPrompts = listMethod('prompts');

export async function getPrompt(req: RpcRequest, deps: McpDeps, era: Era): Promise<RpcReply> {
  if (!deps.payloads.serves.prompts) return notServed(req, deps, era);
  const name = req.params?.name;
  if (typeof name !== 'string')
    return invalidParams(req, 'prompts/get needs params.name (a string)');
  const got = await deps.view.getPrompt(
    name,
    req.params?.arguments,
    requestScopeOf(req, deps, era),
  );
  if (!got.ok) return engineErrorReply(req, deps, era, got.error);
  const { prompt, messages, fromGrant, scoped } = got;
  let tail = '';
  if (era === 'modern') {
    // Filled from the arguments alone, a prompt is as cacheable as the lists; one that
    // embeds a grant's answer is the caller's own, and stale at once. What this get read
    // decides, not the prompt's load-time scopes alone: a filled URI may be a fixed
    // resource with scopes, and what a scope guards is private.
    const scope = fromGrant || (deps.payloads.filtered && (prompt.scopes.length > 0 || scoped));
    tail = modernTailText(
      fromGrant ? 0 : LIST_TTL_MS,
      scope ? 'private' : 'public',
      deps.payloads.modernMeta,
    );
  }
  const head =
    prompt.description !== undefined ? `"description":${JSON.stringify(prompt.description)},` : '';
  return {
    status: 200,
    body: resultText(req.id, `{${head}"messages":${JSON.stringify(messages)}${tail}}`),
  };
}
