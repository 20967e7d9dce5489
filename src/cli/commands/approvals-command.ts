/** `mcp-beaver approvals`: its flags and its help. */
import { defineCommand } from '../flags.js';
import { REMOTE_FLAGS } from './remote-flags.js';

const { header, 'bearer-env': bearerEnv, timeout } = REMOTE_FLAGS;

export const APPROVALS_COMMAND = defineCommand({
  name: 'approvals',
  usage: ['<url>', '<url> approve <id>', '<url> decline <id>'],
  operands: { min: 1, wrong: 'name the gateway URL' },
  about: `
Lists the calls waiting for approval on a running gateway, and decides one. A grant
with approve (see docs/spec-language.md) parks the call until someone holding the
approving scope says yes; the caller's \`mcp-beaver call\` exited 3 and printed the
approval's page. This command is the same view from a terminal: GET /api/approvals
and POST /api/approvals/<id>.

<url> is the gateway: its base (http://127.0.0.1:8080) or its MCP endpoint
(http://127.0.0.1:8080/mcp) both do. The key is the approver's, sent as the MCP
commands send theirs (--bearer-env or --header).
  Without a decision: one line per pending approval the key's scopes may decide:
                      id, tool, message, who asked, when it lapses. A call of your
                      own is marked "(yours)": someone else must decide it.
  approve <id>:       the caller's same call, repeated, then runs once.
  decline <id>:       the call is refused (APPROVAL_DECLINED); nothing is sent.`,
  flags: {
    json: { type: 'boolean', help: 'Print the API answer as JSON' },
    header,
    'bearer-env': bearerEnv,
    timeout,
  },
  more: `
Exit codes: 0 success; 1 the gateway refused (the error code is printed:
APPROVAL_OWN_CALL for a call you made yourself, INSUFFICIENT_SCOPE without the
approving scope, NOT_FOUND, APPROVAL_DECIDED, APPROVAL_EXPIRED, UNAUTHENTICATED);
2 when the gateway cannot be reached or the command line is wrong.

Examples:
  mcp-beaver approvals http://127.0.0.1:8080 --bearer-env FINANCE_KEY
  mcp-beaver approvals http://127.0.0.1:8080/mcp approve 7f3c9e21 --bearer-env FINANCE_KEY
  mcp-beaver approvals https://gateway.example.com decline 7f3c9e21 --bearer-env FINANCE_KEY`,
});
