/** `mcp-beaver demo`: its flags and its help. */
import { defineCommand } from '../flags.js';

export const DEMO_COMMAND = defineCommand({
  name: 'demo',
  usage: [''],
  operands: { min: 0, max: 0, wrong: 'takes no arguments' },
  about: `
Starts a small helpdesk REST API and an embedded Postgres on this machine,
then serves specs/demo.mcp.kdl against them: ticket tools over HTTP, order tools
over SQL, a support handbook and ticket resources, and a triage prompt; one tool
(list_my_tickets) calls as each caller's own account, connected once at the demo's
small OAuth server. Nothing leaves 127.0.0.1; no API key or database server is needed.`,
  flags: {
    http: {
      type: 'string',
      value: '[host]:port',
      default: '127.0.0.1:8080',
      help: 'Where the gateway listens',
    },
    'log-level': {
      type: 'string',
      value: 'LEVEL',
      default: 'warn',
      help: 'Gateway logs on stdout',
    },
  },
});
