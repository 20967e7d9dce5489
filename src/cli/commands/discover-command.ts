/** `mcp-beaver discover`: its flags and its help. */
import { defineCommand } from '../flags.js';
import { REMOTE_EXITS, REMOTE_FLAGS } from './remote-flags.js';

export const DISCOVER_COMMAND = defineCommand({
  name: 'discover',
  usage: ['<url>'],
  operands: { min: 1, max: 1, wrong: 'name exactly one server URL' },
  about: `
Prints, as JSON, what a running MCP server says about itself: the server/discover
result (supportedVersions, capabilities, serverInfo, instructions, cache hints) from
a 2026-07-28 server, or the initialize result (protocolVersion, capabilities,
serverInfo, instructions) from a 2025-era one. With --era auto (the default) the
shape tells which era the server answered in.`,
  flags: REMOTE_FLAGS,
  more: `
${REMOTE_EXITS}

Example:
  mcp-beaver discover http://127.0.0.1:8080/mcp --era legacy`,
});
