/**
 * The `http` kind (spec-language.md, "Grants"): a grant with `path` calls one operation
 * of the spec's `base-url` over undici. Everything the rest of the gateway knows of the
 * kind is here; its runtime (http-backend.ts) loads only with a grant of it.
 */
import { credentialKind } from '../../../compiler/descriptor.js';
import { HTTP_GRANT } from '../../../compiler/kinds/http-grant.js';
import { httpClientAttributes, httpClientSpanName } from '../../../telemetry/conventions.js';
import { mixedSegments } from '../../guards/metachar.js';
import type { KindDescriptor } from '../kind.js';
import { credentialVariables } from '../upstream/credentials.js';
import { asCredential } from '../route-words.js';

export const HTTP_KIND: KindDescriptor<'http'> = {
  kind: 'http',
  word: 'HTTP',
  tag: 'Grants that call the upstream HTTP API.',
  grant: HTTP_GRANT,
  codes: {
    UPSTREAM_STATUS: true,
    UPSTREAM_UNREACHABLE: true,
    UPSTREAM_BAD_RESPONSE: true,
    UPSTREAM_TIMEOUT: true,
  },
  target: (b) => `${b.method} ${b.pathTemplate}`,
  span: (b) => ({
    name: () => httpClientSpanName(b.method, b.pathTemplate),
    attributes: () => httpClientAttributes(b.method, b.baseUrl, b.pathTemplate),
  }),
  // The grant's upstream's `auth` (the compiler copies it onto the grant as well).
  credential: (b, spec) =>
    credentialKind((spec.upstreams.find((u) => u.name === b.upstream) ?? b).auth),
  route(b, spec) {
    const where = b.upstream === '' ? 'the default upstream' : `upstream ${b.upstream}`;
    return `calls ${where} ${asCredential(this.credential(b, spec))}`;
  },
  pathSegments: (b) => mixedSegments(b.path),
  // Each upstream a grant names, once: its own credential's variables.
  variables: (spec, grants) =>
    [...new Map(grants.map((g) => [g.backend.upstream, g.backend])).values()].flatMap((b) =>
      credentialVariables(spec.upstreams?.find((u) => u.name === b.upstream)?.auth ?? b.auth),
    ),
  load: async () => (await import('./http-backend.js')).createHttpKind,
};
