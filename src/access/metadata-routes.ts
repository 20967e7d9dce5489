/**
 * RFC 9728 Protected Resource Metadata, so that an MCP client that got a 401 finds the
 * authorization server to get a token from, and the scopes to ask for. Served only when
 * `access` has an authorization server to name (`oauth`'s issuer, or with `sign-in` the
 * gateway itself, named first: spec-language.md, "Sign-in for MCP clients"): the MCP authorization spec requires at least
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
  /** True while the gateway is its clients' authorization server (the spec and its services). */
  signingIn: () => boolean = () => false,
): void {
  const metadata = (
    req: FastifyRequest,
    spec: CompiledSpec,
    servers: readonly string[],
    toolset?: ToolsetDescriptor,
  ) => {
    const name = spec.server.title ?? spec.server.name;
    return {
      resource: `${publicBase(req, publicUrl)}${mcpPath}${toolset ? `/${toolset.name}` : ''}`,
      authorization_servers: servers,
      scopes_supported: scopesOf(spec, toolset),
      bearer_methods_supported: ['header'],
      resource_name: toolset ? `${name} (toolset ${toolset.name})` : name,
    };
  };
  const serversOf = (req: FastifyRequest, spec: CompiledSpec): string[] => [
    ...(signingIn() ? [publicBase(req, publicUrl)] : []),
    ...(spec.access?.oauth ? [spec.access.oauth.issuer] : []),
  ];
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    const spec = currentSpec();
    const servers = serversOf(req, spec);
    if (servers.length === 0) return reply.callNotFound();
    return metadata(req, spec, servers);
  };
  app.get(`${METADATA_PATH}${mcpPath}`, handler);
  app.get(METADATA_PATH, handler);
  app.get<{ Params: { toolset: string } }>(
    `${METADATA_PATH}${mcpPath}/:toolset`,
    async (req, reply) => {
      const spec = currentSpec();
      const servers = serversOf(req, spec);
      const toolset = spec.toolsets.find((t) => t.name === req.params.toolset);
      if (servers.length === 0 || !toolset) return reply.callNotFound();
      return metadata(req, spec, servers, toolset);
    },
  );
}
