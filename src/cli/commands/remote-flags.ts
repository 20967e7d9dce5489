/** The flags of every command that talks to a server (`tools <url>`, `call`, `read`, `prompt`, `discover`). */
import { DEFAULT_TIMEOUT_MS } from '../../client/options.js';
import type { FlagTable } from '../flags.js';

export const REMOTE_FLAGS = {
  header: {
    type: 'string',
    multiple: true,
    value: "'Name: value'",
    help: 'Send this header on every request',
  },
  'bearer-env': {
    type: 'string',
    value: 'VAR',
    help: 'Send "Authorization: Bearer <$VAR>"',
    note: 'The token stays out of shell history and process listings.',
  },
  era: {
    type: 'string',
    value: 'auto|modern|legacy',
    default: 'auto',
    help: 'The handshake to speak',
    note: 'auto: server/discover first, initialize when the server does not speak 2026-07-28; modern: 2026-07-28 only; legacy: the 2025-11-25 initialize handshake only.',
  },
  timeout: {
    type: 'string',
    value: 'DURATION',
    default: `${DEFAULT_TIMEOUT_MS / 1000}s`,
    help: 'Bound on each request, e.g. 10s, 500ms, 2m',
  },
} as const satisfies FlagTable;

export const REMOTE_EXITS = `Exit codes: 0 success; 2 when the server cannot be reached, answers with an HTTP
error or a JSON-RPC error (printed as one line with the status or code), or the
command line is wrong.`;
