/** `mcp-beaver read`: its flags and its help. */
import { defineCommand } from '../flags.js';
import { REMOTE_FLAGS } from './remote-flags.js';

export const READ_COMMAND = defineCommand({
  name: 'read',
  usage: ['<url> <uri>'],
  operands: { min: 2, max: 2, wrong: 'name a server URL and one resource URI' },
  about: `
Reads one resource of a running MCP server (resources/read) and prints its
contents: text as it is; binary content (a blob) as its bytes when stdout is
redirected (mcp-beaver read ... > picture.png), or one line saying what it is on a
terminal. The URI is a resource's URI or one a template matches: a gateway reads
helpdesk://tickets/{id} as helpdesk://tickets/42 by calling its grant with id 42,
as the caller, so scopes, restrict and the argument rules apply.
\`mcp-beaver tools <url>\` lists the resources and templates.`,
  flags: {
    json: { type: 'boolean', help: 'Print the whole resources/read result as JSON' },
    ...REMOTE_FLAGS,
  },
  more: `
Exit codes: 0 success; 1 the server answered the read with an error (no resource
serves the URI, a variable or argument refused, an upstream failure), printed as one
line with the JSON-RPC code and the gateway's error code; 2 when the server cannot be
reached, answers with an HTTP error (a missing scope is HTTP 403), or the command line
is wrong.

Examples:
  mcp-beaver read http://127.0.0.1:8080/mcp docs://helpdesk/support-handbook
  mcp-beaver read http://127.0.0.1:8080/mcp helpdesk://tickets/1 --json
  mcp-beaver read https://gateway.example.com/mcp docs://x/logo.png --bearer-env MCP_TOKEN > logo.png`,
});
