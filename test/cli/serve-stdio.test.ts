/**
 * `serve <spec> --stdio`, as a desktop host runs it: the real CLI as a child process,
 * the official SDK's stdio client in front, a real upstream behind on 127.0.0.1:0.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { CLI, runCli } from '../helpers/run-cli.js';
import {
  answerJson,
  startHeldUpstream,
  startUpstream,
  type Upstream,
} from '../helpers/upstream.js';
import {
  issueCommentGrant,
  issuesServerHeader,
  listIssuesGrant,
} from '../helpers/spec-fixtures.js';

const TOKEN = 'upstream-secret-token-42';
const READER_KEY = 'reader-key-0123456789';
/** Each case starts the CLI and an MCP session over its stdio: seconds on a busy machine. */
const SLOW = 90_000;

let upstream: Upstream;
let open: string;
let guarded: string;
let withToolset: string;

function writeSpec(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'beaver-stdio-')), 'spec.mcp.kdl');
  writeFileSync(file, text);
  return file;
}

beforeAll(async () => {
  upstream = await startUpstream(answerJson((req) => [{ number: 1, path: req.path }]));
  const grants = [listIssuesGrant(), issueCommentGrant()];
  open = writeSpec([issuesServerHeader(upstream.url), ...grants].join('\n'));
  withToolset = writeSpec(
    [
      issuesServerHeader(upstream.url),
      ...grants,
      'toolset "reading" {\n    tools "list_issues"\n}',
    ].join('\n'),
  );
  guarded = writeSpec(
    [
      issuesServerHeader(upstream.url),
      'access {\n    api-key env="READER_KEYS" scopes="issues:read"\n}',
      listIssuesGrant({ scopes: ['issues:read'] }),
      issueCommentGrant(['issues:write']),
    ].join('\n'),
  );
});

afterAll(() => upstream.close());

const env = { ISSUES_TOKEN: TOKEN, READER_KEYS: `other-key-987654321,${READER_KEY}` };

/** One JSON-RPC message per line, as a host writes them to the server's stdin. */
function lines(...messages: object[]): string {
  return messages.map((m) => `${JSON.stringify(m)}\n`).join('');
}

interface Answer {
  id: number;
  result?: { tools?: { name: string }[]; isError?: boolean };
  error?: { code: number; message: string; data?: { code?: string } };
}

/** The answers on stdout, one JSON-RPC message a line, in request-id order (they come as ready). */
function answersById(stdout: string): Answer[] {
  return stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Answer)
    .sort((a, b) => a.id - b.id);
}

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

describe('serve --stdio with the official SDK stdio client', () => {
  it.each([
    [{ pin: '2026-07-28' }, '2026-07-28'],
    ['auto', '2026-07-28'],
    ['legacy', '2025-11-25'],
  ] as const)(
    'mode %j settles on %s, lists the tools and calls one against the upstream',
    async (mode, version) => {
      const client = new Client(
        { name: 'desktop-host', version: '1.0.0' },
        { versionNegotiation: { mode } },
      );
      const errors: Error[] = [];
      // A log line on stdout would reach the client as a broken message: an error here.
      client.onerror = (e) => errors.push(e);
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [CLI, 'serve', open, '--stdio'],
        env: { ...(process.env as Record<string, string>), ...env },
        stderr: 'pipe',
      });
      let stderr = '';
      transport.stderr?.on('data', (b: Buffer) => (stderr += b.toString()));
      const before = upstream.requests.length;
      await client.connect(transport);
      try {
        expect(client.getNegotiatedProtocolVersion()).toBe(version);
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toEqual(['list_issues', 'create_issue_comment']);
        const result = (await client.callTool({
          name: 'list_issues',
          arguments: { owner: 'acme', repo: 'rocket' },
        })) as { isError?: boolean; structuredContent?: { result: unknown } };
        expect(result.isError).toBe(false);
        expect(result.structuredContent?.result).toEqual([
          { number: 1, path: '/api/repos/acme/rocket/issues' },
        ]);
        expect(upstream.requests.length).toBe(before + 1);
        expect(upstream.requests.at(-1)!.headers.authorization).toBe(`Bearer ${TOKEN}`);
      } finally {
        await client.close();
      }
      expect(errors).toEqual([]);
      // The logs went to stderr: the start line and the call's audit line.
      expect(stderr).toContain('mcp-beaver serving MCP on stdin/stdout');
      expect(stderr).toContain('list_issues');
    },
    SLOW,
  );
});

describe('serve --stdio and a confirm grant', () => {
  it(
    'lists its tool with _meta["mcp-beaver/consent"] and the description\'s closing sentence in both eras',
    async () => {
      const file = writeSpec(`wrap "stdio-consent" version="1.0.0"
base-url "${upstream.url}"
can delete thing {
    describe "Delete a thing."
    path "/things/{id}" { id "integer" min=1 }
    confirm "Delete thing {id}?" clients="eliciting"
}
`);
      const r = await runCli(['serve', file, '--stdio'], {
        input: lines(
          {
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: {
              protocolVersion: '2025-11-25',
              capabilities: {},
              clientInfo: { name: 'h', version: '1' },
            },
          },
          { jsonrpc: '2.0', method: 'notifications/initialized' },
          { jsonrpc: '2.0', id: 2, method: 'tools/list' },
          { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: MODERN_META } },
        ),
      });
      expect(r.code, r.stderr).toBe(0);
      const lists = answersById(r.stdout).filter((a) => a.id !== 1);
      expect(lists.map((a) => a.id)).toEqual([2, 3]);
      for (const a of lists)
        expect(a.result?.tools).toEqual([
          expect.objectContaining({
            name: 'delete_thing',
            description: 'Delete a thing. Asks its user to confirm before it runs.',
            _meta: expect.objectContaining({ 'mcp-beaver/consent': { confirm: true } }),
          }),
        ]);
    },
    SLOW,
  );
});

describe('serve --stdio framing', () => {
  it(
    'writes only JSON-RPC on stdout, one answer per request line, none for a notification',
    async () => {
      const r = await runCli(['serve', open, '--stdio'], {
        env,
        input:
          lines(
            {
              jsonrpc: '2.0',
              id: 1,
              method: 'initialize',
              params: {
                protocolVersion: '2025-11-25',
                capabilities: {},
                clientInfo: { name: 'h', version: '1' },
              },
            },
            { jsonrpc: '2.0', method: 'notifications/initialized' },
            { jsonrpc: '2.0', id: 2, method: 'tools/list' },
            // 2026-07-28 on stdio: the body declares the era, no header mirrors it.
            { jsonrpc: '2.0', id: 3, method: 'server/discover', params: { _meta: MODERN_META } },
            {
              jsonrpc: '2.0',
              id: 4,
              method: 'tools/call',
              params: {
                name: 'list_issues',
                arguments: { owner: 'acme', repo: 'x' },
                _meta: MODERN_META,
              },
            },
          ) + 'not json\n',
      });
      expect(r.code).toBe(0);
      const out = r.stdout.split('\n').filter((l) => l !== '');
      const messages = out.map(
        (l) => JSON.parse(l) as { jsonrpc: string; id: unknown; error?: { code: number } },
      );
      expect(messages.every((m) => m.jsonrpc === '2.0')).toBe(true);
      expect(messages.map((m) => m.id).sort()).toEqual([1, 2, 3, 4, null].sort());
      expect(messages.filter((m) => m.error).map((m) => [m.id, m.error!.code])).toEqual([
        [null, -32700],
      ]);
      const call = messages.find((m) => m.id === 4) as unknown as {
        result: { isError: boolean; resultType: string };
      };
      expect(call.result).toMatchObject({ isError: false, resultType: 'complete' });
      expect(r.stderr).toContain('mcp-beaver serving MCP on stdin/stdout');
    },
    SLOW,
  );

  it(
    'ends a running call the host cancels with notifications/cancelled, and answers it',
    async () => {
      const held = await startHeldUpstream();
      try {
        const file = writeSpec([issuesServerHeader(held.url), listIssuesGrant()].join('\n'));
        const r = await runCli(['serve', file, '--stdio'], {
          env,
          input: lines(
            {
              jsonrpc: '2.0',
              id: 7,
              method: 'tools/call',
              params: { name: 'list_issues', arguments: { owner: 'acme', repo: 'x' } },
            },
            { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } },
          ),
        });
        expect(r.code).toBe(0);
        const answer = JSON.parse(r.stdout) as {
          id: number;
          result: { isError: boolean; content: { text: string }[] };
        };
        expect(answer.id).toBe(7);
        expect(answer.result.isError).toBe(true);
        expect(answer.result.content[0]!.text).toContain('cancelled by the caller');
      } finally {
        held.release();
        await held.close();
      }
    },
    SLOW,
  );

  it(
    'refuses the flags of the HTTP listener beside --stdio',
    async () => {
      const r = await runCli(['serve', open, '--stdio', '--http', ':8080', '--no-watch']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--stdio has no HTTP listener: --http, --no-watch do not apply');
      expect(r.stdout).toBe('');
    },
    SLOW,
  );
});

describe('serve --stdio and access', () => {
  it(
    'stops start-up for a spec with access when no --key-env names the key to act as',
    async () => {
      const r = await runCli(['serve', guarded, '--stdio'], { env });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('--key-env NAME');
      expect(r.stdout).toBe('');
    },
    SLOW,
  );

  it(
    'stops start-up when the --key-env variable holds none of the spec keys',
    async () => {
      const r = await runCli(['serve', guarded, '--stdio', '--key-env', 'MY_KEY'], {
        env: { ...env, MY_KEY: 'a-key-nobody-issued' },
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        "the value of MY_KEY is none of the spec's API keys (READER_KEYS)",
      );
    },
    SLOW,
  );

  it(
    'gives the stdio caller the scopes of the key --key-env names, and no more',
    async () => {
      const r = await runCli(['serve', guarded, '--stdio', '--key-env', 'MY_KEY'], {
        env: { ...env, MY_KEY: READER_KEY },
        input: lines(
          { jsonrpc: '2.0', id: 1, method: 'tools/list' },
          {
            jsonrpc: '2.0',
            id: 2,
            method: 'tools/call',
            params: {
              name: 'create_issue_comment',
              arguments: { owner: 'acme', repo: 'x', number: 1, body: 'hi' },
            },
          },
        ),
      });
      expect(r.code).toBe(0);
      const [list, call] = answersById(r.stdout);
      expect(list!.result!.tools!.map((t) => t.name)).toEqual(['list_issues']);
      expect(call!.error).toBeDefined();
      expect(r.stderr).toContain('api-key:READER_KEYS#2');
    },
    SLOW,
  );
});

describe('serve --stdio --toolset', () => {
  it(
    "lists only the toolset's members and refuses a call to a tool outside it",
    async () => {
      const before = upstream.requests.length;
      const r = await runCli(['serve', withToolset, '--stdio', '--toolset', 'reading'], {
        env,
        input: lines(
          { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: MODERN_META } },
          {
            jsonrpc: '2.0',
            id: 2,
            method: 'tools/call',
            params: {
              _meta: MODERN_META,
              name: 'create_issue_comment',
              arguments: { owner: 'acme', repo: 'x', number: 1, body: 'hi' },
            },
          },
        ),
      });
      expect(r.code).toBe(0);
      const [list, call] = answersById(r.stdout);
      expect(list!.result!.tools!.map((t) => t.name)).toEqual(['list_issues']);
      // Outside the toolset the tool does not exist for this endpoint, as at /mcp/reading.
      expect(call!.error).toEqual({
        code: -32602,
        message: 'Unknown tool: "create_issue_comment"',
      });
      expect(upstream.requests.length).toBe(before);
    },
    SLOW,
  );

  it(
    'stops start-up for a toolset the spec does not declare, naming those it has',
    async () => {
      const r = await runCli(['serve', withToolset, '--stdio', '--toolset', 'writing'], { env });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('the spec has no toolset of that name (its toolsets: reading)');
      expect(r.stdout).toBe('');
    },
    SLOW,
  );

  it(
    'refuses --toolset without --stdio: over HTTP each toolset has its own URL',
    async () => {
      const r = await runCli(['serve', withToolset, '--toolset', 'reading'], { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--toolset goes with --stdio');
    },
    SLOW,
  );
});
