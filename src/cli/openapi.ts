/** `mcp-beaver openapi <spec>`: the OpenAPI 3.1 document of the REST surface, as GET /openapi.json serves it. */
import { buildOpenApi } from '../projection/rest/openapi.js';
import { OPENAPI_HELP } from './help.js';
import { defineCommand, parseCommand } from './flags.js';
import { loadSpecOrReport } from './output.js';

const OPENAPI_COMMAND = defineCommand({
  name: 'openapi',
  help: OPENAPI_HELP,
  flags: { 'server-url': { type: 'string' } },
});

export async function runOpenApi(argv: string[]): Promise<number> {
  const parsed = parseCommand(OPENAPI_COMMAND, argv);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const file = positionals[0];
  if (file === undefined || positionals.length > 1) {
    process.stderr.write(`mcp-beaver openapi: name exactly one spec file\n\n${OPENAPI_HELP}`);
    return 2;
  }
  const serverUrl = values['server-url'];
  if (serverUrl !== undefined && !/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/.test(serverUrl)) {
    process.stderr.write(
      `mcp-beaver openapi: --server-url must be an http:// or https:// URL without query or fragment\n`,
    );
    return 2;
  }
  const compiled = await loadSpecOrReport(file);
  if (typeof compiled === 'number') return compiled;
  const doc = buildOpenApi(compiled, {
    ...(serverUrl !== undefined && { serverUrl: serverUrl.replace(/\/+$/, '') }),
  });
  process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
  return 0;
}
