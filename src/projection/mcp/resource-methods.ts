/**
 * resources/list, resources/templates/list and resources/read, both eras. Lists and
 * fixed reads are prepared bytes (payloads.ts); a template read runs its grant through
 * the engine and is private to the caller, never cached (ttlMs 0).
 */
import type { RpcReply } from './rpc-reply.js';
import { resultBytes, resultText } from '../../mcp-wire/json-rpc.js';
import type { McpDeps, RpcRequest } from './mcp-request.js';
import type { Era } from '../../mcp-wire/versions.js';
import {
  engineErrorReply,
  invalidParams,
  listMethod,
  notServed,
  requestScopeOf,
} from './method-support.js';
import { modernTailText } from './payloads.js';

export const listResources = listMethod('resources');
export const listTemplates = listMethod('templates');

export async function readResource(req: RpcRequest, deps: McpDeps, era: Era): Promise<RpcReply> {
  if (!deps.payloads.serves.resources) return notServed(req, deps, era);
  const uri = req.params?.uri;
  if (typeof uri !== 'string')
    return invalidParams(req, 'resources/read needs params.uri (a string)');
  const read = await deps.view.readResource(uri, requestScopeOf(req, deps, era));
  if (!read.ok) return engineErrorReply(req, deps, era, read.error);
  const fixed = deps.payloads.fixedReads.get(read.resource);
  if (fixed)
    return {
      status: 200,
      body: resultBytes(req.id, era === 'modern' ? fixed.modern : fixed.legacy),
    };
  // The envelope is per caller and per moment: private, and stale at once.
  const tail = era === 'modern' ? modernTailText(0, 'private', deps.payloads.modernMeta) : '';
  const json = `{"contents":[${JSON.stringify(read.contents)}]${tail}}`;
  return { status: 200, body: resultText(req.id, json) };
}
