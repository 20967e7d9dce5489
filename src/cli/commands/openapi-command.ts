/** `mcp-beaver openapi`: its flags and its help. */
import { defineCommand } from '../flags.js';

export const OPENAPI_COMMAND = defineCommand({
  name: 'openapi',
  usage: ['<spec.mcp.kdl>'],
  operands: { min: 1, max: 1, wrong: 'name exactly one spec file' },
  about: `
Prints the OpenAPI 3.1 document of the spec's REST surface as JSON on stdout: one
POST /api/<tool> per grant, the tool's inputSchema as the request body, the envelope
as the 200 answer, and the catalogue errors the grant can answer with. It is the
document a running gateway serves at GET /openapi.json, for a caller holding every
scope (the gateway leaves out the tools a caller may not call).`,
  flags: {
    'server-url': {
      type: 'string',
      value: 'URL',
      inUsage: true,
      help: "The gateway's URL, written as servers[0].url",
      note: 'GET /openapi.json fills in the URL it was reached at.',
    },
  },
  more: `
Exits 1 (listing every error) when the spec does not compile.

Example:
  mcp-beaver openapi specs/github-issues.mcp.kdl --server-url http://127.0.0.1:8080`,
});
