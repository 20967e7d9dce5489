/**
 * The grant kind: `can <verb> <resource> { ... }` (spec-language.md, "Grants"). Its
 * node row, the children every grant has (describe, method, pick, scope, limits, ...),
 * and the table of backends whose children make it an HTTP or a sql grant: the backend
 * a grant's children name is the one that checks them and lowers its `backend`. What the
 * check finds (tool name, method, placements, shape) is handed to the lowering.
 */
import { NameClaims, takenBy } from '../name-claims.js';
import { MIN_MAX_BYTES } from '../../envelope/envelope.js';
import {
  shapeTree,
  parseShapePath,
  type ShapeNode,
  type ShapeStep,
} from '../../envelope/shape-path.js';
import { Claims } from '../argument-claims.js';
import { count, locatedString, once, RATE_LIMIT, SCOPE, TEXT, TIMEOUT } from '../common-kinds.js';
import type { Diagnostics, Located, Subject } from '../diagnostics.js';
import type { RateLimit, ShapeDescriptor, ToolDescriptor } from '../descriptor.js';
import { deepFreeze, Interner } from '../freeze.js';
import {
  arg,
  argAt,
  childNamed,
  childrenNamed,
  type NodeKind,
  type Table,
  type TableRow,
} from '../kdl-reader.js';
import { defaultTitle, TOOL_NAME, toolName } from '../naming.js';
import { shapedOutputSchema } from '../output-schema.js';
import { inputSchema, type Placement } from '../placement.js';
import {
  behaviourOf,
  HTTP_METHODS,
  isHttpMethod,
  KNOWN_VERBS,
  methodOfVerb,
  type Behaviour,
  type HttpMethod,
} from '../verbs.js';
import { APPROVE, checkConsent, CONFIRM, consentSentence, lowerConsent } from './consent.js';
import { checkBounds } from './field.js';
import {
  ownChildren,
  type CheckedBackend,
  type GrantBackend,
  type GrantContext,
  type GrantSpec,
} from './grant-backend.js';
import { HTTP_GRANT } from './http-grant.js';
import { MCP_GRANT } from './mcp-grant.js';
import { checkRestrict, lowerRestrict } from './restrict.js';
import { SQL_GRANT } from './sql-grant.js';

export type { GrantContext, GrantSpec } from './grant-backend.js';

/**
 * The backends a grant may have, in the order messages and the "known: ..." hint list
 * them: the compiler parts of the backend kinds, in the order of their list
 * (engine/backends/kinds.ts, which the compiler does not import; a test holds the two
 * to each other).
 */
export const GRANT_BACKENDS: readonly GrantBackend[] = [HTTP_GRANT, SQL_GRANT, MCP_GRANT];

const DEFAULT_MAX_BYTES = 262_144;
const DEFAULT_BUDGET_BYTES = 40_000;

/** `pick` / `omit`: field paths, checked with the grant. */
const SHAPE: NodeKind<Located<Located<string>[]>> = {
  rest: { what: 'a field path such as "user.login" or "labels[].name"', type: 'string' },
  build(n, { diag, subject }) {
    if (n.args.length === 0)
      diag.error('SPEC_MISSING', n.at, subject, `\`${n.name}\` needs at least one field path`);
    return {
      value: n.args.flatMap((a) => (a ? [{ value: a.value as string, at: a.at }] : [])),
      at: n.at,
    };
  },
};

/** Which backend owns each backend child, by name. */
const OWNER = new Set<string>(GRANT_BACKENDS.flatMap((b) => Object.keys(b.children)));

/** A grant's children, in the order the "known: ..." hint lists them. */
const GRANT_TABLE: Table = {
  kinds: {
    describe: once(TEXT),
    title: once(TEXT),
    method: once(locatedString('an HTTP method')),
    ...(Object.fromEntries(GRANT_BACKENDS.flatMap((b) => Object.entries(b.children))) as Record<
      string,
      TableRow
    >),
    pick: once(SHAPE),
    omit: once(SHAPE),
    scope: SCOPE,
    'rate-limit': once(RATE_LIMIT),
    timeout: once(TIMEOUT),
    'max-bytes': once(count('max-bytes', MIN_MAX_BYTES)),
    'budget-bytes': once(count('budget-bytes')),
    confirm: once(CONFIRM),
    approve: once(APPROVE),
  },
  where: 'in a grant',
  twice: 'is given twice',
};

export const GRANT: NodeKind<GrantSpec> = {
  args: [
    { what: 'a verb (can list issues)', type: 'string' },
    { what: 'a resource (can list issues)', type: 'string' },
  ],
  children: GRANT_TABLE,
  // Without both words there is no tool name to speak of: its children are not read.
  inner: (n) => {
    const verb = arg<string>(n, 0);
    const resource = arg<string>(n, 1);
    return verb === undefined || resource === undefined
      ? undefined
      : [`grant ${toolName(verb, resource)}`];
  },
  build(n) {
    const c = n.children;
    const verb = arg<string>(n, 0)!;
    const resource = arg<string>(n, 1)!;
    return {
      name: toolName(verb, resource),
      verb: { value: verb, at: argAt(n, 0) },
      resource,
      at: n.at,
      describe: childNamed(c, 'describe'),
      title: childNamed(c, 'title'),
      method: childNamed(c, 'method'),
      pick: childNamed(c, 'pick'),
      omit: childNamed(c, 'omit'),
      scopes: childrenNamed<string[]>(c, 'scope').flat(),
      rateLimit: childNamed<RateLimit>(c, 'rate-limit'),
      timeoutMs: childNamed(c, 'timeout'),
      maxBytes: childNamed<Located<number>>(c, 'max-bytes')?.value,
      budgetBytes: childNamed<Located<number>>(c, 'budget-bytes')?.value,
      confirm: childNamed(c, 'confirm'),
      approve: childNamed(c, 'approve'),
      parts: c.filter((child) => OWNER.has(child.name)),
    };
  },
};

/** What the check of one grant found, for the resources that name it and its lowering. */
export interface CheckedGrant {
  readonly spec: GrantSpec;
  readonly name: string;
  /** Still makes a tool (for the cross-grant checks); false only with an error reported. */
  readonly makesTool: boolean;
  /** Every argument, in the order they claimed their names; none when no backend is known. */
  readonly placements: readonly Placement[];
  readonly method?: HttpMethod;
  readonly behaviour?: Behaviour;
  readonly backend?: { readonly kind: GrantBackend; readonly checked: CheckedBackend };
  readonly shape?: { readonly descriptor: ShapeDescriptor; readonly tree: Map<string, ShapeNode> };
}

/**
 * Every grant's check, then what only the whole list shows: a tool name taken twice, a
 * grant with no `describe`. Every grant is returned, checked as far as it could be.
 */
export function checkGrants(grants: readonly GrantSpec[], ctx: GrantContext): CheckedGrant[] {
  const names = new NameClaims(ctx.diag, 'SPEC_DUPLICATE_TOOL', takenBy('tool name', 'grant'));
  return grants.map((g) => {
    const checked = checkGrant(g, ctx);
    if (!checked.makesTool) return checked;
    const { name } = checked;
    if (!names.claim(name, g.at, g.at, [`grant ${name}`])) return checked;
    if (g.describe === undefined)
      ctx.diag.warn(
        'SPEC_NO_DESCRIBE',
        g.at,
        [`grant ${name}`],
        'no `describe`: agents choose tools by their description',
      );
    return checked;
  });
}

/** "a, b or c". */
function either(words: readonly string[]): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}

/**
 * For each backend, the other backends' children a grant of it must not hold, each with
 * the backend it belongs to. A child some backends share (`set`) is misplaced only in a
 * grant whose kind lacks it, and is blamed once, on the first backend that has it; a
 * backend's marker is left to the SPEC_GRANT_KIND of a grant naming two. The same for
 * every grant, so worked out once.
 */
const MISPLACED = new Map(
  GRANT_BACKENDS.map((kind) => {
    const blamed = new Set<string>(Object.keys(kind.children));
    const misplaced: (readonly [string, GrantBackend])[] = [];
    for (const other of GRANT_BACKENDS) {
      if (other === kind) continue;
      for (const node of Object.keys(other.children)) {
        if (blamed.has(node)) continue;
        blamed.add(node);
        if (node !== other.marker) misplaced.push([node, other]);
      }
    }
    return [kind, misplaced] as const;
  }),
);

/** The meaning of one grant: name, verb, backend, arguments, shape, restrict. */
function checkGrant(g: GrantSpec, ctx: GrantContext): CheckedGrant {
  const { diag } = ctx;
  const { name } = g;
  const subject = [`grant ${name}`];
  // Each backend's children of this grant, read once for the bounds and the checks.
  const owns = GRANT_BACKENDS.map((b) => ownChildren(g.parts, b));
  const ownOf = (b: GrantBackend): unknown => owns[GRANT_BACKENDS.indexOf(b)];
  checkBounds(
    GRANT_BACKENDS.flatMap((b, i) => b.blocks(owns[i])),
    diag,
    subject,
  );
  let ok = TOOL_NAME.test(name);
  if (!ok)
    diag.error(
      'SPEC_TOOL_NAME',
      g.at,
      subject,
      `tool name ${JSON.stringify(name)} must match ${TOOL_NAME.source}`,
    );
  const verbMethod = methodOfVerb(g.verb.value);
  if (g.method && !isHttpMethod(g.method.value)) {
    ok = false;
    diag.error(
      'SPEC_VALUE_TYPE',
      g.method.at,
      subject,
      `method ${JSON.stringify(g.method.value)} is not one of ${HTTP_METHODS.join(', ')}`,
    );
  } else if (!g.method && !verbMethod) {
    ok = false;
    diag.error(
      'SPEC_UNKNOWN_VERB',
      g.verb.at,
      subject,
      `unknown verb ${JSON.stringify(g.verb.value)}; use one of ${KNOWN_VERBS.join(', ')}, or add \`method "POST"\` (or GET, PUT, PATCH, DELETE)`,
    );
  }
  const given = GRANT_BACKENDS.filter((b) => g.parts.some((c) => c.name === b.marker));
  if (given.length !== 1) {
    const second = given[1] && childNamed<{ at: GrantSpec['at'] }>(g.parts, given[1].marker);
    diag.error(
      'SPEC_GRANT_KIND',
      second?.at ?? g.at,
      subject,
      second
        ? `a grant has either ${either(given.map((b) => b.either))}, ${given.length === 2 ? 'not both' : 'only one of them'}`
        : `a grant needs ${GRANT_BACKENDS.map((b) => b.needs).join(' or ')}`,
    );
    // Of a grant that names two backends, the later one's arguments are what a resource sees.
    const later = given.at(-1);
    const placements = later && given.length > 1 ? later.place(ownOf(later)) : [];
    return { spec: g, name, makesTool: false, placements };
  }
  const kind = given[0]!;
  for (const [node, other] of MISPLACED.get(kind)!) {
    const misplaced = g.parts.find((c) => c.name === node);
    if (misplaced)
      diag.error(
        'SPEC_GRANT_KIND',
        misplaced.at,
        subject,
        `\`${node}\` belongs to ${other.name} grants; this grant is ${kind.name}`,
      );
  }

  const claims = new Claims(diag, subject);
  const own = ownOf(kind);
  const settings = kind.settings(ctx.top, own);
  const missing = kind.missing?.(own, settings);
  if (missing) diag.error(missing.code, missing.at, subject, missing.message);
  const checked = kind.check({ grant: g, own, settings, ctx, diag, subject, claims });
  if (!checked.ok || missing) ok = false;
  const shape = checkShape(g, diag, subject);
  checkConsent(
    g,
    checked.placements.map((p) => p.argument.name),
    ctx.access,
    diag,
    subject,
  );
  for (const r of ctx.restrict) checkRestrict(r, claims, diag, ctx.restrictUsed, subject);
  for (const f of claims.fieldOf.values()) {
    if (f.fromClaim && !ctx.hasOauth)
      diag.error(
        'SPEC_MISSING',
        f.fromClaim.at,
        [...subject, `argument ${f.name}`],
        'from-claim takes the value from a verified token: add `access { oauth ... }`',
      );
  }
  const method = (g.method?.value as HttpMethod | undefined) ?? verbMethod;
  return {
    spec: g,
    name,
    makesTool: ok,
    placements: checked.placements,
    ...(method && {
      method,
      // Annotations follow the verb's meaning when the verb is known (`cancel` sent as
      // POST is still destructive); `method` supplies them only for verbs outside the table.
      behaviour: behaviourOf(verbMethod ?? method),
    }),
    backend: { kind, checked },
    ...(shape && { shape }),
  };
}

/** `pick` or `omit`, not both; every path parses, and names each field one way. */
function checkShape(g: GrantSpec, diag: Diagnostics, subject: Subject): CheckedGrant['shape'] {
  if (g.pick && g.omit) {
    // The later of the two is blamed, and the message points back at the other.
    const pickFirst =
      g.pick.at.line < g.omit.at.line ||
      (g.pick.at.line === g.omit.at.line && g.pick.at.column < g.omit.at.column);
    const [first, later] = pickFirst ? ['pick', g.omit] : ['omit', g.pick];
    const at = (pickFirst ? g.pick : g.omit).at;
    diag.error(
      'SPEC_SHAPE',
      later.at,
      subject,
      `a grant takes pick or omit, not both (${first} is at ${at.line}:${at.column})`,
    );
    return undefined;
  }
  const shape = g.pick ?? g.omit;
  if (!shape) return undefined;
  const node = g.pick ? 'pick' : 'omit';
  const parsed: ShapeStep[][] = [];
  for (const path of shape.value) {
    const p = parseShapePath(path.value);
    if (p.ok) parsed.push([...p.steps]);
    else
      diag.error(
        'SPEC_SHAPE',
        path.at,
        subject,
        `${node} ${JSON.stringify(path.value)}: ${p.reason}`,
      );
  }
  if (parsed.length < shape.value.length) return undefined;
  const tree = shapeTree(parsed);
  if (!tree.ok) {
    const path = shape.value[tree.index]!;
    diag.error(
      'SPEC_SHAPE',
      path.at,
      subject,
      `${node} ${JSON.stringify(path.value)}: ${tree.reason}`,
    );
    return undefined;
  }
  return { descriptor: { mode: node, paths: shape.value.map((p) => p.value) }, tree: tree.root };
}

/** The tool description says what shaping keeps, so a model knows what it will not see. */
function withShape(describe: string | undefined, shape: ShapeDescriptor): string {
  const said =
    shape.mode === 'pick'
      ? `The result keeps only these fields: ${shape.paths.join(', ')}.`
      : `The result leaves out these fields: ${shape.paths.join(', ')}.`;
  return joined(describe, said);
}

/** A sentence added to a description that may not exist. */
function joined(describe: string | undefined, said: string): string {
  return describe === undefined ? said : `${describe} ${said}`;
}

/** A grant of a clean spec → its frozen ToolDescriptor, every default resolved. */
export function lowerGrant(
  c: CheckedGrant,
  ctx: GrantContext,
  interner = new Interner(),
): ToolDescriptor {
  const { spec: g, placements } = c;
  if (!c.backend || !c.method || !c.behaviour)
    throw new Error(`lowering the unchecked grant ${c.name}`);
  const { kind, checked } = c.backend;
  const behaviour = c.behaviour;
  const verb = g.verb.value;
  const title = g.title ?? defaultTitle(verb, g.resource);
  const rateLimit = g.rateLimit ?? ctx.rateLimit;
  const shape = c.shape?.descriptor;
  const consent = lowerConsent(g);
  const shaped = shape ? withShape(g.describe, shape) : g.describe;
  // The consent sentence comes last: the description "ends with" it on every surface.
  const description = consent ? joined(shaped, consentSentence(consent)) : shaped;
  const restrict = lowerRestrict(ctx.restrict, new Set(placements.map((p) => p.argument.name)));
  // The parts grants have alike are shared (freeze.ts): the input schema, which the
  // engine's checks and validators are made of, and the rules every grant repeats.
  // What differs per grant (its name, path, arguments) is only frozen: interning costs
  // about eight times a freeze, and would find little to share there.
  const share = <T>(part: T): T => interner.intern(part);
  return deepFreeze<ToolDescriptor>({
    name: c.name,
    verb,
    resource: g.resource,
    title,
    ...(description !== undefined && { description }),
    annotations: {
      title,
      readOnlyHint: behaviour.readOnly,
      destructiveHint: behaviour.destructive,
      idempotentHint: behaviour.idempotent,
      openWorldHint: kind.openWorld,
    },
    inputSchema: share(inputSchema(placements, new Map(restrict.map((r) => [r.argument, r])))),
    outputSchema: c.shape
      ? shapedOutputSchema(kind.outputSchema, c.shape.descriptor, c.shape.tree)
      : kind.outputSchema,
    arguments: placements.map((p) => p.argument),
    exclusive: share(checked.exclusive),
    restrict: share(restrict),
    scopes: share([...new Set(g.scopes)]),
    limits: share({
      maxBytes: g.maxBytes ?? ctx.limits.maxBytes ?? DEFAULT_MAX_BYTES,
      budgetBytes: g.budgetBytes ?? ctx.limits.budgetBytes ?? DEFAULT_BUDGET_BYTES,
      ...(rateLimit && { rateLimit: { count: rateLimit.count, windowMs: rateLimit.windowMs } }),
    }),
    backend: checked.lower({ method: c.method, readOnly: behaviour.readOnly }),
    ...(shape && { shape }),
    ...(consent && { consent }),
    source: { file: ctx.file, line: g.at.line, column: g.at.column },
  });
}
