/** `mcp-beaver import openapi <file>`: draft a guarded spec from an OpenAPI document. */
import { writeFile } from 'node:fs/promises';
import { IMPORT_COMMAND } from './commands/import.js';
import { parseCommand } from './flags.js';
import { commandMessages, readableError } from './output.js';
import { escapeTerminalControls } from '../client/terminal-text.js';

const { usage, badValue } = commandMessages(IMPORT_COMMAND);

export async function runImport(argv: string[]): Promise<number> {
  const parsed = parseCommand(IMPORT_COMMAND, argv);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const [format, file, ...extra] = positionals;
  if (format !== 'openapi' || file === undefined || extra.length > 0) {
    const why =
      format === undefined || format === 'openapi'
        ? 'name exactly one OpenAPI document: mcp-beaver import openapi <file>'
        : `unknown format ${JSON.stringify(format)} (known: openapi)`;
    return usage(why);
  }
  const baseUrl = values['base-url'];
  if (baseUrl !== undefined && !/^https?:\/\/[^\s/?#@]+(\/[^\s?#]*)?$/.test(baseUrl))
    return badValue('--base-url must be an http:// or https:// URL without query or fragment');
  // The importer (and its parser packages) loads only for this command.
  const { importOpenApi, listTags } = await import('../import/openapi/import-openapi.js');
  const { ImportError } = await import('../import/openapi/load-document.js');
  if (values['list-tags']) {
    try {
      const tags = await listTags(file);
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
  if (values.output !== undefined) {
    try {
      await writeFile(values.output, result.text);
    } catch (err) {
      process.stderr.write(
        escapeTerminalControls(
          `mcp-beaver import: cannot write ${values.output}: ${readableError(err)}\n`,
        ),
      );
      return 1;
    }
  } else process.stdout.write(result.text);
  // What goes to stderr may quote the document, whose text may hold escape sequences;
  // the draft itself holds no control character (the writer escapes them, kdl-text.ts).
  process.stderr.write(escapeTerminalControls(formatSummary(result.summary)));
  if (values.output !== undefined)
    process.stderr.write(
      escapeTerminalControls(`wrote ${values.output}; next: mcp-beaver check ${values.output}\n`),
    );
  return 0;
}
