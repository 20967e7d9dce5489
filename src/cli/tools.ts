/** `mcp-beaver tools <spec>`: the tool list as tools/list will serve it. */
import { parseArgs } from 'node:util';
import { formatDiagnostic } from '../spec/diagnostics.js';
import { compileSpecFile } from '../spec/load-spec.js';
import { toolList, type ToolDefinition } from '../projection/mcp/tool-definition.js';
import { TOOLS_HELP } from './help.js';
import { readableError } from './output.js';

export async function runTools(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) {
    process.stdout.write(TOOLS_HELP);
    return 0;
  }
  const file = positionals[0];
  if (file === undefined || positionals.length > 1) {
    process.stderr.write(`mcp-beaver tools: name exactly one spec file\n\n${TOOLS_HELP}`);
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
  const list = toolList(result.compiled.tools);
  if (values.json) {
    process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
    return 0;
  }
  for (const t of list.tools) process.stdout.write(describeTool(t));
  return 0;
}

function describeTool(t: ToolDefinition): string {
  const schema = t.inputSchema as {
    properties?: Record<string, { type?: unknown; description?: string }>;
    required?: string[];
  };
  const required = new Set(schema.required ?? []);
  const lines = [`${t.name} — ${t.title}`];
  if (t.description) lines.push(`  ${t.description}`);
  for (const [name, s] of Object.entries(schema.properties ?? {})) {
    const type = Array.isArray(s.type) ? s.type.join('|') : String(s.type ?? 'any');
    lines.push(
      `    ${name}${required.has(name) ? '' : '?'}: ${type}${s.description ? `  — ${s.description}` : ''}`,
    );
  }
  return `${lines.join('\n')}\n\n`;
}
