/**
 * `mcp-beaver read`, `mcp-beaver prompt` and the resources and prompts of `tools <url>`
 * (issue 16), run as a user would (the real CLI in a child process) against a real
 * gateway serving a spec with a file document, a binary file, a grant-backed template,
 * a scoped resource and prompts, behind two api keys with different scopes, in each era.
 * The upstream's request count shows which reads reached it.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { TestGateway } from '../helpers/gateway.js';
import { useHelpdeskOnUpstream } from '../helpers/helpdesk-gateway.js';
import type { Upstream } from '../helpers/upstream.js';
import { CLI, runCli, type CliResult } from '../helpers/run-cli.js';

// Each test runs the CLI a few times, a child process each: on a busy machine that can
// outlast the default bound on a test.
vi.setConfig({ testTimeout: 90_000 });

const FULL_KEY = 'resource-cli-full-6d2a91';
const READER_KEY = 'resource-cli-reader-0f3b77';
const GUIDE = '# Helpdesk guide\n\nAnswer within a day.\n';
const PIXEL = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'pixel.png'));

let upstream: Upstream;
let gw: TestGateway;
let mcpUrl: string;

useHelpdeskOnUpstream(
  { name: 'helpdesk-cli', pixel: true, auditSummary: true },
  { guide: GUIDE, env: { FULL_KEYS: FULL_KEY, READER_KEYS: READER_KEY } },
  (s) => {
    ({ upstream, gw } = s);
    mcpUrl = `${gw.url}/mcp`;
  },
);

/** Runs the CLI with a bound on each request and both keys in the environment. */
function cli(args: string[], input?: string): Promise<CliResult> {
  return runCli([...args, '--timeout', '30s'], {
    env: { FULL_TOKEN: FULL_KEY, READER_TOKEN: READER_KEY },
    ...(input !== undefined && { input }),
  });
}

/** Failures are one line on stderr. */
function oneLine(r: CliResult): string {
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  return lines[0]!;
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

describe.each(['modern', 'legacy'] as const)('against mcp-beaver serve, --era %s', (era) => {
  const full = ['--bearer-env', 'FULL_TOKEN', '--era', era];
  const reader = ['--bearer-env', 'READER_TOKEN', '--era', era];

  it('tools lists the resources, templates and prompts the caller may use', async () => {
    const r = await cli(['tools', mcpUrl, ...full]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^get_ticket +Get ticket +read-only idempotent open-world\n\n/);
    expect(r.stdout).toContain(
      [
        'Resources:',
        '  docs://helpdesk/guide  Guide  text/markdown',
        '  docs://helpdesk/pixel  pixel  application/octet-stream',
        '  docs://helpdesk/audit  audit  text/plain',
        '',
        'Resource templates:',
        '  helpdesk://tickets/{id}  Ticket  application/json',
        '',
        'Prompts:',
        '  triage-ticket  Triage a ticket  id, tone?',
        '  audit-summary',
        '',
      ].join('\n'),
    );
    // A key without audit:read sees neither the audit notes nor the prompt embedding them.
    const limited = await cli(['tools', mcpUrl, ...reader]);
    expect(limited.code).toBe(0);
    expect(limited.stdout).toContain('docs://helpdesk/guide');
    expect(limited.stdout).not.toContain('audit');
  });

  it('tools --json adds the resources, templates and prompts arrays beside tools', async () => {
    const r = await cli(['tools', mcpUrl, '--json', ...reader]);
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout) as Record<string, { name: string }[]>;
    expect(list.tools!.map((t) => t.name)).toEqual(['get_ticket']);
    expect(list.resources!.map((t) => t.name)).toEqual(['guide', 'pixel']);
    expect(list.resourceTemplates).toEqual([
      {
        uriTemplate: 'helpdesk://tickets/{id}',
        name: 'tickets',
        title: 'Ticket',
        mimeType: 'application/json',
      },
    ]);
    expect(list.prompts!.map((p) => p.name)).toEqual(['triage-ticket']);
  });

  it('read prints a document as it is, without reaching the upstream', async () => {
    const before = upstream.requests.length;
    const r = await cli(['read', mcpUrl, 'docs://helpdesk/guide', ...reader]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(GUIDE);
    expect(upstream.requests.length).toBe(before);
  });

  it('read of a template URI calls its grant once and prints the envelope', async () => {
    const before = upstream.requests.length;
    const r = await cli(['read', mcpUrl, 'helpdesk://tickets/12', ...reader]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ result: { id: 12, subject: 'Printer on fire' } });
    expect(upstream.requests.length).toBe(before + 1);
    expect(upstream.requests.at(-1)!.path).toBe('/api/tickets/12');
    const j = await cli(['read', mcpUrl, 'helpdesk://tickets/13', '--json', ...reader]);
    expect(j.code).toBe(0);
    expect(JSON.parse(j.stdout)).toMatchObject({
      contents: [{ uri: 'helpdesk://tickets/13', mimeType: 'application/json' }],
    });
  });

  it('read exits 1 with the catalogue code on one line when a variable is refused', async () => {
    const before = upstream.requests.length;
    const r = await cli(['read', mcpUrl, 'helpdesk://tickets/4x', ...reader]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(oneLine(r)).toMatch(
      new RegExp(`^mcp-beaver: ${escape(mcpUrl)}: JSON-RPC -32602 INVALID_ARGUMENTS: .*\\bid\\b`),
    );
    const zero = await cli(['read', mcpUrl, 'helpdesk://tickets/0', ...reader]);
    expect(zero.code).toBe(1);
    expect(oneLine(zero)).toContain('JSON-RPC -32602 INVALID_ARGUMENTS');
    expect(upstream.requests.length).toBe(before);
  });

  it('read exits 1 naming the URI when no resource serves it', async () => {
    const r = await cli(['read', mcpUrl, 'docs://helpdesk/missing', ...reader]);
    expect(r.code).toBe(1);
    // The SDK knows a not-found in either era (a legacy -32002 with data.uri, a 2026-07-28
    // -32602 whose data is exactly {uri}) and raises its own -32602 not-found error.
    expect(oneLine(r)).toBe(
      `mcp-beaver: ${mcpUrl}: JSON-RPC -32602: Resource not found: no resource serves docs://helpdesk/missing`,
    );
  });

  it('read of a resource the key may not read exits 2 with HTTP 403', async () => {
    const r = await cli(['read', mcpUrl, 'docs://helpdesk/audit', ...reader]);
    expect(r.code).toBe(2);
    expect(oneLine(r)).toBe(
      `mcp-beaver: ${mcpUrl}: HTTP 403 Forbidden: Insufficient scope: required "audit:read"`,
    );
    const allowed = await cli(['read', mcpUrl, 'docs://helpdesk/audit', ...full]);
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toBe('Audited daily.\n');
  });

  it('prompt takes name=value arguments and prints each message, the resource named', async () => {
    const before = upstream.requests.length;
    const r = await cli(['prompt', mcpUrl, 'triage-ticket', 'id=3', 'tone=formal', ...reader]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const [first, second] = r.stdout.split('\n\n');
    expect(first).toBe('[user]\nTriage ticket 3 in a formal tone.');
    expect(second).toMatch(/^\[user\] resource helpdesk:\/\/tickets\/3 \(application\/json\)\n\{/);
    expect(upstream.requests.length).toBe(before + 1);
  });

  it('prompt takes one JSON object too, and --json prints the prompts/get result', async () => {
    const r = await cli(['prompt', mcpUrl, 'triage-ticket', '{"id":"5"}', '--json', ...reader]);
    expect(r.code).toBe(0);
    const got = JSON.parse(r.stdout) as { messages: { role: string; content: unknown }[] };
    expect(got.messages[0]).toEqual({
      role: 'user',
      content: { type: 'text', text: 'Triage ticket 5 in a friendly tone.' },
    });
    expect(got.messages[1]!.content).toMatchObject({
      type: 'resource',
      resource: { uri: 'helpdesk://tickets/5' },
    });
  });

  it('prompt exits 1 naming the argument when a required one is missing or refused', async () => {
    const before = upstream.requests.length;
    const missing = await cli(['prompt', mcpUrl, 'triage-ticket', 'tone=formal', ...reader]);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
    expect(oneLine(missing)).toMatch(/JSON-RPC -32602 INVALID_ARGUMENTS: .*id is required/);
    const refused = await cli(['prompt', mcpUrl, 'triage-ticket', 'id=1', 'tone=rude', ...reader]);
    expect(refused.code).toBe(1);
    expect(oneLine(refused)).toMatch(/INVALID_ARGUMENTS: .*tone must be one of/);
    const unknown = await cli(['prompt', mcpUrl, 'no-such-prompt', ...reader]);
    expect(unknown.code).toBe(1);
    expect(oneLine(unknown)).toMatch(/JSON-RPC -32602 UNKNOWN_PROMPT: .*no-such-prompt/);
    expect(upstream.requests.length).toBe(before);
  });
});

describe('--era auto', () => {
  it('reads and gets as the modern era does', async () => {
    const auth = ['--bearer-env', 'READER_TOKEN'];
    const read = await cli(['read', mcpUrl, 'docs://helpdesk/guide', ...auth]);
    expect(read.code).toBe(0);
    expect(read.stdout).toBe(GUIDE);
    const got = await cli(['prompt', mcpUrl, 'triage-ticket', 'id=8', ...auth]);
    expect(got.code).toBe(0);
    expect(got.stdout).toContain('Triage ticket 8 in a friendly tone.');
  });
});

describe('read of binary content', () => {
  /** The CLI's stdout as bytes (runCli decodes it as text). */
  function readBytes(args: string[]): Promise<{ code: number | null; stdout: Buffer }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [CLI, ...args, '--timeout', '30s'], {
        env: { ...process.env, READER_TOKEN: READER_KEY },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const chunks: Buffer[] = [];
      child.stdout.on('data', (b: Buffer) => chunks.push(b));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout: Buffer.concat(chunks) }));
    });
  }

  it('writes the bytes to a redirected stdout, and the base64 blob with --json', async () => {
    const auth = ['--bearer-env', 'READER_TOKEN'];
    const raw = await readBytes(['read', mcpUrl, 'docs://helpdesk/pixel', ...auth]);
    expect(raw.code).toBe(0);
    expect(raw.stdout.equals(PIXEL)).toBe(true);
    const j = await cli(['read', mcpUrl, 'docs://helpdesk/pixel', '--json', ...auth]);
    expect(JSON.parse(j.stdout)).toMatchObject({
      contents: [{ mimeType: 'application/octet-stream', blob: PIXEL.toString('base64') }],
    });
  });
});

describe('the command lines of read and prompt', () => {
  it('teach their usage with --help', async () => {
    const read = await runCli(['read', '--help']);
    expect(read.code).toBe(0);
    expect(read.stdout).toContain('Usage: mcp-beaver read <url> <uri>');
    expect(read.stdout).toContain('Exit codes: 0 success; 1 the server answered the read');
    const prompt = await runCli(['prompt', '--help']);
    expect(prompt.code).toBe(0);
    expect(prompt.stdout).toContain('Usage: mcp-beaver prompt <url> <name> [name=value...');
    const main = await runCli(['--help']);
    expect(main.stdout).toContain('read <url> <uri>');
    expect(main.stdout).toContain('prompt <url> <name> [args]');
  });

  it('refuse a missing URI, a non-URL target and a word that is not name=value, exit 2', async () => {
    const noUri = await runCli(['read', mcpUrl]);
    expect(noUri.code).toBe(2);
    expect(noUri.stderr).toMatch(/^mcp-beaver read: name a server URL and one resource URI\n/);
    const notUrl = await runCli(['read', 'specs/demo.mcp.kdl', 'docs://x']);
    expect(notUrl.code).toBe(2);
    expect(notUrl.stderr).toContain('"specs/demo.mcp.kdl" is not an http(s) URL');
    const word = await runCli(['prompt', mcpUrl, 'triage-ticket', 'id']);
    expect(word.code).toBe(2);
    expect(oneLine(word)).toBe('mcp-beaver prompt: "id" is not name=value (or one JSON object)');
    const twice = await runCli(['prompt', mcpUrl, 'triage-ticket', 'id=1', 'id=2']);
    expect(oneLine(twice)).toBe('mcp-beaver prompt: argument id is given twice');
  });

  it('cannot reach a closed port: exit 2, one line', async () => {
    const r = await cli(['read', 'http://127.0.0.1:9/mcp', 'docs://x']);
    expect(r.code).toBe(2);
    expect(oneLine(r)).toMatch(/^mcp-beaver: http:\/\/127\.0\.0\.1:9\/mcp: cannot connect/);
  });
});
