/**
 * RFC 9728 Protected Resource Metadata, so that an MCP client that got a 401 finds the
 * authorization server to get a token from, and the scopes to ask for. Served only when
 * `access` has an `oauth` issuer to name: the MCP authorization spec requires at least
 * one authorization server in it, and API keys are handed out, not obtained through
 * one (then the routes are 404 and the challenges carry no resource_metadata). Read from
 * the spec being served now, so a reload updates it.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CompiledSpec, ToolsetDescriptor } from '../compiler/descriptor.js';
import { METADATA_PATH, publicBase } from './access-control.js';

/** Every scope a token may need at the endpoint: its tools', resources' and prompts' alike. */
function scopesOf(spec: CompiledSpec, toolset: ToolsetDescriptor | undefined): string[] {
  const tools = toolset ? new Set(toolset.tools) : undefined;
  const resources = toolset ? new Set(toolset.resources) : undefined;
  const prompts = toolset ? new Set(toolset.prompts) : undefined;
  const members = [
    spec.tools.filter((t) => !tools || tools.has(t.name)),
    spec.resources.filter((r) => !resources || resources.has(r.uri)),
    spec.prompts.filter((p) => !prompts || prompts.has(p.name)),
  ];
  return [...new Set(members.flat().flatMap((s) => s.scopes))].sort();
}

/**
 * `/mcp`'s metadata, and each toolset's at the path suffixed with its URL's
 * (`/.well-known/oauth-protected-resource/mcp/<toolset>`, RFC 9728 section 3.1): a
 * protected resource of its own (spec-language.md, "Served at `/mcp/<toolset>`").
 */
export function registerMetadataRoutes(
  app: FastifyInstance,
  currentSpec: () => CompiledSpec,
  mcpPath: string,
  publicUrl: string | undefined,
): void {
  const metadata = (
    req: FastifyRequest,
    spec: CompiledSpec,
    issuer: string,
    toolset?: ToolsetDescriptor,
  ) => {
    const name = spec.server.title ?? spec.server.name;
    return {
      resource: `${publicBase(req, publicUrl)}${mcpPath}${toolset ? `/${toolset.name}` : ''}`,
      authorization_servers: [issuer],
      scopes_supported: scopesOf(spec, toolset),
      bearer_methods_supported: ['header'],
      resource_name: toolset ? `${name} (toolset ${toolset.name})` : name,
    };
  };
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    const spec = currentSpec();
    const oauth = spec.access?.oauth;
    if (!oauth) return reply.callNotFound();
    return metadata(req, spec, oauth.issuer);
  };
  app.get(`${METADATA_PATH}${mcpPath}`, handler);
  app.get(METADATA_PATH, handler);
  app.get<{ Params: { toolset: string } }>(
    `${METADATA_PATH}${mcpPath}/:toolset`,
    async (req, reply) => {
      const spec = currentSpec();
      const oauth = spec.access?.oauth;
      const toolset = spec.toolsets.find((t) => t.name === req.params.toolset);
      if (!oauth || !toolset) return reply.callNotFound();
      return metadata(req, spec, oauth.issuer, toolset);
    },
  );
}
