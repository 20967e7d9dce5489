/** `mcp-beaver tools`: its flags and its help. */
import { defineCommand, underHeading } from '../flags.js';
import { REMOTE_EXITS, REMOTE_FLAGS } from './remote-flags.js';

export const TOOLS_COMMAND = defineCommand({
  name: 'tools',
  usage: [{ operands: '<spec.mcp.kdl>', flags: ['json', 'toolset'] }, '<url>'],
  operands: { min: 1, max: 1, wrong: 'name exactly one spec file or server URL' },
  about: `
With a spec: shows the tools the spec serves, in spec order, exactly as MCP
tools/list returns them (name, title, description, inputSchema, outputSchema,
annotations, and _meta whose anthropic/maxResultSizeChars is the grant's
max-bytes), then its resources, resource templates and prompts as
resources/list, resources/templates/list and prompts/list return them.
  Without --json: one block per tool: name, title and the hints of its annotations
                  (read-only, write, destructive, idempotent, open-world), its
                  description, where its call goes and as whom ("calls upstream
                  github as client-credentials", "runs on database orders"), then
                  each argument with its rules (one of ..., the restrict allowlists
                  among them; pattern, bounds, length, format, default); then one
                  block per resource (with its template variables) and per prompt
                  (with its arguments).
  With --json:    the {"tools": [...]} result object, for diffing or other tooling,
                  with "resources" and "resourceTemplates" beside it when the spec
                  has resources, and "prompts" when it has prompts.
  With --toolset: what /mcp/<toolset> serves: its members only, in spec order.
  Exits 1 (listing every error) when the spec does not compile.

With an http:// or https:// URL: lists the tools of that running MCP server, and
its resources, templates and prompts when it advertises them (a gateway lists only
what the caller's scopes allow; at <gateway>/mcp/<toolset>, only that toolset's
members: mcp-beaver tools http://127.0.0.1:8080/mcp/tickets).
  Without --json: one line per tool: name, title, and the hints it declares
                  (read-only, write, destructive, idempotent, open-world); then a
                  "Resources:", "Resource templates:" and "Prompts:" section each.
                  Control characters in the server's text are printed escaped
                  (ESC as \\u001b), so it cannot drive the terminal.
  With --json:    the tools/list result as the server sent it, with the arrays
                  "resources", "resourceTemplates" and "prompts" added beside "tools".`,
  flags: {
    json: { type: 'boolean', inUsage: true, help: 'Print JSON (see "With --json" above)' },
    toolset: {
      type: 'string',
      value: 'NAME',
      help: 'A spec: only the members of this toolset (what /mcp/<name> lists)',
    },
    ...underHeading('Options for a URL', REMOTE_FLAGS),
  },
  more: `
${REMOTE_EXITS}

Examples:
  mcp-beaver tools specs/orders-db.mcp.kdl --json
  mcp-beaver tools specs/demo.mcp.kdl --toolset tickets
  MCP_TOKEN=... mcp-beaver tools https://gateway.example.com/mcp --bearer-env MCP_TOKEN`,
});
