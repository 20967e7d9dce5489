/**
 * Backend kinds are loaded on first use (backends/registry.ts): a gateway prepared from a
 * spec loads the driver of each kind it has grants of, and no other. Each case runs in
 * a fresh node process, since a module once loaded stays loaded for the process.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { GRANT_BACKENDS } from '../../src/compiler/kinds/grant.js';
import { KIND_LIST } from '../../src/engine/backends/kinds.js';

const SRC = join(import.meta.dirname, '..', '..', 'src');
// Preparing a gateway opens no connection: any well-formed URL will do.
const DATABASE_URL = 'postgres://kinds@127.0.0.1:9/none';
const url = (path: string) => pathToFileURL(join(SRC, path)).href;

/** Prepares a gateway from `spec` in a child process; which packages it loaded, and its tools. */
function prepareInChild(
  spec: string,
  specJson = '',
): Promise<{ loaded: string[]; tools: string[] }> {
  const script = `
    import { createRequire } from 'node:module';
    const { Gateway } = await import(${JSON.stringify(url('engine/gateway.ts'))});
    const { compileSpecText } = await import(${JSON.stringify(url('compiler/load-spec.ts'))});
    // A compiled spec as JSON stands for a node kind the compiler does not read yet.
    const compiled = process.env.SPEC_JSON
      ? JSON.parse(process.env.SPEC_JSON)
      : compileSpecText(process.env.SPEC, 'kinds.mcp.kdl').compiled;
    const gateway = await Gateway.prepare(compiled, { env: process.env });
    const loaded = new Set();
    for (const k of Object.keys(createRequire(import.meta.url).cache)) {
      const m = /node_modules\\/((@[^/]+\\/)?[^/]+)\\//.exec(k);
      if (m) loaded.add(m[1]);
    }
    await gateway.close();
    process.stdout.write(JSON.stringify({ loaded: [...loaded], tools: [...gateway.operations.keys()] }));
  `;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      {
        env: { ...process.env, SPEC: spec, SPEC_JSON: specJson, DATABASE_URL: DATABASE_URL },
        cwd: join(SRC, '..'),
      },
      (err, stdout, stderr) =>
        err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(JSON.parse(stdout)),
    );
  });
}

const HTTP_GRANT = `
can list issues {
    path "/issues"
}`;
const SQL_GRANT = `
can list orders {
    sql "SELECT 1 AS one"
}`;

describe('backend kinds', () => {
  it('are the rows of the grant table, in the order of their list', () => {
    // The compiler cannot read the list (its lazy runtimes are the engine's): held here.
    expect(KIND_LIST.map((k) => k.grant)).toEqual(GRANT_BACKENDS);
  });

  it('a spec with HTTP grants only never loads pg', async () => {
    const out = await prepareInChild(
      `wrap "k" version="1.0.0"\nbase-url "http://127.0.0.1:9"${HTTP_GRANT}`,
    );
    expect(out.tools).toEqual(['list_issues']);
    expect(out.loaded).toContain('undici');
    expect(out.loaded).not.toContain('pg');
  });

  it('a spec with SQL grants only never loads undici', async () => {
    const out = await prepareInChild(
      `wrap "k" version="1.0.0"\ndatabase env="DATABASE_URL"${SQL_GRANT}`,
    );
    expect(out.tools).toEqual(['list_orders']);
    expect(out.loaded).toContain('pg');
    expect(out.loaded).not.toContain('undici');
  });

  it('a spec with both kinds prepares every grant on its own kind', async () => {
    const out = await prepareInChild(
      `wrap "k" version="1.0.0"\nbase-url "http://127.0.0.1:9"\ndatabase env="DATABASE_URL"${HTTP_GRANT}${SQL_GRANT}`,
    );
    expect(out.tools).toEqual(['list_issues', 'list_orders']);
    expect(out.loaded).toEqual(expect.arrayContaining(['pg', 'undici']));
  });

  it('a spec with mcp grants only never loads pg', async () => {
    const everything = join(
      SRC,
      '..',
      'node_modules',
      '@modelcontextprotocol',
      'server-everything',
      'dist',
      'index.js',
    );
    const source = { file: 'kinds.mcp.kdl', line: 1, column: 1 };
    const spec = {
      file: 'kinds.mcp.kdl',
      server: { name: 'k', version: '1.0.0' },
      resources: [],
      prompts: [],
      toolsets: [],
      listTokens: 20_000,
      mcpServers: [
        {
          name: 'everything',
          transport: {
            kind: 'command',
            program: process.execPath,
            args: [everything],
            cwd: '.',
            env: [],
          },
          timeoutMs: 5000,
          protocol: '2025-11-25',
          source,
        },
      ],
      tools: [
        {
          name: 'echo',
          verb: 'get',
          resource: 'echo',
          title: 'Echo',
          annotations: {
            title: 'Echo',
            readOnlyHint: true,
            destructiveHint: false,
            idempotentHint: true,
            openWorldHint: true,
          },
          inputSchema: { type: 'object' },
          outputSchema: {},
          arguments: [],
          exclusive: [],
          restrict: [],
          scopes: [],
          limits: { maxBytes: 65536, budgetBytes: 65536 },
          backend: {
            kind: 'mcp',
            server: 'everything',
            tool: 'echo',
            fields: [],
            setArgs: [],
            timeoutMs: 5000,
            retryOnNewSession: true,
          },
          source,
        },
      ],
    };
    const out = await prepareInChild('', JSON.stringify(spec));
    expect(out.tools).toEqual(['echo']);
    expect(out.loaded).not.toContain('pg');
  });
});
