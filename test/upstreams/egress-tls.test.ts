/**
 * The way out to an upstream (spec-language.md, "Many upstreams and databases in one
 * spec"): an egress CONNECT proxy the test starts, in front of https upstreams signed by
 * a private CA; `tls { ca-file }` trusting that CA besides the system's roots; a client
 * certificate from `cert-file` and `key-file`; and HTTPS_PROXY / NO_PROXY from the
 * gateway's environment when the upstream names no proxy.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startGateway } from '../helpers/gateway.js';
import { startEgressProxy, type EgressProxy } from '../helpers/egress-proxy.js';
import { localhostCertificate } from '../helpers/localhost-certificate.js';
import { skipBecause } from '../helpers/skip-reason.js';
import { startUpstream, type Upstream } from '../helpers/upstream.js';

const server = localhostCertificate();
const client = localhostCertificate();
const skip = skipBecause(
  !server || !client,
  'the openssl CLI is needed to make the test certificates',
);

interface HttpsUpstream {
  readonly url: string;
  /** The common name of each client certificate presented, '' for none. */
  readonly clients: string[];
  close(): Promise<void>;
}

async function startHttpsUpstream(opts: { clientCa?: string } = {}): Promise<HttpsUpstream> {
  const clients: string[] = [];
  const https: Server = createServer(
    {
      key: server!.key,
      cert: server!.cert,
      ...(opts.clientCa && { requestCert: true, rejectUnauthorized: true, ca: [opts.clientCa] }),
    },
    (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      clients.push(typeof peer?.subject?.CN === 'string' ? peer.subject.CN : '');
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ok: true, path: req.url }));
    },
  );
  await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
  const { port } = https.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    clients,
    close: () =>
      new Promise((resolve) => {
        https.closeAllConnections();
        https.close(() => resolve());
      }),
  };
}

/** One grant on one named upstream with the given body of `upstream { … }`. */
function spec(baseUrl: string, settings: string): string {
  return `wrap "egress" version="1"
upstream "internal" base-url="${baseUrl}" {
${settings}
}
can get status {
    describe "status"
    upstream "internal"
    path "/status"
}
`;
}

describe.skipIf(skip)('egress proxy and TLS per upstream', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpb-egress-'));
  const file = join(dir, 'spec.mcp.kdl');
  let proxy: EgressProxy;
  let plain: HttpsUpstream;
  let mutual: HttpsUpstream;

  beforeAll(async () => {
    writeFileSync(join(dir, 'ca.pem'), server!.cert);
    writeFileSync(join(dir, 'client.pem'), client!.cert);
    writeFileSync(join(dir, 'client.key'), client!.key);
    proxy = await startEgressProxy();
    plain = await startHttpsUpstream();
    mutual = await startHttpsUpstream({ clientCa: client!.cert });
  });
  afterAll(async () => {
    await proxy?.close();
    await plain?.close();
    await mutual?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('goes through the named proxy by CONNECT and verifies the upstream with its ca-file', async () => {
    const gw = await startGateway(
      spec(plain.url, `    proxy "${proxy.url}"\n    tls { ca-file "ca.pem"; }`),
      { file },
    );
    try {
      const before = proxy.targets.length;
      const res = await postJson(`${gw.url}/api/get_status`, {});
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ result: { ok: true, path: '/status' } });
      expect(proxy.targets.slice(before)).toEqual([new URL(plain.url).host]);
    } finally {
      await gw.close();
    }
  });

  it('refuses an upstream signed by a private CA it was not given, saying so', async () => {
    const gw = await startGateway(spec(plain.url, `    proxy "${proxy.url}"`), { file });
    try {
      const res = await postJson(`${gw.url}/api/get_status`, {});
      expect(res.status).toBe(502);
      const body = res.json as { error: { code: string; message: string } };
      expect(body.error.code).toBe('UPSTREAM_UNREACHABLE');
      expect(body.error.message).toMatch(/TLS certificate .*ca-file/);
    } finally {
      await gw.close();
    }
  });

  it('presents the client certificate from cert-file and key-file to an upstream that requires one', async () => {
    const gw = await startGateway(
      spec(
        mutual.url,
        '    tls {\n        ca-file "ca.pem"\n        cert-file "client.pem"\n        key-file "client.key"\n    }',
      ),
      { file },
    );
    try {
      const res = await postJson(`${gw.url}/api/get_status`, {});
      expect(res.status).toBe(200);
      expect(mutual.clients.at(-1)).toBe('localhost');
    } finally {
      await gw.close();
    }
  });

  it('is refused by an upstream that requires a client certificate when it has none', async () => {
    const gw = await startGateway(spec(mutual.url, '    tls { ca-file "ca.pem"; }'), { file });
    try {
      const res = await postJson(`${gw.url}/api/get_status`, {});
      expect(res.status).toBe(502);
      expect((res.json as { error: { code: string } }).error.code).toBe('UPSTREAM_UNREACHABLE');
    } finally {
      await gw.close();
    }
  });

  it('honours HTTPS_PROXY from the gateway environment when the upstream names no proxy', async () => {
    const gw = await startGateway(spec(plain.url, '    tls { ca-file "ca.pem"; }'), {
      file,
      env: { HTTPS_PROXY: proxy.url },
    });
    try {
      const before = proxy.targets.length;
      const res = await postJson(`${gw.url}/api/get_status`, {});
      expect(res.status).toBe(200);
      expect(proxy.targets.slice(before)).toEqual([new URL(plain.url).host]);
    } finally {
      await gw.close();
    }
  });

  it('goes around the proxy for a host NO_PROXY lists', async () => {
    const gw = await startGateway(spec(plain.url, '    tls { ca-file "ca.pem"; }'), {
      file,
      env: { HTTPS_PROXY: proxy.url, NO_PROXY: 'example.com, 127.0.0.1' },
    });
    try {
      const before = proxy.targets.length;
      const res = await postJson(`${gw.url}/api/get_status`, {});
      expect(res.status).toBe(200);
      expect(proxy.targets.slice(before)).toEqual([]);
    } finally {
      await gw.close();
    }
  });

  it('tunnels a plain http upstream through HTTP_PROXY too', async () => {
    let up: Upstream | undefined;
    try {
      up = await startUpstream();
      const gw = await startGateway(spec(up.url, '    timeout "5s"'), {
        file,
        env: { HTTP_PROXY: proxy.url },
      });
      try {
        const before = proxy.targets.length;
        const res = await postJson(`${gw.url}/api/get_status`, {});
        expect(res.status).toBe(200);
        expect(proxy.targets.slice(before)).toEqual([new URL(up.url).host]);
      } finally {
        await gw.close();
      }
    } finally {
      await up?.close();
    }
  });

  it('sends the password in HTTP_PROXY to the proxy only, and redacts it when echoed', async () => {
    const password = 'proxy-pass-7f3e9a1c';
    let up: Upstream | undefined;
    try {
      up = await startUpstream((_req, res) => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ said: `the proxy password is ${password}` }));
      });
      const withAuth = new URL(proxy.url);
      withAuth.username = 'gw';
      withAuth.password = password;
      const gw = await startGateway(spec(up.url, '    timeout "5s"'), {
        file,
        env: { HTTP_PROXY: withAuth.href },
      });
      try {
        const before = proxy.authorizations.length;
        const res = await postJson(`${gw.url}/api/get_status`, {});
        expect(res.status).toBe(200);
        expect(proxy.authorizations.slice(before)).toEqual([
          `Basic ${Buffer.from(`gw:${password}`).toString('base64')}`,
        ]);
        expect(up.requests.at(-1)!.headers['proxy-authorization']).toBeUndefined();
        expect(res.text).not.toContain(password);
        expect(res.text).toContain('[REDACTED]');
        expect(gw.logs()).not.toContain(password);
      } finally {
        await gw.close();
      }
    } finally {
      await up?.close();
    }
  });
});
