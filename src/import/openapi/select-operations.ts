/**
 * Which operations become grants: GET and HEAD unless `--writes`; `--tag` and `--include`
 * are unions (an operation matching either is in), `--exclude` wins over both. Patterns
 * match `METHOD /path`, the path alone or the operationId, `*` standing for any text.
 */
import { isObject, resolvePointer, type JsonObject } from './json.js';

export interface Selection {
  readonly include: readonly string[];
  readonly exclude: readonly string[];
  readonly tags: readonly string[];
  readonly writes: boolean;
}

export interface Operation {
  /** Upper case, as written in a source comment: GET, POST, HEAD... */
  readonly method: string;
  readonly path: string;
  readonly op: JsonObject;
  /** Parameters of the path item, which the operation's own override by name and place. */
  readonly pathParams: readonly unknown[];
  /** `servers` of the path item or operation, which override the document's. */
  readonly source: string;
}

const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options', 'trace'];
const READS = new Set(['GET', 'HEAD']);

export interface Selected {
  readonly operations: Operation[];
  /** Operations left out only because they write and `--writes` was not given. */
  readonly writesLeftOut: number;
}

/** Each tag of the document with how many operations carry it, most used first. */
export function documentTags(doc: JsonObject): [tag: string, operations: number][] {
  const counts = new Map<string, number>();
  forEachOperation(doc, (_method, _path, op) => {
    const tags = Array.isArray(op.tags) ? op.tags.filter((t) => typeof t === 'string') : [];
    for (const t of new Set(tags)) counts.set(t, (counts.get(t) ?? 0) + 1);
    if (tags.length === 0) counts.set('', (counts.get('') ?? 0) + 1);
  });
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
}

function forEachOperation(
  doc: JsonObject,
  visit: (method: string, path: string, op: JsonObject, item: JsonObject) => void,
): void {
  const paths = isObject(doc.paths) ? doc.paths : {};
  for (const [path, rawItem] of Object.entries(paths)) {
    const item =
      isObject(rawItem) && typeof rawItem.$ref === 'string'
        ? resolvePointer(doc, rawItem.$ref)
        : rawItem;
    if (!isObject(item)) continue;
    for (const m of METHODS) {
      const op = item[m];
      if (isObject(op)) visit(m.toUpperCase(), path, op, item);
    }
  }
}

export function selectOperations(doc: JsonObject, sel: Selection): Selected {
  const include = sel.include.map(glob);
  const exclude = sel.exclude.map(glob);
  const operations: Operation[] = [];
  let writesLeftOut = 0;
  forEachOperation(doc, (method, path, op, item) => {
    const id = typeof op.operationId === 'string' ? op.operationId : undefined;
    const tags = Array.isArray(op.tags) ? op.tags.filter((t) => typeof t === 'string') : [];
    const keys = [`${method} ${path}`, path, ...(id ? [id] : [])];
    const matches = (res: RegExp[]): boolean => res.some((re) => keys.some((k) => re.test(k)));
    const chosen =
      (include.length === 0 && sel.tags.length === 0) ||
      matches(include) ||
      tags.some((t) => sel.tags.includes(t));
    if (!chosen || matches(exclude)) return;
    if (!sel.writes && !READS.has(method)) {
      writesLeftOut += 1;
      return;
    }
    operations.push({
      method,
      path,
      op,
      pathParams: Array.isArray(item.parameters) ? item.parameters : [],
      source: `${method} ${path}${id ? ` (${id})` : ''}`,
    });
  });
  return { operations, writesLeftOut };
}

/** `GET /repos/*` → a whole-string match, `*` for any run of characters; methods case-insensitive. */
export function glob(pattern: string): RegExp {
  const m = /^([A-Za-z]+)(\s+)(.*)$/.exec(pattern);
  const text =
    m && METHODS.includes(m[1]!.toLowerCase()) ? `${m[1]!.toUpperCase()} ${m[3]}` : pattern;
  const body = text
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`, 's');
}
