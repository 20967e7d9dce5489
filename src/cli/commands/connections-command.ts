/** `mcp-beaver connections`: its flags and its help. */
import { defineCommand } from '../flags.js';
import { REMOTE_FLAGS } from './remote-flags.js';

const { header, 'bearer-env': bearerEnv, timeout } = REMOTE_FLAGS;

export const CONNECTIONS_COMMAND = defineCommand({
  name: 'connections',
  usage: ['<url>', '<url> disconnect <provider>'],
  operands: { min: 1, wrong: 'name the gateway URL' },
  about: `
Lists your connected accounts on a running gateway, and removes one. An upstream
with \`auth user provider="<name>"\` (see docs/spec-language.md) is called with each
caller's own account at that provider: a call made before you connected yours was
answered AUTHORIZATION_REQUIRED with a connect link. This command shows the same
state from a terminal: GET /api/connections and DELETE /api/connections/<provider>.

<url> is the gateway: its base (http://127.0.0.1:8080) or its MCP endpoint
(http://127.0.0.1:8080/mcp) both do. The key is yours, sent as the MCP commands
send theirs (--bearer-env or --header): only your own connections are shown.
  Without a command:      one line per oauth-provider of the gateway: connected
                          (its scopes, since when, until when its token lasts),
                          or not, with a connect link (10 minutes) to open in a
                          browser; no token is ever shown.
  disconnect <provider>:  revokes the tokens at the provider when it says how
                          (revoke-url), then forgets them; the next call through
                          that upstream asks you to connect again.`,
  flags: {
    json: { type: 'boolean', help: 'Print the API answer as JSON' },
    header,
    'bearer-env': bearerEnv,
    timeout,
  },
  more: `
Exit codes: 0 success; 1 the gateway refused (the error code is printed: NOT_FOUND
for a provider you have not connected, UNAUTHENTICATED); 2 when the gateway cannot be
reached or the command line is wrong.

Examples:
  mcp-beaver connections http://127.0.0.1:8080 --bearer-env AGENT_KEY
  mcp-beaver connections http://127.0.0.1:8080/mcp disconnect tracker --bearer-env AGENT_KEY`,
});
