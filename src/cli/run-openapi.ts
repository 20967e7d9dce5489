/** `mcp-beaver openapi <spec>`: the OpenAPI 3.1 document of the REST surface, as GET /openapi.json serves it. */
import { buildOpenApi } from '../projection/rest/openapi.js';
import { OPENAPI_COMMAND } from './commands/openapi-command.js';
import { parseOperands } from './operands.js';
import { commandMessages, loadSpecOrReport } from './output.js';

const { badValue } = commandMessages(OPENAPI_COMMAND);

export async function runOpenApi(argv: string[]): Promise<number> {
  const parsed = parseOperands(OPENAPI_COMMAND, argv);
  if (typeof parsed === 'number') return parsed;
  const { values, operands } = parsed;
  const file = operands[0];
  const serverUrl = values['server-url'];
  if (serverUrl !== undefined && !/^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/.test(serverUrl))
    return badValue('--server-url must be an http:// or https:// URL without query or fragment');
  const compiled = await loadSpecOrReport(file);
  if (typeof compiled === 'number') return compiled;
  const doc = buildOpenApi(compiled, {
    ...(serverUrl !== undefined && { serverUrl: serverUrl.replace(/\/+$/, '') }),
  });
  process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
  return 0;
}
