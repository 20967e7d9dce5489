/** `mcp-beaver openapi <spec>`: the OpenAPI 3.1 document of the REST surface, as GET /openapi.json serves it. */
import { parseArgs } from 'node:util';
import { buildOpenApi } from '../projection/rest/openapi.js';
import { OPENAPI_HELP } from './help.js';
import { loadSpecOrReport, readableError } from './output.js';

export async function runOpenApi(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { 'server-url': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (err) {
    process.stderr.write(`mcp-beaver openapi: ${readableError(err)}\n\n${OPENAPI_HELP}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(OPENAPI_HELP);
    return 0;
  }
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
