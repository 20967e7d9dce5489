/**
 * `mcp-beaver connections <url> [disconnect <provider>]`: the caller's connected
 * accounts (`auth user`, issue 43), listed and removed through the gateway's REST API
 * with the caller's own key.
 */
import { isRemoteTarget, remoteOptionsOr } from '../client/options.js';
import { escapeTerminalControls } from '../client/terminal-text.js';
import { gatewayApi, gatewayBaseOf } from './gateway-api-request.js';
import { CONNECTIONS_COMMAND } from './commands/connections-command.js';
import { parseOperands } from './operands.js';
import { commandMessages } from './output.js';

const { usage, badValue } = commandMessages(CONNECTIONS_COMMAND);

const API_PATH = '/api/connections';

interface ConnectionJson {
  provider: string;
  connected: boolean;
  scopes?: string[];
  connected_at?: string;
  expires_at?: string | null;
  connect_url?: string;
}

export async function runConnections(argv: string[]): Promise<number> {
  const parsed = parseOperands(CONNECTIONS_COMMAND, argv);
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  const [target, command, provider, ...extra] = parsed.operands;
  if (!isRemoteTarget(target)) return usage(`${JSON.stringify(target)} is not an http(s) URL`);
  if (command !== undefined && command !== 'disconnect')
    return usage(`${JSON.stringify(command)}: say disconnect <provider>`);
  if (command !== undefined && (provider === undefined || provider === ''))
    return usage('disconnect: name the provider (as the list shows it)');
  if (extra.length > 0)
    return usage(`one provider at a time; ${JSON.stringify(extra[0])} is extra`);
  const options = remoteOptionsOr(target, values, badValue);
  if (typeof options === 'number') return options;
  const base = gatewayBase(options.url);
  const url =
    command === undefined ? base + API_PATH : `${base}${API_PATH}/${encodeURIComponent(provider!)}`;
  const answer = await gatewayApi(url, {
    method: command === undefined ? 'GET' : 'DELETE',
    headers: options.headers,
    timeoutMs: options.timeoutMs,
  });
  if (typeof answer === 'number') return answer;
  const { body } = answer;
  if (values.json) {
    process.stdout.write(escapeTerminalControls(`${JSON.stringify(body, null, 2)}\n`));
    return 0;
  }
  if (command !== undefined) {
    process.stdout.write(
      escapeTerminalControls(
        `Disconnected ${provider}: its tokens are forgotten; the next call through it asks you to connect again.\n`,
      ),
    );
    return 0;
  }
  const list = (body as { connections?: ConnectionJson[] }).connections ?? [];
  process.stdout.write(escapeTerminalControls(formatConnections(list)));
  return 0;
}

/** The gateway's base from what the user gave: the MCP endpoint, the API's path, or the base. */
export function gatewayBase(url: URL): string {
  return gatewayBaseOf(url, ['api/connections']);
}

/** One block per provider; a short sentence when the gateway connects none. */
export function formatConnections(list: readonly ConnectionJson[]): string {
  if (list.length === 0)
    return 'This gateway connects no accounts (it declares no oauth-provider).\n';
  return list
    .map((c) =>
      c.connected
        ? `${c.provider}: connected since ${c.connected_at ?? '?'}` +
          `${c.scopes && c.scopes.length > 0 ? `, scopes ${c.scopes.join(' ')}` : ''}` +
          `${c.expires_at ? `, token until ${c.expires_at}` : ''}\n`
        : `${c.provider}: not connected; open this link in a browser (until ${c.expires_at ?? '?'}):\n  ${c.connect_url ?? ''}\n`,
    )
    .join('');
}
