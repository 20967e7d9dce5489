/**
 * `mcp-beaver import openapi <file>`: draft a guarded spec from an OpenAPI document;
 * `import mcp` (run-import-mcp.ts) drafts one from an MCP server's tools.
 */
import { UPSTREAM_NAME } from '../compiler/kinds/upstream.js';
import { IMPORT_COMMAND } from './commands/import-command.js';
import { parseCommand } from './flags.js';
import { commandMessages, readableError } from './output.js';
import { writeDraft } from './write-draft.js';
import { escapeTerminalControls } from '../client/terminal-text.js';

const { usage, badValue } = commandMessages(IMPORT_COMMAND);

/** Flags of `import mcp` that `import openapi` refuses. */
const MCP_ONLY = ['protocol', 'name', 'timeout'] as const;

export async function runImport(argv: string[]): Promise<number> {
  const parsed = parseCommand(IMPORT_COMMAND, argv);
  if (typeof parsed === 'number') return parsed;
  const { values, given, positionals } = parsed;
  const [format, file, ...extra] = positionals;
  if (format === 'mcp') return (await import('./run-import-mcp.js')).runImportMcp(parsed, argv);
  const notHere = MCP_ONLY.find((k) => k in given);
  if (format === 'openapi' && notHere !== undefined)
    return usage(`--${notHere} is for import mcp, not import openapi`);
  if (format !== 'openapi' || file === undefined || extra.length > 0) {
    const why =
      format === undefined || format === 'openapi'
        ? 'name exactly one OpenAPI document: mcp-beaver import openapi <file>'
        : `unknown format ${JSON.stringify(format)} (known: openapi, mcp)`;
    return usage(why);
  }
  const baseUrl = values['base-url'];
  if (baseUrl !== undefined && !/^https?:\/\/[^\s/?#@]+(\/[^\s?#]*)?$/.test(baseUrl))
    return badValue('--base-url must be an http:// or https:// URL without query or fragment');
  const upstream = values.upstream;
  if (upstream !== undefined && !UPSTREAM_NAME.test(upstream))
    return badValue(
      `--upstream names the upstream in the spec: ${JSON.stringify(upstream)} must match ${UPSTREAM_NAME.source}`,
    );
  const toolsets = values.toolsets;
  if (toolsets !== undefined && toolsets !== 'tag')
    return badValue(
      `--toolsets takes one value, tag (a toolset per tag): ${JSON.stringify(toolsets)} is not one`,
    );
  // The importer (and its parser packages) loads only for this command.
  const { importOpenApi, listTags } = await import('../import/openapi/import-openapi.js');
  const { ImportError } = await import('../import/openapi/load-document.js');
  const refRoot = values['ref-root'];
  const load = refRoot === undefined ? {} : { refRoot };
  if (values['list-tags']) {
    try {
      const tags = await listTags(file, load);
      const width = Math.max(0, ...tags.map(([, n]) => String(n).length));
      for (const [tag, n] of tags)
        process.stdout.write(`${String(n).padStart(width)}  ${tag === '' ? '(untagged)' : tag}\n`);
      return 0;
    } catch (err) {
      process.stderr.write(`mcp-beaver import: ${readableError(err).split('\n')[0]}\n`);
      return err instanceof ImportError ? err.exitCode : 1;
    }
  }
  const { formatSummary } = await import('../import/openapi/summary.js');
  let result;
  try {
    result = await importOpenApi(file, {
      include: values.include ?? [],
      exclude: values.exclude ?? [],
      tags: values.tag ?? [],
      writes: values.writes ?? false,
      ...(baseUrl !== undefined && { baseUrl }),
      ...(upstream !== undefined && { upstream }),
      ...(toolsets !== undefined && { toolsets }),
      ...load,
    });
  } catch (err) {
    if (err instanceof ImportError) {
      process.stderr.write(escapeTerminalControls(`mcp-beaver import: ${err.message}\n`));
      return err.exitCode;
    }
    process.stderr.write(
      escapeTerminalControls(`mcp-beaver import: ${file}: ${readableError(err).split('\n')[0]}\n`),
    );
    return 1;
  }
  return writeDraft(result.text, formatSummary(result.summary), values.output);
}
