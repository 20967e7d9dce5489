/**
 * Where a grant's call goes and as whom, as `check` and `tools <spec>` print it
 * (spec-language.md, "Many upstreams and databases in one spec"): its upstream, database
 * or mcp-server, and the kind of credential it is made with (`credentialKind`: service,
 * client-credentials, exchange, user:<provider>, none). Each kind says its own route
 * (KindDescriptor.route), so a new kind adds no branch here.
 */
import { credentialKind, type CompiledSpec, type ToolDescriptor } from '../compiler/descriptor.js';
import { kindOf } from '../engine/backends/kinds.js';
import { asCredential } from '../engine/backends/route-words.js';

/**
 * `check`: one line per named upstream, database and oauth provider, after the grants, the
 * names aligned: where each is, its deadline, and its egress (proxy, tls) when it has one.
 * The default upstream and database are told by their grants' lines.
 */
export function namedTargetLines(spec: CompiledSpec): string[] {
  const rows: (readonly [string, string, string])[] = [
    ...spec.upstreams
      .filter((u) => u.name !== '')
      .map((u) => {
        const details = [
          asCredential(credentialKind(u.auth)),
          u.timeoutMs !== undefined ? `timeout ${u.timeoutMs / 1000}s` : '',
          u.proxy !== undefined ? `proxy ${u.proxy}` : '',
          u.tls ? `tls ${Object.keys(u.tls).join(' ')}` : '',
        ];
        return ['upstream', u.name, [u.baseUrl, ...details].filter(Boolean).join('  ')] as const;
      }),
    ...spec.databases
      .filter((d) => d.name !== '')
      .map(
        (d) =>
          [
            'database',
            d.name,
            `${d.kind === 'env' ? `env ${d.env}` : 'embedded'}  pool ${d.pool}  statement-timeout ${d.statementTimeoutMs / 1000}s`,
          ] as const,
      ),
    ...spec.oauthProviders.map(
      (p) =>
        ['oauth-provider', p.name, `authorize ${p.authorizeUrl}  token ${p.tokenUrl}`] as const,
    ),
  ];
  const kindWidth = Math.max(0, ...rows.map(([k]) => k.length));
  const nameWidth = Math.max(0, ...rows.map(([, n]) => n.length));
  return rows.map(
    ([kind, name, rest]) => `  ${kind.padEnd(kindWidth)} ${name.padEnd(nameWidth)}  ${rest}`,
  );
}

/** `calls upstream github as client-credentials`, `runs on the default database`. */
export function grantRoute(t: ToolDescriptor, spec: CompiledSpec): string {
  return kindOf(t.backend).route(t.backend, spec);
}
