/**
 * `mcp-beaver demo` (and `npm start`): the one-minute tour. Starts the bundled helpdesk
 * API on 127.0.0.1, serves specs/demo.mcp.kdl against it and an embedded Postgres,
 * and prints how to reach it from an MCP client and from curl. The spec's `access` has
 * two callers (an agent, and an approver for `cancel_order`): their keys and the key
 * sealing confirmations are random per run unless the environment already holds them,
 * and the banner prints them, since nothing can be called without one.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { startDemoApi } from '../demo/demo-api.js';
import { StartupError } from '../process/startup-error.js';
import { formatDiagnostic } from '../compiler/diagnostics.js';
import { compileSpecText } from '../compiler/load-spec.js';
import { parseListen } from '../server/listen-address.js';
import { createLogger } from '../server/logger.js';
import { startServer } from '../server/start.js';
import { DEMO_COMMAND } from './commands/demo-command.js';
import { inspectorLines } from './inspector-lines.js';
import { parseOperands } from './operands.js';
import { commandMessages } from './output.js';

export const DEMO_SPEC = fileURLToPath(new URL('../../specs/demo.mcp.kdl', import.meta.url));
/** Where specs/demo.mcp.kdl says the demo API is; replaced by where it listens. */
const SPEC_API_ORIGIN = 'http://127.0.0.1:8079';

const { badValue } = commandMessages(DEMO_COMMAND);

export async function runDemo(argv: string[]): Promise<number> {
  const parsed = parseOperands(DEMO_COMMAND, argv);
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  const listen = parseListen(values.http);
  if (typeof listen === 'string') return badValue(listen);
  const say = (line = ''): boolean => process.stdout.write(`${line}\n`);
  const token = process.env.DEMO_API_TOKEN ?? `demo-${randomBytes(12).toString('hex')}`;
  const keys = {
    DEMO_AGENT_KEY: process.env.DEMO_AGENT_KEY ?? `agent-${randomBytes(12).toString('hex')}`,
    DEMO_APPROVER_KEY:
      process.env.DEMO_APPROVER_KEY ?? `approver-${randomBytes(12).toString('hex')}`,
    DEMO_CONFIRM_KEY: process.env.DEMO_CONFIRM_KEY ?? randomBytes(32).toString('hex'),
    DEMO_TOKEN_KEY: process.env.DEMO_TOKEN_KEY ?? randomBytes(32).toString('hex'),
  };
  // The gateway's client at the demo's own accounts (list_my_tickets): made up per run.
  const accountsClient = { id: 'mcp-beaver-demo', secret: randomBytes(24).toString('hex') };
  say('mcp-beaver demo: starting the helpdesk API and an embedded Postgres (a few seconds)…');
  const api = await startDemoApi({ token, accountsClient });
  // The spec names the API at 127.0.0.1:8079 (its default upstream, the connected-account
  // upstream and the demo's accounts); the API listens where the system put it.
  const text = (await readFile(DEMO_SPEC, 'utf8')).replaceAll(SPEC_API_ORIGIN, api.url);
  const compiled = compileSpecText(text, DEMO_SPEC);
  if (!compiled.compiled) {
    for (const d of compiled.diagnostics) process.stderr.write(`${formatDiagnostic(d)}\n`);
    await api.close();
    return 1;
  }
  let server;
  try {
    server = await startServer({
      spec: compiled.compiled,
      listen,
      logger: createLogger(values['log-level']),
      env: {
        ...process.env,
        DEMO_API_TOKEN: token,
        ...keys,
        DEMO_ACCOUNTS_CLIENT_ID: accountsClient.id,
        DEMO_ACCOUNTS_CLIENT_SECRET: accountsClient.secret,
      },
      insecureNoAuth: false,
    });
  } catch (err) {
    await api.close();
    if (err instanceof StartupError) {
      process.stderr.write(
        `mcp-beaver demo: ${err.message}\n(choose another address with --http 127.0.0.1:8090)\n`,
      );
      return 1;
    }
    throw err;
  }
  const mcp = `${server.url}/mcp`;
  say();
  const { tools, resources, prompts } = compiled.compiled;
  say(
    `  ${tools.length} tools, ${resources.length} resources and ${prompts.length} prompt${prompts.length === 1 ? '' : 's'} from specs/demo.mcp.kdl, served from one process:`,
  );
  say(`    MCP (Streamable HTTP, 2026-07-28 and 2025-11-25):  ${mcp}`);
  for (const t of compiled.compiled.toolsets)
    say(
      `    ${`MCP, toolset ${t.name} (${t.tools.length} tools, the same eras):`.padEnd(50)}${mcp}/${t.name}`,
    );
  say(`    REST:                                             ${server.url}/api`);
  say(`    Catalog page (browse and try each tool):          ${server.url}/`);
  say();
  const agent = `-H 'authorization: Bearer ${keys.DEMO_AGENT_KEY}'`;
  const approver = `-H 'authorization: Bearer ${keys.DEMO_APPROVER_KEY}'`;
  const json = `-H 'content-type: application/json'`;
  say(`  Callers (random per run; set DEMO_AGENT_KEY and DEMO_APPROVER_KEY to choose them):`);
  say(`    agent key:     ${keys.DEMO_AGENT_KEY}   (every tool)`);
  say(`    approver key:  ${keys.DEMO_APPROVER_KEY}   (approves cancel_order)`);
  say();
  say('  Try it with curl:');
  say(`    curl -s ${server.url}/api/list_tickets ${agent} ${json} -d '{"status":"open"}'`);
  say(`    curl -s ${server.url}/api/list_customers ${agent} ${json} -d '{}'`);
  say();
  say('  Two tools need a person first:');
  say(
    "    delete_ticket asks the caller's user to confirm (a client that declares elicitation, in either era; others are refused).",
  );
  say(
    '    cancel_order waits for the approver: the call answers APPROVAL_REQUIRED with an approval id and URL;',
  );
  say('    the approver decides, and the same call repeated then runs once:');
  say(`    curl -s ${server.url}/api/cancel_order ${agent} ${json} -d '{"id":2}'`);
  say(`    curl -s ${server.url}/api/approvals ${approver}`);
  say(
    `    curl -s ${server.url}/api/approvals/<id> ${approver} ${json} -d '{"decision":"approve"}'`,
  );
  say(`    (or in the browser: ${server.url}/approvals with the approver key; or from a shell:`);
  say(
    `     DEMO_APPROVER_KEY=${keys.DEMO_APPROVER_KEY} npx mcp-beaver approvals ${server.url} --bearer-env DEMO_APPROVER_KEY)`,
  );
  say(
    '  One tool calls as the person behind the agent: list_my_tickets answers AUTHORIZATION_REQUIRED',
  );
  say(
    "  with a link until that caller connects their own account at the demo's accounts (open it, pick a",
  );
  say(
    `  person); then the same call carries their token. Their connections: ${server.url}/api/connections`,
  );
  say();
  for (const line of inspectorLines(
    mcp,
    'DEMO_AGENT_KEY',
    keys.DEMO_AGENT_KEY,
    process.versions.node,
  ))
    say(line);
  say('  Client configuration (Claude Desktop, Cursor, any Streamable HTTP client):');
  say(
    `    { "mcpServers": { "helpdesk-demo": { "type": "http", "url": "${mcp}", "headers": { "Authorization": "Bearer ${keys.DEMO_AGENT_KEY}" } } } }`,
  );
  say();
  say('  Press Ctrl-C to stop.');

  return new Promise<number>((resolve) => {
    const stop = (): void => {
      void server.shutdown(3_000).then(async () => {
        await api.close();
        resolve(0);
      });
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
