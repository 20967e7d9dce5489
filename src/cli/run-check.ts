/** `mcp-beaver check`: compile specs, print a summary or every error. */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { formatDiagnostic, type CheckErrorCode } from '../compiler/diagnostics.js';
import type { CompiledSpec, ToolDescriptor } from '../compiler/descriptor.js';
import { compileSpecFile } from '../compiler/load-spec.js';
import { kindOf } from '../engine/backends/kinds.js';
import { schemaProblems } from '../engine/guards/validate.js';
import { listSizeLines, listSizes, listSizeWarnings } from './check-list-sizes.js';
import { checkEnv } from './check-env.js';
import { checkLive } from './check-live.js';
import { publicUrlProblem, signInCheckLines } from './check-sign-in.js';
import { CHECK_COMMAND } from './commands/check-command.js';
import { parseCommand } from './flags.js';
import { grantRoute } from './grant-route.js';
import { commandMessages, readableError } from './output.js';
import { resourcePromptCheckLines, specCounts } from './spec-resources-prompts.js';

const { usage, badValue } = commandMessages(CHECK_COMMAND);

export async function runCheck(argv: string[]): Promise<number> {
  const parsed = parseCommand(CHECK_COMMAND, argv);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  if (positionals.length === 0) return usage('name a spec file');
  const publicUrl = values['public-url'];
  const urlProblem = publicUrl === undefined ? undefined : publicUrlProblem(publicUrl);
  if (urlProblem) return badValue(urlProblem);
  let failed = false;
  const files: string[] = [];
  for (const given of positionals) {
    const inFolder = await specsInFolder(given);
    if (inFolder === undefined) files.push(given);
    else if (inFolder.length > 0) files.push(...inFolder);
    else {
      process.stderr.write(`${given}: a folder with no .mcp.kdl file in it\n`);
      failed = true;
    }
  }
  for (const file of files) {
    let result;
    try {
      result = await compileSpecFile(file);
    } catch (err) {
      process.stderr.write(`${file}: ${readableError(err)}\n`);
      failed = true;
      continue;
    }
    for (const d of result.diagnostics) {
      (d.severity === 'error' ? process.stdout : process.stderr).write(`${formatDiagnostic(d)}\n`);
    }
    if (!result.compiled) {
      const count = result.diagnostics.filter((d) => d.severity === 'error').length;
      process.stdout.write(`${file}: ${count} error${count === 1 ? '' : 's'}\n`);
      failed = true;
      continue;
    }
    // The input schemas compile as serve will compile them (a gateway bug if not).
    const problems = schemaProblems(result.compiled.tools);
    const code: CheckErrorCode = 'SCHEMA';
    for (const p of problems) {
      const d = result.compiled.tools.find((t) => t.name === p.tool)!;
      process.stdout.write(
        `${file}:${d.source.line}:${d.source.column}: error ${code}: grant ${p.tool}: its input schema does not compile: ${p.message}\n`,
      );
    }
    if (problems.length > 0) {
      failed = true;
      continue;
    }
    if (values.env) {
      const report = checkEnv(result.compiled, process.env);
      for (const l of [...report.lines, ...report.errors]) process.stdout.write(`${l}\n`);
      if (report.errors.length > 0) failed = true;
    }
    if (values.live) {
      const live = await checkLive(result.compiled, process.env);
      for (const l of live.lines) process.stdout.write(`${l}\n`);
      if (live.failed) failed = true;
    }
    const sizes = listSizes(result.compiled);
    if (!values.quiet) {
      const { tools } = result.compiled;
      process.stdout.write(`${file}: ${specCounts(result.compiled)}\n`);
      const width = Math.max(0, ...tools.map((t) => t.name.length));
      for (const t of tools)
        process.stdout.write(`  ${t.name.padEnd(width)}  ${summary(t, result.compiled)}\n`);
      for (const line of mcpServerLines(result.compiled)) process.stdout.write(`${line}\n`);
      for (const line of signInCheckLines(result.compiled, publicUrl)) {
        process.stdout.write(`${line}\n`);
      }
      for (const line of resourcePromptCheckLines(result.compiled)) {
        process.stdout.write(`${line}\n`);
      }
      for (const line of listSizeLines(sizes)) process.stdout.write(`${line}\n`);
    }
    // Said even with --quiet: a list too large for its clients is not a quiet success.
    for (const d of listSizeWarnings(file, result.compiled, sizes)) {
      process.stderr.write(`${formatDiagnostic(d)}\n`);
    }
  }
  return failed ? 1 : 0;
}

/** A folder's `*.mcp.kdl` files, sorted (not its subfolders'); undefined for a file. */
async function specsInFolder(path: string): Promise<string[] | undefined> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isDirectory()) return undefined;
  const names = (await readdir(path, { withFileTypes: true }))
    .filter((e) => e.isFile() && e.name.endsWith('.mcp.kdl'))
    .map((e) => e.name)
    .sort();
  return names.map((n) => join(path, n));
}

function summary(t: ToolDescriptor, spec: CompiledSpec): string {
  const a = t.annotations;
  const hints = [
    a.readOnlyHint ? 'read-only' : a.destructiveHint ? 'destructive' : 'write',
    a.idempotentHint ? 'idempotent' : '',
    a.openWorldHint ? 'open-world' : '',
    t.scopes.length > 0 ? `scope=${t.scopes.join(',')}` : '',
  ].filter(Boolean);
  return `${kindOf(t.backend).target(t.backend)}  ${hints.join(' ')}  ${grantRoute(t, spec)}`;
}

/** `mcp-server tracker  url http://…  timeout 30s`: each upstream MCP server, names aligned. */
function mcpServerLines(spec: CompiledSpec): string[] {
  const servers = spec.mcpServers ?? [];
  const width = Math.max(0, ...servers.map((s) => s.name.length));
  return servers.map((s) => {
    const t = s.transport;
    const where = t.kind === 'url' ? `url ${t.url}` : `command ${[t.program, ...t.args].join(' ')}`;
    const protocol = s.protocol === 'auto' ? '' : `  protocol ${s.protocol}`;
    return `  mcp-server ${s.name.padEnd(width)}  ${where}  timeout ${s.timeoutMs / 1000}s${protocol}`;
  });
}
