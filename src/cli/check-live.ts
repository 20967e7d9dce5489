/**
 * `mcp-beaver check --live`: each backend kind that can check its upstreams live (the
 * `mcp` kind: every `mcp-server` opened, listed and compared) does so for the spec's
 * grants of it. A kind that cannot start its check fails it with one line.
 */
import type { CompiledSpec } from '../compiler/descriptor.js';
import { KIND_LIST, type AnyKind } from '../engine/backends/kinds.js';
import type { GrantOf, KindName, LiveReport } from '../engine/backends/kind.js';
import type { Env } from '../process/env.js';
import { readableError } from './output.js';

export type { LiveReport } from '../engine/backends/kind.js';

export async function checkLive(spec: CompiledSpec, env: Env): Promise<LiveReport> {
  const lines: string[] = [];
  let failed = false;
  for (const kind of KIND_LIST) {
    const report = await liveOf(kind, spec, env);
    lines.push(...report.lines);
    failed ||= report.failed;
  }
  return { lines, failed };
}

async function liveOf(kind: AnyKind, spec: CompiledSpec, env: Env): Promise<LiveReport> {
  const grants = spec.tools.filter((d): d is GrantOf<KindName> => d.backend.kind === kind.kind);
  if (!kind.live || grants.length === 0) return { lines: [], failed: false };
  try {
    const check = (await kind.live()) as (
      spec: CompiledSpec,
      grants: readonly GrantOf<KindName>[],
      env: Env,
    ) => Promise<LiveReport>;
    return await check(spec, grants, env);
  } catch (err) {
    return { lines: [`${spec.file}: error: ${readableError(err)}`], failed: true };
  }
}
