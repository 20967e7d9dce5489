/**
 * RFC 9728 Protected Resource Metadata, served whenever `access` is configured so an
 * MCP client that got a 401 can find the authorization server (with `oauth`) and the scopes.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { CompiledSpec } from '../spec/descriptor.js';
import { METADATA_PATH, publicBase } from './access-control.js';

export function registerMetadataRoutes(
  app: FastifyInstance,
  spec: CompiledSpec,
  mcpPath: string,
  publicUrl: string | undefined,
): void {
  if (!spec.access) return;
  const oauth = spec.access.oauth;
  const scopes = [...new Set(spec.tools.flatMap((t) => t.scopes))].sort();
  const handler = async (req: FastifyRequest) => ({
    resource: `${publicBase(req, publicUrl)}${mcpPath}`,
    // API keys alone have no authorization server to point at.
    authorization_servers: oauth ? [oauth.issuer] : [],
    scopes_supported: scopes,
    bearer_methods_supported: ['header'],
    resource_name: spec.server.title ?? spec.server.name,
  });
  app.get(`${METADATA_PATH}${mcpPath}`, handler);
  app.get(METADATA_PATH, handler);
}
