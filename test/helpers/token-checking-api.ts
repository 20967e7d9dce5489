/**
 * An upstream API that checks the bearer token of every request against its OAuth
 * provider's JWKS (signature, issuer, its own audience) and answers who called it: the
 * token's subject, scope and client. It records every Authorization header it was sent,
 * so a test asserts what reached it (and what never did). `refuseNext` makes it answer
 * 401 to the next requests whatever they carry (a token revoked early); `/echo` answers
 * the token back in three spellings (as written, JSON-escaped, base64).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, jwtVerify } from 'jose';

export interface TokenCheckingApi {
  readonly url: string;
  readonly audience: string;
  /** Every Authorization header received, in order ('' for none). */
  readonly authorizations: string[];
  refuseNext(n: number): void;
  close(): Promise<void>;
}

export interface WhoCalled {
  readonly sub: string;
  readonly scope: string;
  readonly client_id: string | null;
  readonly aud: string;
}

export async function startTokenCheckingApi(
  issuer: string,
  audience: string,
): Promise<TokenCheckingApi> {
  const jwks = createRemoteJWKSet(new URL(`${issuer}/jwks`));
  const authorizations: string[] = [];
  let refuse = 0;
  const server: Server = createServer((req, res) => {
    const authorization = req.headers.authorization ?? '';
    authorizations.push(authorization);
    const answer = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (refuse > 0) {
      refuse--;
      return answer(401, { error: 'token revoked' });
    }
    const token = /^Bearer (\S+)$/.exec(authorization)?.[1];
    if (!token) return answer(401, { error: 'no bearer token' });
    void jwtVerify(token, jwks, { issuer, audience }).then(
      ({ payload }) => {
        if ((req.url ?? '').startsWith('/echo'))
          return answer(200, {
            raw: `token=${token}`,
            escaped: JSON.stringify({ token }),
            base64: Buffer.from(`Bearer ${token}`).toString('base64'),
          });
        const who: WhoCalled = {
          sub: String(payload.sub),
          scope: typeof payload.scope === 'string' ? payload.scope : '',
          client_id: typeof payload.client_id === 'string' ? payload.client_id : null,
          aud: String(payload.aud),
        };
        answer(200, who);
      },
      () => answer(401, { error: 'token does not verify for this API' }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    audience,
    authorizations,
    refuseNext(n) {
      refuse = n;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
