/**
 * A 2025-era upstream MCP server, written with the SDK v1 (stateful Streamable HTTP, a
 * session per `initialize`), that authorizes every request as the MCP authorization spec
 * asks of an HTTP server: no bearer token, or one the OAuth provider did not issue for
 * its audience, is 401 — `initialize` included. And it binds each session to the person
 * who opened it, as the spec's security advice says: a request on a session with another
 * person's token is 403. It records who opened each session, who called on it, and which
 * sessions were ended, so a test can check what a gateway did with its callers' tokens.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  isInitializeRequest,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { createRemoteJWKSet, jwtVerify } from 'jose';

export interface SessionBindingServer {
  readonly url: string;
  /** The person each `initialize` was made as, in order. */
  readonly opened: string[];
  /** Each tools/call: the session's person and the person of the token it carried. */
  readonly calls: { readonly session: string; readonly caller: string }[];
  /** Requests refused: 401 (no or bad token) and 403 (another person's session). */
  readonly refused: { readonly status: number; readonly method: string }[];
  /** Sessions ended by DELETE. */
  readonly ended: string[];
  close(): Promise<void>;
}

export async function startSessionBindingServer(o: {
  readonly issuer: string;
  readonly audience: string;
}): Promise<SessionBindingServer> {
  const jwks = createRemoteJWKSet(new URL(`${o.issuer}/jwks`));
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; person: string }>();
  const opened: string[] = [];
  const calls: { session: string; caller: string }[] = [];
  const refused: { status: number; method: string }[] = [];
  const ended: string[] = [];

  const personOf = async (req: IncomingMessage): Promise<string | undefined> => {
    const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!token) return undefined;
    try {
      const { payload } = await jwtVerify(token, jwks, { issuer: o.issuer, audience: o.audience });
      return payload.sub;
    } catch {
      return undefined;
    }
  };

  const refuse = (res: ServerResponse, status: number, method: string, message: string): void => {
    refused.push({ status, method });
    res.writeHead(status, {
      'content-type': 'application/json',
      ...(status === 401 && { 'www-authenticate': 'Bearer' }),
    });
    // A 401 is OAuth's (RFC 6750), as the SDK's bearer middleware answers; the rest JSON-RPC.
    res.end(
      JSON.stringify(
        status === 401
          ? { error: 'invalid_token', error_description: message }
          : { jsonrpc: '2.0', id: null, error: { code: -32001, message } },
      ),
    );
  };

  function serverFor(person: string): Server {
    const server = new Server(
      { name: 'session-binding-upstream', version: '1.0.0' },
      { capabilities: { tools: {} } },
    );
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [
        {
          name: 'whoami',
          description: 'Says whose session this is.',
          inputSchema: { type: 'object', properties: { note: { type: 'string' } } },
        },
      ],
    }));
    server.setRequestHandler(CallToolRequestSchema, (request) => ({
      content: [
        {
          type: 'text',
          text: JSON.stringify({ session: person, note: request.params.arguments?.note }),
        },
      ],
    }));
    return server;
  }

  const http = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c));
    req.on('end', () => {
      void (async () => {
        const body = raw === '' ? undefined : (JSON.parse(raw) as { method?: string });
        const method = req.method === 'DELETE' ? 'DELETE' : (body?.method ?? '');
        const person = await personOf(req);
        if (person === undefined) return refuse(res, 401, method, 'a bearer token is required');
        const id = req.headers['mcp-session-id'];
        if (typeof id === 'string') {
          const s = sessions.get(id);
          if (!s) return refuse(res, 404, method, 'no such session');
          if (s.person !== person)
            return refuse(res, 403, method, 'this session belongs to someone else');
          if (method === 'tools/call') calls.push({ session: s.person, caller: person });
          if (method === 'DELETE') {
            ended.push(s.person);
            sessions.delete(id);
          }
          return s.transport.handleRequest(req, res, body);
        }
        if (!isInitializeRequest(body))
          return refuse(res, 400, method, 'Bad Request: no valid session ID provided');
        const transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: randomUUID,
          enableJsonResponse: true,
          onsessioninitialized: (sid) => void sessions.set(sid, { transport, person }),
        });
        opened.push(person);
        await serverFor(person).connect(transport);
        await transport.handleRequest(req, res, body);
      })().catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500);
        res.end(String(err));
      });
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    opened,
    calls,
    refused,
    ended,
    async close() {
      for (const s of sessions.values()) await s.transport.close().catch(() => {});
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
