/**
 * RFC 9728 Protected Resource Metadata, so that an MCP client that got a 401 finds the
 * authorization server to get a token from, and the scopes to ask for. Served only when
 * `access` has an `oauth` issuer to name: the MCP authorization spec requires at least
 * one authorization server in it, and API keys are handed out, not obtained through
 * one (then the routes are 404 and the challenges carry no resource_metadata). Read from
 * the spec being served now, so a reload updates it.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CompiledSpec } from '../compiler/descriptor.js';
import { METADATA_PATH, publicBase } from './access-control.js';

export function registerMetadataRoutes(
  app: FastifyInstance,
  currentSpec: () => CompiledSpec,
  mcpPath: string,
  publicUrl: string | undefined,
): void {
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    const spec = currentSpec();
    const oauth = spec.access?.oauth;
    if (!oauth) return reply.callNotFound();
    return {
      resource: `${publicBase(req, publicUrl)}${mcpPath}`,
      authorization_servers: [oauth.issuer],
      // Every scope a token may need here: tools', resources' and prompts' alike.
      scopes_supported: [
        ...new Set([spec.tools, spec.resources, spec.prompts].flat().flatMap((s) => s.scopes)),
      ].sort(),
      bearer_methods_supported: ['header'],
      resource_name: spec.server.title ?? spec.server.name,
    };
  };
  app.get(`${METADATA_PATH}${mcpPath}`, handler);
  app.get(METADATA_PATH, handler);
}
