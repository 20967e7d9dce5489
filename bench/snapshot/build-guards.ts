/**
 * Imported first by bench/snapshot/entry.ts. On Node 20 the web globals that load Node's
 * own copy of undici (which loads node:http, which a snapshot cannot hold) are accessors:
 * while the snapshot is built they read as undefined, each read is reported, and the
 * originals are put back before the heap is saved, so at run time they are Node's again.
 * (The one read seen: undici's cookies module, `[Headers, globalThis.Headers]`, for a
 * brand check the gateway never makes.)
 *
 * On Node ≥ 22 they are lazy data properties, and even reading their descriptor loads
 * undici: there they are left alone, and the build keeps the undici package out of the
 * snapshot instead (build.mjs).
 */
import { startupSnapshot } from 'node:v8';

const LAZY_WEB_GLOBALS = [
  'FormData',
  'Headers',
  'Request',
  'Response',
  'MessageEvent',
  'WebSocket',
  'EventSource',
  'CloseEvent',
];

const LAZY_GLOBALS_ARE_ACCESSORS = Number(process.versions.node.split('.')[0]) < 22;

if (startupSnapshot.isBuildingSnapshot() && LAZY_GLOBALS_ARE_ACCESSORS) {
  const read = new Set<string>();
  const saved = new Map<string, PropertyDescriptor>();
  for (const name of LAZY_WEB_GLOBALS) {
    const d = Object.getOwnPropertyDescriptor(globalThis, name);
    if (!d) continue;
    saved.set(name, d);
    Object.defineProperty(globalThis, name, {
      configurable: true,
      enumerable: d.enumerable ?? false,
      get() {
        read.add(name);
        return undefined;
      },
    });
  }
  startupSnapshot.addSerializeCallback(() => {
    for (const [name, d] of saved) Object.defineProperty(globalThis, name, d);
    if (read.size > 0)
      process.stderr.write(`snapshot: read as undefined while building: ${[...read].join(', ')}\n`);
  });
}
