/**
 * Upstream MCP grants end to end against two real third-party stdio servers the gateway
 * starts: server-filesystem on a temporary folder and server-memory with its graph in
 * a temporary file (MEMORY_FILE_PATH, given by `env`). Callers hold API keys with
 * scopes. What the upstream did is read from the disk: the file written or not, the
 * entity stored or not.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, postToolCall, type Era } from '../helpers/call-tool.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import {
  childrenRunning,
  eventually,
  FILESYSTEM,
  gatewayEnv,
  kdl,
  MEMORY,
  NODE,
  rest,
} from '../helpers/stdio-children.js';

const READER = 'key-files-reader-3b8e';
const WRITER = 'key-files-writer-91c4';

let dir: string;
let root: string;
let memoryFile: string;
let gw: TestGateway;
let url: string;

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

function spec(): string {
  const page = `^${escapeRegex(root)}/[a-z0-9-]{1,40}\\.md$`;
  return `wrap "files-e2e" version="1.0.0"

access {
    api-key env="READER_KEYS" scopes="pages:read"
    api-key env="WRITER_KEYS" scopes="pages:read pages:write"
}

restrict {
    path pattern=${kdl(`^${escapeRegex(root)}/`)}
}

mcp-server "files" {
    command ${kdl(NODE)} ${kdl(FILESYSTEM)} ${kdl(root)}
}

mcp-server "memory" {
    command ${kdl(NODE)} ${kdl(MEMORY)}
    env "MEMORY_FILE_PATH" ${kdl(memoryFile)}
}

can read page {
    describe "Read one page of the handbook."
    tool "files" "read_text_file"
    args {
        path "string" required=#true max-length=300 pattern=${kdl(page)}
    }
    scope "pages:read"
}

can read page-start {
    describe "The first two lines of one page."
    tool "files" "read_text_file"
    args {
        path "string" required=#true max-length=300 pattern=${kdl(page)}
    }
    set {
        arg "head" 2
    }
    scope "pages:read"
}

can read page-capped {
    describe "One page, capped."
    tool "files" "read_text_file"
    args {
        path "string" required=#true max-length=300 pattern=${kdl(page)}
    }
    max-bytes 700
    scope "pages:read"
}

can show page-edit {
    describe "Preview an edit of one page; the page is never changed."
    tool "files" "edit_file"
    args {
        path "string" required=#true max-length=300 pattern=${kdl(page)}
        edits "object[]" required=#true max-items=3 {
            oldText "string" required=#true max-length=200
            newText "string" required=#true max-length=200
        }
    }
    set {
        arg "dryRun" #true
    }
    scope "pages:read"
}

can replace page {
    describe "Write one page of the handbook."
    tool "files" "write_file"
    args {
        path "string" required=#true max-length=300 pattern=${kdl(page)}
        content "string" required=#true max-length=200
    }
    scope "pages:write"
}

can create entities {
    describe "Remember people and teams."
    tool "memory" "create_entities"
    args {
        entities "object[]" required=#true max-items=5 {
            name "string" required=#true pattern="^[a-z][a-z0-9-]{0,40}$"
            entityType "string" required=#true {
                enum "person" "team"
            }
            observations "string[]" required=#true max-items=5 max-length=100
        }
    }
    scope "pages:write"
}

can add observations {
    describe "Add observations to remembered entities."
    tool "memory" "add_observations"
    args {
        observations "object[]" required=#true max-items=5 {
            entityName "string" required=#true max-length=40
            contents "string[]" required=#true max-items=5 max-length=100
        }
    }
    scope "pages:write"
}

can read graph {
    describe "The names and types of everything remembered."
    tool "memory" "read_graph"
    pick "entities[].name" "entities[].entityType"
    scope "pages:read"
}
`;
}

beforeAll(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'mcpb-e2e-files-')));
  root = join(dir, 'handbook');
  memoryFile = join(dir, 'memory.jsonl');
  mkdirSync(root);
  writeFileSync(join(root, 'refunds.md'), '# Refunds\nWithin 30 days.\nReceipt needed.\n');
  gw = await startGateway(spec(), {
    env: gatewayEnv({ READER_KEYS: READER, WRITER_KEYS: WRITER }),
  });
  url = gw.url;
  await eventually(async () => {
    const r = (await (await fetch(`${url}/readyz`)).json()) as {
      servers?: Record<string, string>;
    };
    return r.servers?.files === 'up' && r.servers.memory === 'up';
  }, 30_000);
});

afterAll(async () => {
  await gw?.close();
  expect(childrenRunning(FILESYSTEM)).toEqual([]);
  expect(childrenRunning(MEMORY)).toEqual([]);
  rmSync(dir, { recursive: true, force: true });
});

interface Envelope<R = unknown> {
  coverage: Record<string, unknown>;
  result: R;
}

const ERAS: Era[] = ['modern', 'legacy'];
const pagePath = (name: string): string => join(root, name);

describe('/readyz with two stdio upstreams', () => {
  it('names both servers up', async () => {
    const r = await fetch(`${url}/readyz`);
    expect(await r.json()).toEqual({ status: 'ready', servers: { files: 'up', memory: 'up' } });
  });
});

describe('server-filesystem grants', () => {
  it('lists to each key the grants it may call, as written', async () => {
    const list = async (key: string): Promise<{ name: string; description?: string }[]> => {
      const r = await postJson(key);
      return (r.json as { result: { tools: { name: string; description?: string }[] } }).result
        .tools;
    };
    const reader = await list(READER);
    expect(reader.map((t) => t.name)).toEqual([
      'read_page',
      'read_page_start',
      'read_page_capped',
      'show_page_edit',
      'read_graph',
    ]);
    expect(reader[0]!.description).toBe('Read one page of the handbook.');
    expect(JSON.stringify(reader)).not.toContain('Read the complete contents of a file');
    expect((await list(WRITER)).map((t) => t.name)).toContain('replace_page');
  });

  for (const era of ERAS)
    it(`reads a page of the folder (${era} MCP)`, async () => {
      const out = await callTool<Envelope>(
        url,
        'read_page',
        { path: pagePath('refunds.md') },
        { era, key: READER },
      );
      expect(out.isError).toBe(false);
      expect(out.structuredContent?.result).toEqual({
        content: '# Refunds\nWithin 30 days.\nReceipt needed.\n',
      });
    });

  it('sends the pinned head with the declared path: two lines come back', async () => {
    const r = await rest(url, 'read_page_start', { path: pagePath('refunds.md') }, READER);
    expect(r.status).toBe(200);
    expect((r.json as Envelope).result).toEqual({ content: '# Refunds\nWithin 30 days.' });
  });

  it('sends the pinned dryRun: the edit is previewed and the page stays as it was', async () => {
    const before = readFileSync(pagePath('refunds.md'), 'utf8');
    const r = await rest(
      url,
      'show_page_edit',
      { path: pagePath('refunds.md'), edits: [{ oldText: '30 days', newText: '14 days' }] },
      READER,
    );
    expect(r.status).toBe(200);
    const diff = (r.json as Envelope<{ content: string }>).result.content;
    expect(diff).toContain('-Within 30 days.');
    expect(diff).toContain('+Within 14 days.');
    expect(readFileSync(pagePath('refunds.md'), 'utf8')).toBe(before);
  });

  it('refuses a caller trying to set the pinned dryRun, and the page stays as it was', async () => {
    const before = readFileSync(pagePath('refunds.md'), 'utf8');
    const r = await rest(
      url,
      'show_page_edit',
      {
        path: pagePath('refunds.md'),
        edits: [{ oldText: '30 days', newText: '14 days' }],
        dryRun: false,
      },
      WRITER,
    );
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ error: { code: 'INVALID_ARGUMENTS' } });
    expect(readFileSync(pagePath('refunds.md'), 'utf8')).toBe(before);
  });

  for (const era of ERAS)
    it(`writes the page a writer asks for, as asked (${era} MCP)`, async () => {
      const out = await callTool(
        url,
        'replace_page',
        { path: pagePath(`written-${era}.md`), content: `written by ${era}` },
        { era, key: WRITER },
      );
      expect(out.isError).toBe(false);
      expect(readFileSync(pagePath(`written-${era}.md`), 'utf8')).toBe(`written by ${era}`);
    });

  const refusedWrites: [string, Record<string, unknown>, string, number][] = [
    [
      'a path outside restrict',
      { path: '/tmp/escape.md', content: 'x' },
      'DENIED_BY_RESTRICT',
      403,
    ],
    [
      'a path outside its pattern',
      { path: 'ROOT/../escape.md', content: 'x' },
      'INVALID_ARGUMENTS',
      400,
    ],
    [
      'a content over max-length',
      { path: 'NAME', content: 'x'.repeat(201) },
      'INVALID_ARGUMENTS',
      400,
    ],
    [
      'an undeclared argument',
      { path: 'NAME', content: 'x', mode: '0777' },
      'INVALID_ARGUMENTS',
      400,
    ],
  ];
  for (const [what, given, code, status] of refusedWrites)
    it(`writes nothing for ${what}, on either surface`, async () => {
      const name = `refused-${Math.random().toString(36).slice(2, 8)}.md`;
      // The folder exists only once the suite runs: names stand for its paths here.
      const path = String(given.path).replace('ROOT', root).replace('NAME', pagePath(name));
      const args = { ...given, path };
      const r = await rest(url, 'replace_page', args, WRITER);
      expect(r.status).toBe(status);
      expect(r.json).toMatchObject({ error: { code } });
      for (const era of ERAS) {
        const m = await callTool(url, 'replace_page', args, { era, key: WRITER });
        expect(m.content[0]!.text.startsWith(`${code}: `)).toBe(true);
      }
      expect(existsSync(pagePath(name))).toBe(false);
      expect(existsSync(join(dir, 'escape.md'))).toBe(false);
      expect(existsSync('/tmp/escape.md')).toBe(false);
    });

  it('writes nothing for a key without the scope: 403 on REST and MCP', async () => {
    const args = { path: pagePath('by-reader.md'), content: 'not allowed' };
    const r = await rest(url, 'replace_page', args, READER);
    expect(r.status).toBe(403);
    expect(r.headers.get('www-authenticate')).toMatch(/insufficient_scope.*scope="pages:write"/);
    for (const era of ERAS) {
      const m = await postToolCall(url, 'replace_page', args, { era, key: READER });
      expect(m.status).toBe(403);
    }
    const anonymous = await rest(url, 'replace_page', args);
    expect(anonymous.status).toBe(401);
    expect(existsSync(pagePath('by-reader.md'))).toBe(false);
  });

  it('maps the upstream isError for a missing page to UPSTREAM_TOOL_ERROR, 502', async () => {
    const r = await rest(url, 'read_page', { path: pagePath('missing.md') }, READER);
    expect(r.status).toBe(502);
    expect(r.json).toMatchObject({
      error: { code: 'UPSTREAM_TOOL_ERROR', message: expect.stringContaining('ENOENT') },
    });
    const m = await callTool(url, 'read_page', { path: pagePath('missing.md') }, { key: READER });
    expect(m.isError).toBe(true);
    expect(m.content[0]!.text).toMatch(/^UPSTREAM_TOOL_ERROR: /);
  });

  it('cuts a large page to max-bytes, coverage saying it was cut', async () => {
    const text = `${'A long line of the handbook.\n'.repeat(200)}`;
    writeFileSync(pagePath('long.md'), text);
    const r = await rest(url, 'read_page_capped', { path: pagePath('long.md') }, READER);
    expect(r.status).toBe(200);
    expect(Buffer.byteLength(r.text)).toBeLessThanOrEqual(700);
    const env = r.json as Envelope<{ content: string }>;
    expect(env.coverage.truncated).toBe(true);
    expect(env.coverage.bytes).toBe(Buffer.byteLength(JSON.stringify({ content: text })));
    // The kept start of the text, and a mark saying how much is missing.
    const cut = /^([^]*)…\[(\d+) more characters\]$/u.exec(env.result.content);
    expect(cut).not.toBeNull();
    expect(text.startsWith(cut![1]!)).toBe(true);
    expect(cut![1]!.length + Number(cut![2])).toBe(text.length);
  });
});

describe('server-memory grants', () => {
  const ada = { name: 'ada', entityType: 'person', observations: ['writes the refunds page'] };

  it('stores the entity a caller creates, in the file MEMORY_FILE_PATH names', async () => {
    const out = await callTool<Envelope>(
      url,
      'create_entities',
      { entities: [ada] },
      { key: WRITER },
    );
    expect(out.isError).toBe(false);
    expect(out.structuredContent?.result).toEqual({ entities: [ada] });
    const stored = readFileSync(memoryFile, 'utf8');
    expect(stored).toContain('"name":"ada"');
    expect(stored).toContain('writes the refunds page');
  });

  it('keeps only the picked fields of the graph, over REST and in both eras', async () => {
    const r = await rest(url, 'read_graph', {}, READER);
    expect(r.status).toBe(200);
    const env = r.json as Envelope;
    expect(env.result).toEqual({ entities: [{ name: 'ada', entityType: 'person' }] });
    expect(env.coverage.shaped).toBe(true);
    expect(r.text).not.toContain('writes the refunds page');
    for (const era of ERAS) {
      const m = await callTool<Envelope>(url, 'read_graph', {}, { era, key: READER });
      expect(m.structuredContent?.result).toEqual(env.result);
    }
  });

  const refused: [string, Record<string, unknown>][] = [
    ['a name outside its pattern', { name: 'Eve Smith', entityType: 'person', observations: [] }],
    ['a type outside its enum', { name: 'eve', entityType: 'robot', observations: [] }],
    [
      'an undeclared key inside an entity',
      { name: 'eve', entityType: 'person', observations: [], admin: true },
    ],
    [
      'an observation over max-length',
      { name: 'eve', entityType: 'person', observations: ['o'.repeat(101)] },
    ],
  ];
  for (const [what, entity] of refused)
    it(`stores nothing for ${what}`, async () => {
      const before = readFileSync(memoryFile, 'utf8');
      const r = await rest(url, 'create_entities', { entities: [entity] }, WRITER);
      expect(r.status).toBe(400);
      expect(r.json).toMatchObject({ error: { code: 'INVALID_ARGUMENTS' } });
      const m = await callTool(
        url,
        'create_entities',
        { entities: [entity] },
        { era: 'legacy', key: WRITER },
      );
      expect(m.content[0]!.text).toMatch(/^INVALID_ARGUMENTS: /);
      expect(readFileSync(memoryFile, 'utf8')).toBe(before);
    });

  it('stores nothing for a key without the scope', async () => {
    const before = readFileSync(memoryFile, 'utf8');
    const eve = { name: 'eve', entityType: 'person', observations: [] };
    const r = await rest(url, 'create_entities', { entities: [eve] }, READER);
    expect(r.status).toBe(403);
    expect(readFileSync(memoryFile, 'utf8')).toBe(before);
  });

  it('maps its error for an unknown entity to UPSTREAM_TOOL_ERROR, 502', async () => {
    const r = await rest(
      url,
      'add_observations',
      { observations: [{ entityName: 'nobody', contents: ['x'] }] },
      WRITER,
    );
    expect(r.status).toBe(502);
    expect(r.json).toMatchObject({
      error: { code: 'UPSTREAM_TOOL_ERROR', message: expect.stringContaining('nobody') },
    });
  });
});

/** tools/list over POST /mcp with `key`. */
function postJson(key: string): ReturnType<typeof postToolCall> {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      authorization: `Bearer ${key}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  }).then(async (res) => {
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, json: JSON.parse(text) as unknown };
  });
}
