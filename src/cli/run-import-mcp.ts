/**
 * `mcp-beaver import mcp <url>` and `import mcp -- <command> [<arg>...]`: draft a
 * guarded spec from an MCP server's tools (src/import/mcp/).
 */
import { IMPORT_COMMAND } from './commands/import-command.js';
import type { ParsedCommand } from './flags.js';
import { commandMessages, readableError } from './output.js';
import { writeDraft } from './write-draft.js';
import { escapeTerminalControls } from '../client/terminal-text.js';
import { parseDuration } from '../compiler/values.js';
import type { McpTarget } from '../import/mcp/mcp-draft.js';
import { SERVER_NAME } from '../import/mcp/server-name.js';
import type { ProtocolChoice } from '../mcp-upstream/upstream-session.js';
import { LEGACY_VERSION, MODERN_VERSION } from '../mcp-wire/versions.js';

const { usage, badValue } = commandMessages(IMPORT_COMMAND);

/** Flags of `import openapi` that `import mcp` refuses. */
const OPENAPI_ONLY = ['tag', 'base-url', 'upstream', 'list-tags', 'toolsets', 'ref-root'] as const;
const PROTOCOLS: readonly ProtocolChoice[] = ['auto', MODERN_VERSION, LEGACY_VERSION];

export async function runImportMcp(
  parsed: ParsedCommand<(typeof IMPORT_COMMAND)['flags']>,
  argv: readonly string[],
): Promise<number> {
  const { values, given, positionals } = parsed;
  const notHere = OPENAPI_ONLY.find((k) => k in given);
  if (notHere !== undefined) return usage(`--${notHere} is for import openapi, not import mcp`);
  // After `--` every word is the command's, its own flags too.
  const dash = argv.indexOf('--');
  const command = dash >= 0 ? argv.slice(dash + 1) : [];
  const before = positionals.slice(1, positionals.length - command.length);
  let target: McpTarget;
  if (dash >= 0) {
    if (before.length > 0 || command.length === 0)
      return usage('name the server once: import mcp <url>, or import mcp -- <command> [<arg>...]');
    target = { kind: 'command', program: command[0]!, args: command.slice(1) };
  } else {
    if (before.length !== 1)
      return usage(
        'name the server: import mcp <url>, or import mcp -- <command> [<arg>...] (the command after --)',
      );
    const url = serverUrl(before[0]!);
    if (typeof url === 'string') return badValue(url);
    target = { kind: 'url', url };
  }
  const protocol = PROTOCOLS.find((p) => p === values.protocol);
  if (protocol === undefined) return badValue(`--protocol must be one of ${PROTOCOLS.join(', ')}`);
  const timeoutMs = parseDuration(values.timeout);
  if (timeoutMs === undefined) return badValue('--timeout must be a duration such as 30s or 500ms');
  if (values.name !== undefined && !SERVER_NAME.test(values.name))
    return badValue('--name must match ^[a-z][a-z0-9-]{0,31}$ (a letter, then letters, digits, -)');
  const { importMcp } = await import('../import/mcp/import-mcp.js');
  const { ImportError } = await import('../import/openapi/load-document.js');
  const { formatMcpSummary } = await import('../import/mcp/mcp-summary.js');
  let result;
  try {
    result = await importMcp({
      target,
      writes: values.writes ?? false,
      protocol,
      ...(values.name !== undefined && { name: values.name }),
      include: values.include ?? [],
      exclude: values.exclude ?? [],
      cwd: process.cwd(),
      timeoutMs,
    });
  } catch (err) {
    const message = err instanceof ImportError ? err.message : readableError(err).split('\n')[0];
    process.stderr.write(escapeTerminalControls(`mcp-beaver import: ${message}\n`));
    return err instanceof ImportError ? err.exitCode : 1;
  }
  return writeDraft(result.text, formatMcpSummary(result.summary), values.output);
}

/** An http(s) URL the spec's `url=` takes: no credentials in it (they go in `auth`). */
function serverUrl(text: string): URL | string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `${JSON.stringify(text)} is not a URL; a command goes after --: import mcp -- <command> [<arg>...]`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return 'the server URL must be http:// or https:// (a command goes after --)';
  if (url.username !== '' || url.password !== '')
    return 'the server URL must not hold credentials (the draft gets an auth node for them)';
  return url;
}
