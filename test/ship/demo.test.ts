import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { BIN } from '../helpers/run-cli.js';

const exec = promisify(execFile);
let child: ChildProcess;
let base: string;
let output = '';
// The demo's two callers, chosen here so the test can call as each (the demo prints them).
const AGENT = 'demo-test-agent-key';
const APPROVER = 'demo-test-approver-key';
const asAgent = { authorization: `Bearer ${AGENT}` };
const asApprover = { authorization: `Bearer ${APPROVER}` };
const agentTransport = (url: URL) =>
  new StreamableHTTPClientTransport(url, { requestInit: { headers: asAgent } });

// `npm start` runs exactly this command (BIN, bin/mcp-beaver.js, not the test build: this
// test is about the entry point a checkout starts); the demo prints its URLs once it is ready.
beforeAll(async () => {
  child = spawn(process.execPath, [BIN, 'demo', '--http', '127.0.0.1:0'], {
    env: { ...process.env, DEMO_AGENT_KEY: AGENT, DEMO_APPROVER_KEY: APPROVER },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (b: Buffer) => (output += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (output += b.toString()));
  base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`demo did not start:\n${output}`)), 100_000);
    const poll = setInterval(() => {
      // The banner comes line by line: wait for its last one, not just the URL (a busy
      // machine delivers the rest later).
      const m = /MCP \(Streamable HTTP[^:]*:\s+(http:\/\/127\.0\.0\.1:\d+)\/mcp/.exec(output);
      if (m && output.includes('Press Ctrl-C to stop.')) {
        clearInterval(poll);
        clearTimeout(timer);
        resolve(m[1]!);
      }
    }, 100);
    child.once('exit', (code) => reject(new Error(`demo exited with ${code}:\n${output}`)));
  });
});

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    await exited;
  }
});

describe('the demo (npm start)', () => {
  it('prints the MCP URL, the catalog page, the keys, curl lines and a client configuration snippet', () => {
    expect(output).toContain(`${base}/mcp`);
    expect(output).toContain(`Catalog page (browse and try each tool):          ${base}/\n`);
    expect(output).toContain(`agent key:     ${AGENT}`);
    expect(output).toContain(`approver key:  ${APPROVER}`);
    expect(output).toContain(
      `curl -s ${base}/api/list_tickets -H 'authorization: Bearer ${AGENT}'`,
    );
    expect(output).toContain(`"Authorization": "Bearer ${AGENT}"`);
    expect(output).toContain(`in the browser: ${base}/approvals with the approver key`);
    expect(output).toContain(`npx mcp-beaver approvals ${base} --bearer-env DEMO_APPROVER_KEY`);
    expect(output).toContain('"mcpServers"');
  });

  it("calls list_my_tickets as the agent's own demo account once the agent connected it, never before", async () => {
    const call = () =>
      fetch(`${base}/api/list_my_tickets`, {
        method: 'POST',
        headers: { ...asAgent, 'content-type': 'application/json' },
        body: '{}',
      });
    const refused = await call();
    expect(refused.status).toBe(403);
    const error = (
      (await refused.json()) as {
        error: { code: string; details: { authorization: { provider: string; url: string } } };
      }
    ).error;
    expect(error.code).toBe('AUTHORIZATION_REQUIRED');
    expect(error.details.authorization.provider).toBe('demo-accounts');
    // The link, opened as the agent: to the demo's accounts, whose page picks a person.
    const toAccounts = await fetch(error.details.authorization.url, {
      headers: asAgent,
      redirect: 'manual',
    });
    expect(toAccounts.status).toBe(303);
    const authorize = new URL(toAccounts.headers.get('location')!);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(await (await fetch(authorize)).text()).toContain('Ada Lovelace');
    const form = new URLSearchParams(authorize.searchParams);
    form.set('person', 'Ada Lovelace');
    const back = await fetch(`${authorize.origin}${authorize.pathname}`, {
      method: 'POST',
      body: form,
      redirect: 'manual',
    });
    const callback = back.headers.get('location')!;
    expect(callback.startsWith(`${base}/connect/demo-accounts/callback?`)).toBe(true);
    expect((await fetch(callback)).status).toBe(200);

    const mine = await call();
    expect(mine.status).toBe(200);
    const body = (await mine.json()) as {
      result: { account: string; items: { requester: { name: string } }[] };
    };
    expect(body.result.account).toBe('Ada Lovelace');
    expect(body.result.items.length).toBeGreaterThan(0);
    expect(body.result.items.every((t) => t.requester.name === 'Ada Lovelace')).toBe(true);
    const listed = (await (
      await fetch(`${base}/api/connections`, { headers: asAgent })
    ).json()) as {
      connections: { provider: string; connected: boolean }[];
    };
    expect(listed.connections).toEqual([
      expect.objectContaining({ provider: 'demo-accounts', connected: true }),
    ]);
  });

  it('answers the curl line it prints with an envelope from the demo API', async () => {
    const line = /^ {4}(curl -s \S+\/api\/list_tickets .*)$/m.exec(output)?.[1];
    expect(line, 'the list_tickets curl line').toBeDefined();
    const { stdout } = await exec('bash', ['-c', line!]);
    const body = JSON.parse(stdout) as {
      coverage: { truncated: boolean };
      result: { items: { status: string }[]; total: number };
    };
    expect(body.coverage.truncated).toBe(false);
    expect(body.result.items.length).toBeGreaterThan(0);
    expect(body.result.items.every((t) => t.status === 'open')).toBe(true);
  });

  it('serves HTTP and SQL grants to the official MCP client in the 2026-07-28 era', async () => {
    const client = new Client(
      { name: 'demo-test', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(agentTransport(new URL(`${base}/mcp`)));
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual([
        'list_tickets',
        'get_ticket',
        'create_ticket',
        'update_ticket',
        'delete_ticket',
        'send_feedback',
        'list_my_tickets',
        'list_customers',
        'query_open_orders',
        'count_orders_by_status',
        'cancel_order',
        'read_order_note',
      ]);
      // The upstream MCP grant: the demo's own stdio server, its structured content.
      const note = (await client.callTool({
        name: 'read_order_note',
        arguments: { order_id: 7 },
      })) as { isError?: boolean; structuredContent: { result: { note: string | null } } };
      expect(note.isError).toBe(false);
      expect(note.structuredContent.result.note).toBe(
        'Refund of the shipping fee promised (late delivery).',
      );
      const created = (await client.callTool({
        name: 'create_ticket',
        arguments: {
          title: 'Printer on fire',
          requester: { name: 'Moss', email: 'moss@example.com' },
          tags: ['hardware'],
        },
      })) as {
        isError?: boolean;
        structuredContent: { result: { id: number; status: string; priority: string } };
      };
      expect(created.isError).toBe(false);
      expect(created.structuredContent.result).toMatchObject({
        status: 'open',
        priority: 'normal',
      });
      const got = (await client.callTool({
        name: 'get_ticket',
        arguments: { id: created.structuredContent.result.id },
      })) as {
        structuredContent: { result: { title: string } };
      };
      expect(got.structuredContent.result.title).toBe('Printer on fire');

      const customers = (await client.callTool({ name: 'list_customers', arguments: {} })) as {
        structuredContent: {
          coverage: { truncated: boolean; rows: number; items: unknown[] };
          result: unknown[];
        };
      };
      expect(customers.structuredContent.result).toHaveLength(3);
      expect(customers.structuredContent.coverage).toMatchObject({
        truncated: true,
        rows: 5,
        items: [{ path: '$', length: 5, kept: 3 }],
      });

      const denied = (await client.callTool({
        name: 'create_ticket',
        arguments: { title: 'x', priority: 'urgent', requester: { name: 'a' } },
      })) as {
        isError?: boolean;
        content: { text: string }[];
      };
      expect(denied.isError).toBe(true);
      expect(denied.content[0]!.text).toContain('DENIED_BY_RESTRICT');
    } finally {
      await client.close();
    }
  });

  it('shows the official client a document, a ticket template and a triage prompt that embeds both', async () => {
    const client = new Client(
      { name: 'demo-test', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(agentTransport(new URL(`${base}/mcp`)));
    try {
      const { resources } = await client.listResources();
      expect(resources.map((r) => r.uri)).toEqual([
        'docs://helpdesk/support-handbook',
        'docs://helpdesk/hours',
      ]);
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([
        'helpdesk://tickets/{id}',
        'helpdesk://orders/by-status/{status}',
      ]);
      const handbook = await client.readResource({ uri: 'docs://helpdesk/support-handbook' });
      expect(handbook.contents[0]).toMatchObject({ mimeType: 'text/markdown' });
      expect((handbook.contents[0] as { text: string }).text).toContain('## Priorities');
      const orders = await client.readResource({ uri: 'helpdesk://orders/by-status/open' });
      const envelope = JSON.parse((orders.contents[0] as { text: string }).text) as {
        result: { orders: number }[];
      };
      expect(envelope.result[0]!.orders).toBeGreaterThan(0);
      const { prompts } = await client.listPrompts();
      expect(prompts.map((p) => p.name)).toEqual(['triage-ticket']);
      const triage = await client.getPrompt({ name: 'triage-ticket', arguments: { id: '1' } });
      expect(triage.messages.map((m) => m.content.type)).toEqual(['text', 'resource', 'resource']);
      expect((triage.messages[0]!.content as { text: string }).text).toContain('friendly tone');
      const ticket = triage.messages[1]!.content as { resource: { uri: string; text: string } };
      expect(ticket.resource.uri).toBe('helpdesk://tickets/1');
      expect(JSON.parse(ticket.resource.text)).toMatchObject({ result: { id: 1 } });
      const statuses = await client.complete({
        ref: { type: 'ref/resource', uri: 'helpdesk://orders/by-status/{status}' },
        argument: { name: 'status', value: 'p' },
      });
      expect(statuses.completion.values).toEqual(['paid']);
    } finally {
      await client.close();
    }
  });

  it('sends form-encoded feedback with the fixed server-side value merged in', async () => {
    const res = await fetch(`${base}/api/send_feedback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...asAgent },
      body: JSON.stringify({ rating: 4, comment: 'quick & helpful' }),
    });
    const body = (await res.json()) as { result: { received: Record<string, string> } };
    expect(res.status).toBe(200);
    expect(body.result.received).toEqual({
      rating: '4',
      comment: 'quick & helpful',
      source: 'mcp-beaver-demo',
    });
  });

  it("answers the README's 2026-07-28 curl as written (the demo's address aside)", async () => {
    const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Protocol eras'));
    const block = /```sh\n(curl [^`]*?)```/.exec(section)?.[1];
    expect(block, 'a curl block in the Protocol eras section').toBeDefined();
    const script = block!.replaceAll('http://127.0.0.1:8080', base);
    const { stdout } = await exec('bash', ['-c', script], {
      env: { ...process.env, DEMO_AGENT_KEY: AGENT },
    });
    const reply = JSON.parse(stdout) as {
      result: {
        isError?: boolean;
        resultType?: string;
        structuredContent: { result: { items: { status: string }[] } };
      };
    };
    expect(reply.result.isError).toBe(false);
    expect(reply.result.resultType).toBe('complete');
    const items = reply.result.structuredContent.result.items;
    expect(items.length).toBeGreaterThan(0);
    expect(items.every((t) => t.status === 'open')).toBe(true);
  });

  it('refuses a call without a key, and serves a refusal to confirm deleting a ticket over REST', async () => {
    const anonymous = await fetch(`${base}/api/list_tickets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(anonymous.status).toBe(401);
    // REST cannot ask anyone: the confirmation is refused, and the ticket is still there.
    const del = await fetch(`${base}/api/delete_ticket`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...asAgent },
      body: '{"id":3}',
    });
    expect(del.status).toBe(428);
    expect(((await del.json()) as { error: { code: string } }).error.code).toBe(
      'CONFIRMATION_UNAVAILABLE',
    );
    const got = await fetch(`${base}/api/get_ticket`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...asAgent },
      body: '{"id":3}',
    });
    expect(got.status).toBe(200);
  });

  it('cancels an order once the approver approves it, as the printed curl lines say', async () => {
    const cancel = () =>
      fetch(`${base}/api/cancel_order`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...asAgent },
        body: '{"id":4}',
      });
    const asked = await cancel();
    expect(asked.status).toBe(202);
    const { error } = (await asked.json()) as {
      error: { code: string; details: { approval: { id: string; url: string } } };
    };
    expect(error.code).toBe('APPROVAL_REQUIRED');
    const { id, url } = error.details.approval;
    expect(url).toBe(`${base}/approvals/${id}`);
    const listed = (await (
      await fetch(`${base}/api/approvals`, { headers: asApprover })
    ).json()) as { approvals: { id: string; message: string }[] };
    expect(listed.approvals.find((a) => a.id === id)?.message).toBe(
      'Cancel order 4 and refund its total to the customer',
    );
    // The agent holds no orders:approve, so it cannot decide; the approver can.
    const own = await fetch(`${base}/api/approvals/${id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...asAgent },
      body: '{"decision":"approve"}',
    });
    expect(own.status).toBe(403);
    const decided = await fetch(`${base}/api/approvals/${id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...asApprover },
      body: '{"decision":"approve"}',
    });
    expect(decided.status).toBe(200);
    const ran = await cancel();
    expect(ran.status).toBe(200);
    expect(((await ran.json()) as { result: unknown[] }).result).toEqual([
      { id: 4, status: 'cancelled', total_cents: 25000 },
    ]);
  });
});
