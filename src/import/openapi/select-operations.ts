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

export function selectOperations(doc: JsonObject, sel: Selection): Selected {
  const include = sel.include.map(glob);
  const exclude = sel.exclude.map(glob);
  const operations: Operation[] = [];
  let writesLeftOut = 0;
  const paths = isObject(doc.paths) ? doc.paths : {};
  for (const [path, rawItem] of Object.entries(paths)) {
    const item =
      isObject(rawItem) && typeof rawItem.$ref === 'string'
        ? resolvePointer(doc, rawItem.$ref)
        : rawItem;
    if (!isObject(item)) continue;
    for (const m of METHODS) {
      const op = item[m];
      if (!isObject(op)) continue;
      const method = m.toUpperCase();
      const id = typeof op.operationId === 'string' ? op.operationId : undefined;
      const tags = Array.isArray(op.tags) ? op.tags.filter((t) => typeof t === 'string') : [];
      const keys = [`${method} ${path}`, path, ...(id ? [id] : [])];
      const matches = (res: RegExp[]): boolean => res.some((re) => keys.some((k) => re.test(k)));
      const chosen =
        (include.length === 0 && sel.tags.length === 0) ||
        matches(include) ||
        tags.some((t) => sel.tags.includes(t));
      if (!chosen || matches(exclude)) continue;
      if (!sel.writes && !READS.has(method)) {
        writesLeftOut += 1;
        continue;
      }
      operations.push({
        method,
        path,
        op,
        pathParams: Array.isArray(item.parameters) ? item.parameters : [],
        source: `${method} ${path}${id ? ` (${id})` : ''}`,
      });
    }
  }
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
