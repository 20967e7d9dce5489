/**
 * Resources and prompts over REST (issue 16): GET /api lists them beside the tools, per
 * caller as the engine decides; POST /api/resources/read and POST /api/prompts/get read
 * and get them through the engine, with the catalogue's codes and statuses. The upstream's
 * request count shows which answers reached it.
 */
import { describe, expect, it } from 'vitest';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { useHelpdeskOnUpstream } from '../helpers/helpdesk-gateway.js';
import type { Upstream } from '../helpers/upstream.js';

const FULL_KEY = 'rest-resources-full-51c0de';
const READER_KEY = 'rest-resources-reader-9e4b12';
const GUIDE = '# Guide\n\nAnswer within a day.\n';

let upstream: Upstream;
let gw: TestGateway;
const full = { authorization: `Bearer ${FULL_KEY}` };
const reader = { authorization: `Bearer ${READER_KEY}` };

useHelpdeskOnUpstream(
  { name: 'helpdesk-rest', orders: true, idPattern: true, auditSummary: true },
  { guide: GUIDE, env: { FULL_KEYS: FULL_KEY, READER_KEYS: READER_KEY } },
  (s) => ({ upstream, gw } = s),
);

async function listing(headers: Record<string, string>): Promise<Record<string, unknown[]>> {
  const res = await fetch(`${gw.url}/api`, { headers });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown[]>;
}

describe('GET /api', () => {
  it('lists the resources, templates and prompts beside the tools, with what a form needs', async () => {
    const body = await listing(full);
    expect(Object.keys(body)).toEqual(['tools', 'resources', 'resourceTemplates', 'prompts']);
    expect(body.resources).toEqual([
      {
        uri: 'docs://helpdesk/guide',
        name: 'guide',
        title: 'Guide',
        description: 'How we answer.',
        mimeType: 'text/markdown',
        method: 'POST',
        path: '/api/resources/read',
      },
      expect.objectContaining({ uri: 'docs://helpdesk/audit', mimeType: 'text/plain' }),
    ]);
    expect(body.resourceTemplates).toEqual([
      expect.objectContaining({
        uriTemplate: 'helpdesk://tickets/{id}',
        variables: [{ name: 'id', type: 'integer' }],
      }),
      expect.objectContaining({
        uriTemplate: 'helpdesk://orders/{status}',
        variables: [{ name: 'status', type: 'string', enum: ['open', 'paid'] }],
      }),
    ]);
    expect(body.prompts).toEqual([
      {
        name: 'triage-ticket',
        title: 'Triage a ticket',
        arguments: [
          {
            name: 'id',
            description: 'Ticket id.',
            required: true,
            pattern: '^[0-9]+$',
            maxLength: 1000,
          },
          {
            name: 'tone',
            required: false,
            default: 'friendly',
            enum: ['friendly', 'formal'],
            maxLength: 1000,
          },
        ],
        method: 'POST',
        path: '/api/prompts/get',
      },
      expect.objectContaining({ name: 'audit-summary' }),
    ]);
  });

  it('leaves out what the caller may not read or get', async () => {
    const body = await listing(reader);
    expect((body.resources as { uri: string }[]).map((r) => r.uri)).toEqual([
      'docs://helpdesk/guide',
    ]);
    expect((body.prompts as { name: string }[]).map((p) => p.name)).toEqual(['triage-ticket']);
  });
});

describe('POST /api/resources/read', () => {
  it('answers a document with its contents, without reaching the upstream', async () => {
    const before = upstream.requests.length;
    const r = await postJson(
      `${gw.url}/api/resources/read`,
      { uri: 'docs://helpdesk/guide' },
      reader,
    );
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      contents: [{ uri: 'docs://helpdesk/guide', mimeType: 'text/markdown', text: GUIDE }],
    });
    expect(upstream.requests.length).toBe(before);
  });

  it('reads a template URI by calling its grant once, as the caller', async () => {
    const before = upstream.requests.length;
    const r = await postJson(
      `${gw.url}/api/resources/read`,
      { uri: 'helpdesk://tickets/12' },
      reader,
    );
    expect(r.status).toBe(200);
    const { contents } = r.json as { contents: { uri: string; mimeType: string; text: string }[] };
    expect(contents[0]).toMatchObject({
      uri: 'helpdesk://tickets/12',
      mimeType: 'application/json',
    });
    expect(JSON.parse(contents[0]!.text)).toMatchObject({ result: { id: 12 } });
    expect(upstream.requests.length).toBe(before + 1);
    expect(upstream.requests.at(-1)!.path).toBe('/api/tickets/12');
  });

  it.each([
    ['a variable that is not an integer', 'helpdesk://tickets/4x', 400, 'INVALID_ARGUMENTS'],
    ['a variable below the minimum', 'helpdesk://tickets/0', 400, 'INVALID_ARGUMENTS'],
    ['a value outside the enum', 'helpdesk://orders/lost', 400, 'INVALID_ARGUMENTS'],
    ['a URI nothing serves', 'docs://helpdesk/missing', 404, 'RESOURCE_NOT_FOUND'],
  ])('refuses %s with %i %s and calls nothing', async (_what, uri, status, code) => {
    const before = upstream.requests.length;
    const r = await postJson(`${gw.url}/api/resources/read`, { uri }, reader);
    expect(r.status).toBe(status);
    expect(r.json).toMatchObject({ error: { code } });
    expect(upstream.requests.length).toBe(before);
  });

  it('refuses a resource the caller may not read with 403 and the scope challenge', async () => {
    const r = await postJson(
      `${gw.url}/api/resources/read`,
      { uri: 'docs://helpdesk/audit' },
      reader,
    );
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({ error: { code: 'INSUFFICIENT_SCOPE' } });
    expect(r.headers.get('www-authenticate')).toContain('scope="audit:read"');
    const allowed = await postJson(
      `${gw.url}/api/resources/read`,
      { uri: 'docs://helpdesk/audit' },
      full,
    );
    expect(allowed.status).toBe(200);
  });

  it('refuses a body without a string uri, naming it; and a caller without a key', async () => {
    const r = await postJson(`${gw.url}/api/resources/read`, { url: 'docs://x' }, reader);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({
      error: { code: 'INVALID_ARGUMENTS', details: [{ field: '/uri' }] },
    });
    const anonymous = await postJson(`${gw.url}/api/resources/read`, {
      uri: 'docs://helpdesk/guide',
    });
    expect(anonymous.status).toBe(401);
  });

  it('refuses a member it does not read, naming it, and reads nothing', async () => {
    const before = upstream.requests.length;
    const r = await postJson(
      `${gw.url}/api/resources/read`,
      { uri: 'helpdesk://tickets/3', as: 'admin' },
      reader,
    );
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({
      error: {
        code: 'INVALID_ARGUMENTS',
        details: [{ field: '/as', message: 'is not a member of this request' }],
      },
    });
    expect(upstream.requests.length).toBe(before);
  });

  it('answers GET with 405 and Allow: POST', async () => {
    const res = await fetch(`${gw.url}/api/resources/read`, { headers: reader });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});

describe('POST /api/prompts/get', () => {
  it('fills the messages and embeds the resource read as the caller', async () => {
    const before = upstream.requests.length;
    const r = await postJson(
      `${gw.url}/api/prompts/get`,
      { name: 'triage-ticket', arguments: { id: '3', tone: 'formal' } },
      reader,
    );
    expect(r.status).toBe(200);
    const { messages } = r.json as { messages: { role: string; content: unknown }[] };
    expect(messages[0]).toEqual({
      role: 'user',
      content: { type: 'text', text: 'Triage ticket 3 in a formal tone.' },
    });
    expect(messages[1]!.content).toMatchObject({
      type: 'resource',
      resource: { uri: 'helpdesk://tickets/3', mimeType: 'application/json' },
    });
    expect(upstream.requests.length).toBe(before + 1);
  });

  it.each([
    ['a missing required argument', { name: 'triage-ticket', arguments: {} }, 400, 'id'],
    ['an argument off its pattern', { name: 'triage-ticket', arguments: { id: 'x' } }, 400, 'id'],
    [
      'arguments that are not an object',
      { name: 'triage-ticket', arguments: 'id=1' },
      400,
      'arguments',
    ],
    ['an unknown prompt', { name: 'nope' }, 404, 'nope'],
    ['a misspelled arguments member', { name: 'triage-ticket', args: { id: '3' } }, 400, '/args'],
  ])('refuses %s with %i naming it, and calls nothing', async (_what, body, status, named) => {
    const before = upstream.requests.length;
    const r = await postJson(`${gw.url}/api/prompts/get`, body, reader);
    expect(r.status).toBe(status);
    expect(r.text).toContain(named);
    expect(upstream.requests.length).toBe(before);
  });

  it('refuses a prompt embedding a resource the caller may not read with 403', async () => {
    const r = await postJson(`${gw.url}/api/prompts/get`, { name: 'audit-summary' }, reader);
    expect(r.status).toBe(403);
    expect(r.headers.get('www-authenticate')).toContain('audit:read');
  });
});

describe('a spec without resources or prompts', () => {
  it('keeps GET /api to the tools alone', async () => {
    const plain = await startGateway(`
wrap "plain" version="1.0.0"
base-url "${upstream.url}"
can list things {
    describe "Things."
    path "/things"
}
`);
    try {
      const res = await fetch(`${plain.url}/api`);
      expect(Object.keys((await res.json()) as object)).toEqual(['tools']);
    } finally {
      await plain.close();
    }
  });
});
