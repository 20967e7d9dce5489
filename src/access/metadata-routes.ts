/**
 * RFC 9728 Protected Resource Metadata, served whenever `access` is configured so an
 * MCP client that got a 401 can find the authorization server (with `oauth`) and the
 * scopes. Read from the spec being served now, so a reload updates it.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CompiledSpec } from '../spec/descriptor.js';
import { METADATA_PATH, publicBase } from './access-control.js';

export function registerMetadataRoutes(
  app: FastifyInstance,
  currentSpec: () => CompiledSpec,
  mcpPath: string,
  publicUrl: string | undefined,
): void {
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    const spec = currentSpec();
    if (!spec.access) return reply.callNotFound();
    const oauth = spec.access.oauth;
    return {
      resource: `${publicBase(req, publicUrl)}${mcpPath}`,
      // API keys alone have no authorization server to point at.
      authorization_servers: oauth ? [oauth.issuer] : [],
      scopes_supported: [...new Set(spec.tools.flatMap((t) => t.scopes))].sort(),
      bearer_methods_supported: ['header'],
      resource_name: spec.server.title ?? spec.server.name,
    };
  };
  app.get(`${METADATA_PATH}${mcpPath}`, handler);
  app.get(METADATA_PATH, handler);
}
