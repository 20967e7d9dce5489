/** Spec → diagnostics: every meaning error of the file, spec-wide and per grant, at once. */
import { reportPattern } from './check-fields.js';
import { checkGrant } from './check-grant.js';
import { checkPrompts } from './check-prompt.js';
import { checkResources } from './check-resource.js';
import type { Diagnostics, Position } from './diagnostics.js';
import { normalizeBaseUrl } from './base-url.js';
import { authHeaderName, headerProblem } from './headers.js';
import { toolName } from './naming.js';
import type { Spec } from './spec-types.js';

/** Values given at start-up that replace the spec's own (`serve --base-url`). */
export interface SpecOverrides {
  readonly baseUrl?: string;
}

export function checkSpec(spec: Spec, diag: Diagnostics, overrides: SpecOverrides = {}): void {
  const baseUrl = overrides.baseUrl ?? spec.baseUrl?.value;
  const normalized = baseUrl === undefined ? undefined : normalizeBaseUrl(baseUrl);
  if (normalized && !normalized.ok)
    diag.error(
      'SPEC_BASE_URL',
      spec.baseUrl?.at ?? { line: 1, column: 1 },
      ['base-url'],
      normalized.problem,
    );
  const auth = spec.auth?.value;
  const authHeader = authHeaderName(auth);
  if (auth?.kind === 'header') {
    const problem = headerProblem(auth.header, auth.prefix, undefined);
    if (problem) diag.error('SPEC_HEADER', spec.auth!.at, ['auth'], problem);
  }
  for (const {
    value: [name, value],
    at,
  } of spec.headers) {
    const problem = headerProblem(name, value, authHeader);
    if (problem) diag.error('SPEC_HEADER', at, [`header ${name}`], problem);
  }
  for (const { value: r } of spec.restrict)
    if (r.pattern) reportPattern(r.pattern, diag, [`restrict ${r.argument}`]);

  const restrictUsed = new Set<string>();
  const firstAt = new Map<string, Position>();
  for (const g of spec.grants) {
    const scope = { spec, diag, hasBaseUrl: baseUrl !== undefined, authHeader, restrictUsed };
    if (!checkGrant(g, scope)) continue;
    const name = toolName(g.verb.value, g.resource);
    const first = firstAt.get(name);
    if (first) {
      diag.error(
        'SPEC_DUPLICATE_TOOL',
        g.at,
        [`grant ${name}`],
        `tool name ${name} is already taken by the grant at line ${first.line}`,
      );
      continue;
    }
    firstAt.set(name, g.at);
    if (g.describe === undefined)
      diag.warn(
        'SPEC_NO_DESCRIBE',
        g.at,
        [`grant ${name}`],
        'no `describe`: agents choose tools by their description',
      );
  }
  checkResources(spec, diag);
  checkPrompts(spec, diag);
  for (const { value: r, at } of spec.restrict) {
    if (!restrictUsed.has(r.argument))
      diag.warn(
        'SPEC_RESTRICT_UNUSED',
        at,
        [`restrict ${r.argument}`],
        `no grant has an argument named ${r.argument}`,
      );
  }
}
