/**
 * `mcp-beaver check --live`: opens every `mcp-server` a spec's grants use, as `serve`
 * would (credentials and `from-env` values from the environment), lists their tools and
 * reports the same drift the gateway logs (tool-drift.ts). Any drift, or a server that
 * cannot be opened or reached, fails the check.
 */
import type { CompiledSpec, ToolDescriptor } from '../compiler/descriptor.js';
import type { GrantOf } from '../engine/backends/kind.js';
import { openServers, type OpenedServers } from '../engine/backends/mcp/open-servers.js';
import { driftLine, toolDrift } from '../engine/backends/mcp/tool-drift.js';
import type { Env } from '../process/env.js';
import { makeRedactor, type Redactor } from '../engine/redact.js';
import { readableError } from './output.js';

export interface LiveReport {
  /** One line per problem, `file:line: …`. */
  readonly lines: readonly string[];
  readonly failed: boolean;
}

export async function checkLive(spec: CompiledSpec, env: Env): Promise<LiveReport> {
  const grants = spec.tools.filter((d): d is GrantOf<'mcp'> => isMcp(d));
  if (grants.length === 0) return { lines: [], failed: false };
  // Known once the servers' secrets are read; a child may write to stderr before.
  const known: { redactor?: Redactor } = {};
  const redact = (t: string): string => known.redactor?.text(t) ?? t;
  let opened: OpenedServers;
  try {
    opened = await openServers(spec.mcpServers ?? [], grants, {
      env,
      redact,
      log: (level, message) => process.stderr.write(`${level}: ${redact(message)}\n`),
    });
  } catch (err) {
    return { lines: [`${spec.file}: error: ${readableError(err)}`], failed: true };
  }
  known.redactor = makeRedactor(opened.secrets, opened.sent);
  const lines: string[] = [];
  try {
    for (const s of opened.servers) {
      const where = `${s.descriptor.source.file}:${s.descriptor.source.line}`;
      const listed = await s.upstream.listTools();
      if (!listed.ok) {
        lines.push(
          `${where}: error: mcp-server ${s.descriptor.name}: tools/list failed: ${redact(listed.error.message)}`,
        );
        continue;
      }
      for (const p of toolDrift(s.descriptor.name, s.grants, listed.value))
        lines.push(`${driftLine(p)} (drift)`);
    }
  } finally {
    await Promise.allSettled(opened.servers.map((s) => s.upstream.close()));
  }
  return { lines, failed: lines.length > 0 };
}

function isMcp(d: ToolDescriptor): boolean {
  return d.backend.kind === 'mcp';
}
