/**
 * Spec → CompiledSpec in one pass over the kinds: each checks its nodes, reporting every
 * meaning error of the file, and hands what it found to its own lowering, which runs
 * only when the whole file is clean. The order is the kinds' dependencies: the top
 * level's settings and the upstream MCP servers, then grants (against them), resources (naming grants), prompts
 * (embedding resources), toolsets (naming all three).
 */
import type { CompiledSpec } from './descriptor.js';
import type { Diagnostics } from './diagnostics.js';
import { deepFreeze, Interner } from './freeze.js';
import { checkGrants, lowerGrant } from './kinds/grant.js';
import { checkMcpServers, lowerMcpServers } from './kinds/mcp-server.js';
import { checkPrompts, lowerPrompts } from './kinds/prompt.js';
import { checkResources, lowerResources } from './kinds/resource.js';
import { warnUnusedRestrict } from './kinds/restrict.js';
import { checkTop, lowerTop, type Spec, type SpecOverrides } from './kinds/top.js';
import { checkToolsets, lowerToolsets } from './kinds/toolset.js';

export type { SpecOverrides };

/** Undefined when the spec has an error; `diag` then lists every one. */
export function compileSpec(
  spec: Spec,
  diag: Diagnostics,
  overrides: SpecOverrides = {},
): CompiledSpec | undefined {
  const servers = checkMcpServers(spec.mcpServers, spec.file, diag);
  const context = checkTop(spec, diag, overrides, servers);
  const grants = checkGrants(spec.grants, context);
  const resources = checkResources(spec.resources, grants, spec.file, diag);
  const prompts = checkPrompts(spec.prompts, resources, diag);
  const toolsets = checkToolsets(spec.toolsets, grants, resources, prompts, diag);
  warnUnusedRestrict(spec.restrict, context.restrictUsed, diag);
  if (diag.errors.length > 0) return undefined;
  // One interner for the whole spec: grants alike in part share that part (freeze.ts).
  const interner = new Interner();
  const tools = grants.map((g) => lowerGrant(g, context, interner));
  const lowered = lowerResources(resources, tools, spec.file);
  return deepFreeze(
    lowerTop(
      spec,
      context,
      tools,
      lowered,
      lowerPrompts(prompts, lowered, spec.file),
      lowerMcpServers(servers, spec.file),
      lowerToolsets(toolsets, spec.file),
    ),
  );
}
