/**
 * A stand-in for a module the startup snapshot must not evaluate (bench/snapshot/build.mjs
 * puts it in their place): Node's node:http, node:https, node:http2 and node:tls (their
 * native bindings are not registered for snapshots: loading one while building aborts the
 * build), node:cluster (it picks primary or worker from the environment when it loads),
 * and packages that capture the process at load (prom-client's process start time).
 *
 * The real module is loaded on the first use of one of its members, at run time. Its
 * member names are known up front (the build passes them in), so esbuild's
 * `__toESM(require(...))` can list them without loading it. The constants modules read at
 * load (node:http's STATUS_CODES, METHODS and maxHeaderSize, node:http2's constants) are
 * answered from the build's own copy, the same Node version's. Any other use while the
 * snapshot is built throws, naming the member. (A copy of anything else would be wrong: a
 * first version copied node:cluster's `isWorker: false` from the build, and every worker
 * of `serve --workers` took itself for the primary.)
 */
import { startupSnapshot } from 'node:v8';

export function lazyModule(
  id: string,
  names: readonly string[],
  data: Readonly<Record<string, unknown>>,
  loadReal: () => unknown = () => process.getBuiltinModule(id),
): object {
  let real: Record<PropertyKey, unknown> | undefined;
  const load = (why: PropertyKey): Record<PropertyKey, unknown> => {
    if (real) return real;
    if (startupSnapshot.isBuildingSnapshot())
      throw new Error(
        `${id}.${String(why)} was used while the startup snapshot was built: ${id} may be used only at run time`,
      );
    real = loadReal() as Record<PropertyKey, unknown>;
    return real;
  };
  const listed = new Set<PropertyKey>(names);
  return new Proxy(
    {},
    {
      get: (_t, key) => {
        if (real) return real[key];
        if (key === '__esModule') return undefined;
        if (typeof key === 'string' && Object.hasOwn(data, key)) return data[key];
        return load(key)[key];
      },
      set: (_t, key, value) => Reflect.set(load(key), key, value),
      has: (_t, key) => (real ? key in real : listed.has(key)),
      ownKeys: () => (real ? Reflect.ownKeys(real) : [...names]),
      getOwnPropertyDescriptor: (_t, key) => {
        if (!real)
          return listed.has(key)
            ? { configurable: true, enumerable: true, writable: true, value: undefined }
            : undefined;
        const d = Reflect.getOwnPropertyDescriptor(real, key);
        return d && { ...d, configurable: true };
      },
      defineProperty: (_t, key, d) => Reflect.defineProperty(load(key), key, d),
      deleteProperty: (_t, key) => Reflect.deleteProperty(load(key), key),
    },
  );
}
