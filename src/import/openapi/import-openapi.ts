/**
 * `mcp-beaver import openapi`: an OpenAPI document in, a guarded draft spec out. Each
 * selected operation becomes one grant (or a `//` line saying why it could not), in
 * document order, so the same document always gives the same bytes.
 */
import { basename } from 'node:path';
import type { DraftEntry, DraftGrant, DraftSpec } from './draft-types.js';
import { chooseAuth, chooseBaseUrl, envPrefix, serverName } from './auth-and-server.js';
import { isObject } from './json.js';
import { writeKdl, type KdlItem } from './kdl-nodes.js';
import { ImportError, loadDocument, type LoadOptions } from './load-document.js';
import { mapOperation, type MappedOperation } from './map-operation.js';
import { SchemaMapper } from './map-schema.js';
import {
  nameOperation,
  uniqueToolNames,
  type NamedOperation,
  type ToolNaming,
} from './name-tools.js';
import { readBackProblem } from './read-back.js';
import { draftItems } from './render-kdl.js';
import {
  documentTags,
  selectOperations,
  type Operation,
  type Selection,
} from './select-operations.js';
import { headline, type ImportSummary } from './summary.js';
import {
  operationTags,
  tagDescriptions,
  tagToolsets,
  type TaggedTool,
  type ToolsetsBy,
} from './tag-toolsets.js';
import { toolName } from '../../compiler/naming.js';
import { firstSentences } from './text.js';

export interface ImportOptions extends Selection, LoadOptions {
  /** Replaces the first server's URL. */
  readonly baseUrl?: string;
  /** `--upstream <name>`: the draft declares a named upstream that every grant names. */
  readonly upstream?: string;
  /** `--toolsets=tag`: a toolset per tag after the grants. */
  readonly toolsets?: ToolsetsBy;
}

export interface ImportResult {
  readonly text: string;
  readonly summary: ImportSummary;
}

export async function importOpenApi(file: string, options: ImportOptions): Promise<ImportResult> {
  const { doc, sourceVersion } = await loadDocument(file, options);
  const info = isObject(doc.info) ? doc.info : {};
  const title =
    typeof info.title === 'string' && info.title.trim() ? info.title.trim() : basename(file);
  const version =
    typeof info.version === 'string' || typeof info.version === 'number'
      ? String(info.version)
      : '0.0.0';
  const prefix = envPrefix(title);
  const { operations, writesLeftOut } = selectOperations(doc, options);
  refuseEmptySelection(doc, options, operations.length, writesLeftOut);
  const authChoice = chooseAuth(doc, operations, prefix);
  const credential = {
    ...(authChoice.auth?.kind === 'query' && { queryParam: authChoice.auth.param }),
    ...(authChoice.auth?.kind === 'header' && { header: authChoice.auth.header }),
    ...((authChoice.auth?.kind === 'bearer' || authChoice.auth?.kind === 'basic') && {
      header: 'Authorization',
    }),
  };
  const mapper = new SchemaMapper(doc);

  type Pending = {
    o: Operation;
    mapped: MappedOperation;
    naming: ToolNaming;
    op: NamedOperation;
    source: string;
  };
  const slots: ({ pending: Pending } | { skipped: DraftEntry })[] = [];
  const skipped = new Map<string, number>();
  for (const o of operations) {
    const r = mapOperation(o, mapper, credential);
    if (!r.ok) {
      skipped.set(r.category, (skipped.get(r.category) ?? 0) + 1);
      slots.push({ skipped: { kind: 'skipped', skipped: { source: o.source, reason: r.reason } } });
      continue;
    }
    const id = typeof o.op.operationId === 'string' ? o.op.operationId : undefined;
    const op: NamedOperation = {
      method: r.mapped.method,
      path: o.path,
      ...(id && { operationId: id }),
    };
    slots.push({
      pending: { o, mapped: r.mapped, naming: nameOperation(op), op, source: o.source },
    });
  }
  const pending = slots.flatMap((s) => ('pending' in s ? [s.pending] : []));
  const { namings, renames } = uniqueToolNames(pending);
  let next = 0;
  let leftOut = 0;
  const tagged: TaggedTool[] = [];
  const entries: DraftEntry[] = slots.map((s) => {
    if ('skipped' in s) return s.skipped;
    const { mapped, source } = s.pending;
    const naming = namings[next++]!;
    tagged.push({
      tool: toolName(naming.verb, naming.resource),
      tags: operationTags(s.pending.o.op),
    });
    const grant: DraftGrant = {
      source,
      verb: naming.verb,
      resource: naming.resource,
      ...(naming.method && { method: naming.method }),
      describe: mapped.describe,
      path: mapped.path,
      pathParams: mapped.pathParams,
      pathNotes: mapped.pathNotes,
      query: mapped.query,
      ...(mapped.body && { body: mapped.body }),
      ...(mapped.set && { set: mapped.set }),
      notes: mapped.notes,
    };
    leftOut += countLeftOut(grant);
    return { kind: 'grant', grant };
  });

  // Only grants count: a skipped operation's tag makes no toolset.
  const toolsets =
    options.toolsets === 'tag' ? tagToolsets(tagged, tagDescriptions(doc)) : undefined;
  const summary: ImportSummary = {
    seen: countOperations(doc),
    selected: operations.length,
    imported: pending.length,
    skipped,
    leftOut,
    writesLeftOut,
    renames,
    ...(toolsets && { toolsets }),
  };
  const base = chooseBaseUrl(doc, options.baseUrl);
  const describe =
    (typeof info.description === 'string' && firstSentences(info.description, 2, 300)) ||
    `Drafted from ${title} ${version}.`;
  const draft: DraftSpec = {
    name: serverName(title),
    version,
    title,
    describe,
    baseUrl: base.url,
    baseUrlNotes: base.notes,
    ...(options.upstream !== undefined && { upstream: options.upstream }),
    ...(authChoice.auth && { auth: authChoice.auth }),
    authNotes: authChoice.notes,
    preamble: [
      `Drafted by \`mcp-beaver import openapi\` from ${basename(file)}: ${title} ${version} (${sourceVersion.startsWith('2') ? 'Swagger' : 'OpenAPI'} ${sourceVersion}).`,
      'Review it before serving: every grant is a tool an agent can call. Tighten it with',
      'restrict (allowlists), scope (who may call what) and rate-limit; see docs/spec-language.md.',
      `${headline(summary)}.`,
    ],
    entries,
    ...(toolsets && { toolsets: toolsets.toolsets }),
  };
  return { text: verifiedText(draftItems(draft), file), summary };
}

/**
 * The draft's text, once a KDL reader finds in it exactly the nodes the importer meant
 * to write; else an ImportError, so the command writes nothing.
 */
export function verifiedText(
  items: readonly KdlItem[],
  file: string,
  text: string = writeKdl(items),
): string {
  const problem = readBackProblem(items, text);
  if (problem)
    throw new ImportError(
      `${file}: the draft does not read back as the importer wrote it, so nothing was written (${problem})`,
    );
  return text;
}

/** `import openapi <doc> --list-tags`: each tag with its operation count ("" = untagged). */
export async function listTags(
  file: string,
  options: LoadOptions = {},
): Promise<[string, number][]> {
  return documentTags((await loadDocument(file, options)).doc);
}

/**
 * A filter that selects nothing is a mistake in the command line, not an empty API: a
 * draft with no grant written with exit 0 would hide it. Without filters an empty
 * selection is the document's own (an API of writes only), and the draft says so.
 */
function refuseEmptySelection(
  doc: Record<string, unknown>,
  sel: Selection,
  selected: number,
  writesLeftOut: number,
): void {
  const filtered = sel.tags.length > 0 || sel.include.length > 0 || sel.exclude.length > 0;
  if (!filtered || selected > 0) return;
  if (writesLeftOut > 0)
    throw new ImportError(
      `the filters select ${writesLeftOut} operation${writesLeftOut === 1 ? '' : 's'}, all of them writes: add --writes to draft them`,
    );
  const tags = documentTags(doc)
    .filter(([t]) => t !== '')
    .slice(0, 20)
    .map(([t, n]) => `${JSON.stringify(t)} (${n})`);
  throw new ImportError(
    `no operation matches the filters; ${tags.length > 0 ? `the document's tags: ${tags.join(', ')}` : 'the document has no tags'} (--list-tags lists them all)`,
  );
}

function countOperations(doc: Record<string, unknown>): number {
  let n = 0;
  const methods = new Set(['get', 'head', 'post', 'put', 'patch', 'delete', 'options', 'trace']);
  for (const item of Object.values(isObject(doc.paths) ? doc.paths : {}))
    if (isObject(item))
      for (const k of Object.keys(item)) if (methods.has(k) && isObject(item[k])) n++;
  return n;
}

/** Left-out notes of a grant (each `left out` line is one parameter or field). */
function countLeftOut(g: DraftGrant): number {
  const count = (notes: readonly string[] | undefined): number =>
    (notes ?? []).filter((n) => n.includes('left out')).length;
  const fields = (
    fs: readonly { notes?: readonly string[]; fields?: readonly unknown[] }[],
  ): number => fs.reduce((a, f) => a + count(f.notes) + fields((f.fields ?? []) as typeof fs), 0);
  return (
    count(g.notes) +
    g.pathNotes.length +
    count(g.query.notes) +
    count(g.body?.notes) +
    fields(g.body?.fields ?? []) +
    fields(g.query.fields)
  );
}
