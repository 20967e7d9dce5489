/** `mcp-beaver prompt`: its flags and its help. */
import { defineCommand } from '../flags.js';
import { REMOTE_FLAGS } from './remote-flags.js';

export const PROMPT_COMMAND = defineCommand({
  name: 'prompt',
  usage: ['<url> <name> [name=value... | json-args | @file | -]'],
  operands: { min: 2, wrong: 'name a server URL, a prompt, and its arguments' },
  about: `
Gets one prompt of a running MCP server (prompts/get) and prints its messages, each
as [role] and its text; a message embedding a resource names it, then shows its
text. Prompt arguments are strings: give them as name=value words, or as one JSON
object inline, from a file (@args.json) or from stdin (-). Arguments left out take
their defaults; \`mcp-beaver tools <url>\` lists the prompts and their arguments
(a ? marks an optional one).`,
  flags: {
    json: { type: 'boolean', help: 'Print the whole prompts/get result as JSON' },
    ...REMOTE_FLAGS,
  },
  more: `
Exit codes: 0 success; 1 the server answered with an error (no such prompt, an
argument missing or refused, a resource it embeds could not be read), printed as
one line with the JSON-RPC code and the gateway's error code; 2 when the server
cannot be reached, answers with an HTTP error (a missing scope is HTTP 403), or the
command line is wrong.

Examples:
  mcp-beaver prompt http://127.0.0.1:8080/mcp triage-ticket id=1 tone=formal
  mcp-beaver prompt http://127.0.0.1:8080/mcp triage-ticket '{"id":"1"}' --json`,
});
