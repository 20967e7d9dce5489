/**
 * The gateway's own version, for the resource's `service.version`. Read from package.json
 * when telemetry is switched on (never on the path of a gateway without it). This file is
 * two folders below the package's root in tsc's output and in the bundle's chunks
 * (dist/cli/), as src/cli/main.ts is; the single binary has no package.json beside it, and
 * its build (scripts/build-binary.mjs) defines MCP_BEAVER_VERSION instead.
 */
import { readFile } from 'node:fs/promises';

declare const MCP_BEAVER_VERSION: string | undefined;

/** The package's version, or undefined when it cannot be read. */
export async function packageVersion(): Promise<string | undefined> {
  if (typeof MCP_BEAVER_VERSION === 'string') return MCP_BEAVER_VERSION;
  try {
    const pkg = JSON.parse(
      await readFile(new URL('../../package.json', import.meta.url), 'utf8'),
    ) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : undefined;
  } catch {
    return undefined;
  }
}
