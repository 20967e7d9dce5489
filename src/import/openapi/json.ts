/** JSON values as the importer reads them from a parsed document. */
export type JsonObject = Record<string, unknown>;

export function isObject(x: unknown): x is JsonObject {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** Resolves a local `#/a/b` pointer against the document root (RFC 6901 escapes). */
export function resolvePointer(root: JsonObject, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  const body = ref.slice(1);
  if (body === '') return root;
  if (!body.startsWith('/')) return undefined;
  for (const raw of body.slice(1).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isObject(node) && Object.hasOwn(node, key)) node = node[key];
    else return undefined;
  }
  return node;
}
