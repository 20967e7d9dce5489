/**
 * A client that introduces itself by a client ID metadata document (spec-language.md,
 * "Sign-in for MCP clients"): the official SDK v1 OAuth client, given a `clientMetadataUrl`,
 * sees `client_id_metadata_document_supported` in the gateway's metadata, registers
 * nothing, and signs in with its URL as `client_id`; the gateway fetches the document (over
 * https, from a host of the test's trusted only by this gateway) and holds the client to its
 * redirect URIs. The same gateway refuses a document whose `client_id` is another URL.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { Browser } from '../helpers/oidc-provider.js';
import type { TestGateway } from '../helpers/gateway.js';
import { localhostCertificate } from '../helpers/localhost-certificate.js';
import { skipBecause } from '../helpers/skip-reason.js';
import {
  approveInBrowser,
  CLIENT_REDIRECT,
  MemoryClientProvider,
  startSignInGateway,
  startSignInWorld,
  type SignInWorld,
} from '../helpers/sign-in-gateway.js';

const tls = localhostCertificate();
let world: SignInWorld;
let gw: TestGateway;
let host: Server;
let hostUrl = '';
const fetched: string[] = [];

beforeAll(async () => {
  if (!tls) return;
  host = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    fetched.push(req.url ?? '');
    const self = `${hostUrl}${req.url}`;
    const doc =
      req.url === '/clients/desk.json'
        ? { client_id: self, client_name: 'Desk Agent', redirect_uris: [CLIENT_REDIRECT] }
        : { client_id: `${hostUrl}/clients/someone-else.json`, redirect_uris: [CLIENT_REDIRECT] };
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300' });
    res.end(JSON.stringify(doc));
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  hostUrl = `https://127.0.0.1:${(host.address() as AddressInfo).port}`;
  world = await startSignInWorld();
  gw = await startSignInGateway(world, {
    clientMetadataFetch: { allowLoopbackHttp: true, trustedCertificates: tls.cert },
  });
});

afterAll(async () => {
  await gw?.close();
  await world?.close();
  await new Promise<void>((resolve) => (host ? host.close(() => resolve()) : resolve()));
});

describe.skipIf(skipBecause(tls === undefined, 'the openssl CLI is needed for the document host'))(
  'a client known by its metadata document',
  () => {
    it('signs in with its document URL as client_id, named on the consent page, and calls with the token', async () => {
      const clientId = `${hostUrl}/clients/desk.json`;
      const client = new MemoryClientProvider('ignored: the document names it', clientId);
      expect(await auth(client, { serverUrl: `${gw.url}/mcp` })).toBe('REDIRECT');
      expect(client.authorizationUrl!.searchParams.get('client_id')).toBe(clientId);
      const page = await new Browser().go(client.authorizationUrl!.href);
      expect(page.body).toContain('Desk Agent');
      const back = await approveInBrowser(
        new Browser(),
        world.provider,
        client.authorizationUrl!.href,
      );
      const code = back.searchParams.get('code')!;
      expect(await auth(client, { serverUrl: `${gw.url}/mcp`, authorizationCode: code })).toBe(
        'AUTHORIZED',
      );
      const listed = await fetch(`${gw.url}/api`, {
        headers: { authorization: `Bearer ${client.saved!.access_token}` },
      });
      expect(listed.status).toBe(200);
      // Cached per its max-age: the three sign-in steps fetched the document once.
      expect(fetched.filter((u) => u === '/clients/desk.json')).toHaveLength(1);
    });

    it('refuses a document naming another client_id, as a page and never a redirect', async () => {
      const url = new URL(`${gw.url}/authorize`);
      url.search = new URLSearchParams({
        client_id: `${hostUrl}/clients/impostor.json`,
        redirect_uri: CLIENT_REDIRECT,
        response_type: 'code',
        code_challenge: 'x'.repeat(43),
        code_challenge_method: 'S256',
        resource: `${gw.url}/mcp`,
        state: 's',
      }).toString();
      const res = await fetch(url, { redirect: 'manual' });
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(await res.text()).toContain('client_id');
    });
  },
);
