/**
 * An upstream MCP server over a URL as one more upstream (spec-language.md, "Many
 * upstreams and databases in one spec"): behind the egress proxy its `proxy` names or
 * the environment's HTTP_PROXY, and called with a token kind's credential on each
 * request of the call it was obtained for. The server is the SDK v2 recording server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileSpecText } from '../../src/compiler/load-spec.js';
import type { BackendKind, GrantOf, KindBackend } from '../../src/engine/backends/kind.js';
import { createMcpKindWith } from '../../src/engine/backends/mcp/mcp-backend.js';
import type {
  IdentityOutcome,
  UpstreamIdentity,
} from '../../src/engine/backends/upstream/upstream-identity.js';
import type { CallContext } from '../../src/engine/call-context.js';
import { engineError } from '../../src/engine/error-catalogue.js';
import { makeRedactor } from '../../src/engine/redact.js';
import { startEgressProxy, type EgressProxy } from '../helpers/egress-proxy.js';
import { postJson, startGateway } from '../helpers/gateway.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recording-mcp-server.js';

const TOKEN = 'mcp-static-token-5d8e2a7c';

function spec(url: string, settings: string): string {
  return `wrap "mcp-url" version="1"
mcp-server "tracker" url="${url}" {
${settings}
}
can search issues {
    describe "Search."
    tool "tracker" "search_issues"
    args {
        query "string"
    }
}
`;
}

describe('an MCP server over a URL behind an egress proxy', () => {
  let proxy: EgressProxy;
  let server: RecordingServer;

  beforeAll(async () => {
    proxy = await startEgressProxy();
    server = await startRecordingServer();
  });
  afterAll(async () => {
    await proxy?.close();
    await server?.close();
  });

  it('reaches the server through the proxy its `proxy` names, with its credential', async () => {
    const gw = await startGateway(
      spec(server.url, `    proxy "${proxy.url}"\n    auth bearer env="TRACKER_TOKEN"`),
      { env: { TRACKER_TOKEN: TOKEN } },
    );
    try {
      const before = proxy.targets.length;
      const res = await postJson(`${gw.url}/api/search_issues`, { query: 'bug' });
      expect(res.status).toBe(200);
      expect(proxy.targets.slice(before)).toContain(new URL(server.url).host);
      expect(server.calls().at(-1)!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    } finally {
      await gw.close();
    }
  });

  it('reaches it through HTTP_PROXY from the environment, and directly with NO_PROXY', async () => {
    const host = new URL(server.url).host;
    const via = await startGateway(spec(server.url, '    timeout "5s"'), {
      env: { HTTP_PROXY: proxy.url },
    });
    try {
      const before = proxy.targets.length;
      expect((await postJson(`${via.url}/api/search_issues`, { query: 'a' })).status).toBe(200);
      expect(proxy.targets.slice(before)).toContain(host);
    } finally {
      await via.close();
    }
    const around = await startGateway(spec(server.url, '    timeout "5s"'), {
      env: { HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' },
    });
    try {
      const before = proxy.targets.length;
      expect((await postJson(`${around.url}/api/search_issues`, { query: 'b' })).status).toBe(200);
      expect(proxy.targets.slice(before)).toEqual([]);
    } finally {
      await around.close();
    }
  });
});

/** A token per caller, `mcp-tok-<caller>-pad`; no caller, no token. */
const perCaller: UpstreamIdentity = {
  kind: 'exchange',
  forCall(ctx: CallContext): IdentityOutcome {
    const id = ctx.caller?.id;
    if (!id)
      return { ok: false, error: engineError('IDENTITY_UNAVAILABLE', 'nothing to exchange') };
    const t = `mcp-tok-${id}-pad`;
    return {
      ok: true,
      credential: {
        headers: [['authorization', `Bearer ${t}`]],
        query: [],
        redact: makeRedactor([t]),
      },
    };
  },
  secrets: () => [],
  sentValues: () => [],
};

describe('an MCP server called with a token obtained for each caller', () => {
  let server: RecordingServer;
  let kind: BackendKind<'mcp'>;
  let search: KindBackend;

  beforeAll(async () => {
    server = await startRecordingServer();
    const text = `wrap "mcp-tokens" version="1"
mcp-server "tracker" url="${server.url}" {
    auth client-credentials token-url="http://127.0.0.1:1/token" client-id-env="ID" client-secret-env="SECRET"
}
can search issues {
    describe "Search."
    tool "tracker" "search_issues"
    args {
        query "string"
    }
}
`;
    const compiled = compileSpecText(text, 'mcp-tokens.mcp.kdl').compiled!;
    const grants = compiled.tools as GrantOf<'mcp'>[];
    kind = await createMcpKindWith(
      { env: { ID: 'id', SECRET: 'secret' }, grants, spec: compiled },
      () => Promise.resolve(perCaller),
    );
    search = kind.prepare(grants[0]!, makeRedactor([]));
  });
  afterAll(async () => {
    await kind?.close();
    await server?.close();
  });

  it("puts each concurrent caller's token on that caller's tools/call only", async () => {
    const callers = ['ann', 'ben', 'cid'];
    const outs = await Promise.all(
      Array.from({ length: 15 }, (_, i) => {
        const c = callers[i % 3]!;
        return search.invoke(
          { value: { query: c }, texts: undefined },
          { caller: { id: c, scopes: 'all' } },
        );
      }),
    );
    expect(outs.every((o) => o.ok)).toBe(true);
    const calls = server.calls();
    expect(calls).toHaveLength(15);
    for (const call of calls) {
      const who = (call.arguments as { query: string }).query;
      expect(call.headers.authorization).toBe(`Bearer mcp-tok-${who}-pad`);
    }
    // The shared handshake carries no caller's token.
    for (const r of server.received.filter((x) => x.method !== 'tools/call'))
      expect(r.headers.authorization).toBeUndefined();
  });

  it('sends nothing for a caller the identity refuses', async () => {
    const before = server.calls().length;
    const out = await search.invoke({ value: { query: 'x' }, texts: undefined }, {});
    expect(out).toMatchObject({ ok: false, error: { code: 'IDENTITY_UNAVAILABLE' } });
    expect(server.calls()).toHaveLength(before);
  });
});
