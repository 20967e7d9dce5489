/**
 * `mcp-beaver check --live` for `tool` grants: opens every `mcp-server` the grants use,
 * as `serve` would (credentials and `from-env` values from the environment), lists their
 * tools and reports the same drift the gateway logs (tool-drift.ts). A server that
 * cannot be opened throws; one that cannot list its tools is a line.
 */
import type { CompiledSpec } from '../../../compiler/descriptor.js';
import type { Env } from '../../../process/env.js';
import { makeRedactor, type Redactor } from '../../redact.js';
import type { GrantOf, LiveReport } from '../kind.js';
import { openServers, type OpenedServers } from './open-servers.js';
import { driftLine, toolDrift } from './tool-drift.js';

export async function liveCheck(
  spec: CompiledSpec,
  grants: readonly GrantOf<'mcp'>[],
  env: Env,
): Promise<LiveReport> {
  // Known once the servers' secrets are read; a child may write to stderr before.
  const known: { redactor?: Redactor } = {};
  const redact = (t: string): string => known.redactor?.text(t) ?? t;
  const opened: OpenedServers = await openServers(spec.mcpServers ?? [], grants, {
    env,
    redact,
    log: (level, message) => process.stderr.write(`${level}: ${redact(message)}\n`),
  });
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
    await Promise.allSettled(opened.servers.map((s) => s.identity?.close?.()));
  }
  return { lines, failed: lines.length > 0 };
}
