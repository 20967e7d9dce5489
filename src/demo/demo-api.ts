/**
 * The demo upstream: a small helpdesk REST API on 127.0.0.1 (tickets with
 * list/get/create/update/delete and pagination, and a form-encoded feedback
 * endpoint), guarded by a bearer token so the demo shows credential injection; and the
 * demo's accounts, where a person connects their own (demo-accounts.ts).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { demoAccounts } from './demo-accounts.js';
import { seedTickets, type Ticket } from './demo-data.js';

export interface DemoApi {
  readonly url: string;
  close(): Promise<void>;
}

const STATUSES = new Set(['open', 'pending', 'closed']);

export async function startDemoApi(opts: {
  token: string;
  /** The gateway's client at the demo's accounts (demo-accounts.ts); absent: none served. */
  accountsClient?: { readonly id: string; readonly secret: string };
  host?: string;
  port?: number;
}): Promise<DemoApi> {
  const tickets = new Map<number, Ticket>(seedTickets().map((t) => [t.id, t]));
  const accounts =
    opts.accountsClient &&
    demoAccounts({
      clientId: opts.accountsClient.id,
      clientSecret: opts.accountsClient.secret,
      tickets: () => tickets.values(),
    });
  let nextId = Math.max(...tickets.keys()) + 1;
  const feedback: Record<string, string>[] = [];

  const server: Server = createServer((req, res) => {
    void handle(req, res).catch(() => send(res, 500, { error: 'internal error' }));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // A person's own account (its pages and the endpoint its tokens open) before the
    // service token: those requests carry no service token.
    if (accounts) {
      const at = new URL(req.url ?? '/', 'http://demo');
      if (at.pathname.startsWith('/oauth/') || at.pathname.startsWith('/api/me/')) {
        accounts.handle(req, res, at, await readBody(req));
        return;
      }
    }
    if (req.headers.authorization !== `Bearer ${opts.token}`)
      return send(res, 401, { error: 'missing or wrong bearer token' });
    const url = new URL(req.url ?? '/', 'http://demo');
    const parts = url.pathname.split('/').filter(Boolean);
    if (parts[0] !== 'api') return send(res, 404, { error: 'not found' });
    const body = await readBody(req);

    if (parts[1] === 'tickets' && parts.length === 2) {
      if (req.method === 'GET') {
        const status = url.searchParams.get('status');
        const tags = url.searchParams.getAll('tag');
        const page = Math.max(1, Number(url.searchParams.get('page') ?? 1));
        const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get('per_page') ?? 10)));
        const all = [...tickets.values()].filter(
          (t) => (!status || t.status === status) && tags.every((tag) => t.tags.includes(tag)),
        );
        const items = all.slice((page - 1) * perPage, page * perPage);
        return send(res, 200, {
          items,
          page,
          per_page: perPage,
          total: all.length,
          has_more: page * perPage < all.length,
        });
      }
      if (req.method === 'POST') {
        const input = parseJson(body);
        if (!input || typeof input.title !== 'string')
          return send(res, 400, { error: 'title is required' });
        const t: Ticket = {
          id: nextId++,
          title: input.title,
          body: typeof input.body === 'string' ? input.body : '',
          status: 'open',
          priority: typeof input.priority === 'string' ? input.priority : 'normal',
          tags: Array.isArray(input.tags)
            ? input.tags.filter((x): x is string => typeof x === 'string')
            : [],
          requester:
            typeof input.requester === 'object' && input.requester
              ? (input.requester as Ticket['requester'])
              : { name: 'unknown' },
          created_at: new Date().toISOString(),
        };
        tickets.set(t.id, t);
        return send(res, 201, t);
      }
    }
    if (parts[1] === 'tickets' && parts.length === 3) {
      const id = Number(parts[2]);
      const t = tickets.get(id);
      if (!t) return send(res, 404, { error: `no ticket ${parts[2]}` });
      if (req.method === 'GET') return send(res, 200, t);
      if (req.method === 'PATCH') {
        const input = parseJson(body) ?? {};
        if (typeof input.status === 'string') {
          if (!STATUSES.has(input.status))
            return send(res, 422, { error: `unknown status ${input.status}` });
          t.status = input.status as Ticket['status'];
        }
        if (typeof input.priority === 'string') t.priority = input.priority;
        if (typeof input.title === 'string') t.title = input.title;
        return send(res, 200, t);
      }
      if (req.method === 'DELETE') {
        tickets.delete(id);
        res.writeHead(204).end();
        return;
      }
    }
    if (parts[1] === 'feedback' && parts.length === 2 && req.method === 'POST') {
      if (!/application\/x-www-form-urlencoded/.test(req.headers['content-type'] ?? ''))
        return send(res, 415, { error: 'send a form' });
      const fields = Object.fromEntries(new URLSearchParams(body));
      feedback.push(fields);
      return send(res, 201, { received: fields, count: feedback.length });
    }
    return send(res, 404, { error: 'not found' });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      text += c;
      if (text.length > 1_000_000) req.destroy();
    });
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
