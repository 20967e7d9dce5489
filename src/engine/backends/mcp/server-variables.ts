/**
 * The variables the `mcp` kind reads when it opens (open-servers.ts): only of the
 * servers its grants call, a stdio child's `from-env`s and a Streamable HTTP server's
 * `auth`. Its own file: the kind's descriptor is loaded by every process, the upstream
 * client only with a grant of the kind.
 */
import type { McpServerDescriptor } from '../../../compiler/descriptor.js';
import { credentialVariables } from '../upstream/credentials.js';
import type { GrantOf } from '../kind.js';

export function serverVariables(
  declared: readonly McpServerDescriptor[],
  grants: readonly GrantOf<'mcp'>[],
): string[] {
  const called = new Set(grants.map((g) => g.backend.server));
  return declared
    .filter((s) => called.has(s.name))
    .flatMap(({ transport: t }) =>
      t.kind === 'command'
        ? t.env.flatMap((e) => ('fromEnv' in e ? [e.fromEnv] : []))
        : credentialVariables(t.auth),
    );
}
