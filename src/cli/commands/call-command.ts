/** `mcp-beaver call`: its flags and its help. */
import { defineCommand } from '../flags.js';
import { REMOTE_FLAGS } from './remote-flags.js';

export const CALL_COMMAND = defineCommand({
  name: 'call',
  usage: ['<url> <tool> [name=value... | json-args | @file | -]'],
  operands: {
    min: 2,
    wrong: 'name a server URL, a tool, and its arguments (one JSON object or name=value words)',
  },
  about: `
Calls one tool of a running MCP server (a gateway's POST /mcp, or any server
speaking Streamable HTTP) and prints the result: structuredContent as indented
JSON when the server sent it, the text blocks otherwise. The arguments are a JSON
object given inline, read from a file (@args.json) or from stdin (-); none means {}.
Or name=value words, each typed by the tool's input schema (read from tools/list):
a string argument takes the text as it is, an integer or number a number, a boolean
true or false, an array or object JSON. name:=json sends the JSON value as it is
(tags:='["a","b"]', note:=null).

A result with isError (bad arguments, a denied call, an upstream failure) prints
its message on stderr and exits 1.

A gateway grant with confirm asks before it runs: the message is shown on stderr
with "Confirm? [y/N]", and only y or yes runs the call (Ctrl-D cancels). Without a
terminal the call is declined and nothing is sent, unless --yes confirms it. A grant
with approve waits for someone else, holding the approving scope, to approve it
(mcp-beaver approvals): the call prints the approval's page and exits 3; once it is
approved, the same command runs the call, once.`,
  flags: {
    json: { type: 'boolean', help: 'Print the whole tools/call result as JSON' },
    yes: {
      type: 'boolean',
      help: 'Confirm without asking when the server asks to (for scripts)',
      note: 'Without it, a confirmation is asked on the terminal (y/N), and declined when there is none.',
    },
    ...REMOTE_FLAGS,
  },
  more: `
Exit codes: 0 success; 1 the tool answered isError (a declined confirmation too);
2 when the server cannot be reached, answers with an HTTP error or a JSON-RPC error
(printed as one line with the status or code), or the command line is wrong; 3 the
call waits for approval (APPROVAL_REQUIRED): repeat it once approved.

Examples:
  mcp-beaver call http://127.0.0.1:8080/mcp list_issues '{"owner":"acme","repo":"rocket"}'
  mcp-beaver call http://127.0.0.1:8080/mcp get_issue owner=acme repo=rocket number=7
  echo '{"owner":"acme","repo":"rocket"}' | mcp-beaver call http://127.0.0.1:8080/mcp list_issues -
  mcp-beaver call https://gateway.example.com/mcp get_order @order.json --bearer-env MCP_TOKEN
  mcp-beaver call http://127.0.0.1:8080/mcp delete_order id=42 --yes --bearer-env MCP_TOKEN`,
});
