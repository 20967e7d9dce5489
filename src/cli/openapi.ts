/** `mcp-beaver openapi <spec>`: the OpenAPI 3.1 document of the REST surface, as GET /openapi.json serves it. */
import { parseArgs } from 'node:util';
import { formatDiagnostic } from '../spec/diagnostics.js';
import { compileSpecFile } from '../spec/load-spec.js';
import { buildOpenApi } from '../projection/rest/openapi.js';
import { OPENAPI_HELP } from './help.js';
import { readableError } from './output.js';

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
  let result;
  try {
    result = await compileSpecFile(file);
  } catch (err) {
    process.stderr.write(`${file}: ${readableError(err)}\n`);
    return 1;
  }
  if (!result.compiled) {
    for (const d of result.diagnostics) process.stderr.write(`${formatDiagnostic(d)}\n`);
    return 1;
  }
  const doc = buildOpenApi(result.compiled, {
    ...(serverUrl !== undefined && { serverUrl: serverUrl.replace(/\/+$/, '') }),
  });
  process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
  return 0;
}
