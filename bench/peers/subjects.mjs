// How each subject of the peer benchmark is configured and started. Every subject gets
// the same two tools (workload.mjs), the same Postgres schema and the same upstream, is
// bound to 127.0.0.1 on a port picked here, and logs at warning level only.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../lib/free-port.mjs';
import { launch, launchOnPort, urlOf } from '../lib/processes.mjs';
import { toDbhubToml, toKdl, toolsOf, toToolboxYaml } from './workload.mjs';

/**
 * The subjects: `start(count)` writes the configuration for `count` tools and returns
 * {child, url}. `workloads` lists what it can serve (DBHub has no HTTP tool type);
 * `counts` the spec sizes measured at start-up.
 */
export function subjects(ctx) {
  const { work, schema, databaseUrl, upstreamUrl, peers, main, root, binary, npxDir, container } =
    ctx;
  const cpu = ctx.serverCpu;
  const at = (port) => `http://127.0.0.1:${port}`;
  const kdl = (count) => {
    const file = join(work, `bench-peers-${count}.mcp.kdl`);
    writeFileSync(file, toKdl(toolsOf(count), { schema, upstreamUrl }));
    return file;
  };
  // The gateway's own warm-up off (it spends CPU before readiness): the cold start and
  // the throughput are compared as the peers start, cold. One more row starts it warming.
  const ours = (name, command, cwd = root, env = {}) => ({
    name,
    ours: true,
    workloads: ['tools', 'sql', 'http'],
    start(count) {
      const serve = [...command, 'serve', kdl(count), '--log-level', 'warn', '--no-watch'];
      return launchOnPort(serve, {
        env: { DATABASE_URL: databaseUrl, MCP_BEAVER_WARM_UP: 'off', ...env },
        cpu,
        cwd,
      });
    },
  });
  const list = [
    ours('mcp-beaver', ['node', main]),
    {
      ...ours('mcp-beaver (warm-up 500, as the image and chart set it)', ['node', main], root, {
        MCP_BEAVER_WARM_UP: '500',
      }),
      startupOnly: true,
    },
    ...(ctx.baseline
      ? [
          {
            ...ours(`mcp-beaver @${ctx.baseline}`, ['node', join(ctx.baseline, 'cli', 'main.js')]),
            ours: false,
          },
        ]
      : []),
    ...(binary ? [{ ...ours('mcp-beaver (single binary)', [binary]), startupOnly: true }] : []),
    // The image's command on the image's Node, with the compile cache its build bakes.
    ...(container
      ? [
          {
            ...ours(
              'mcp-beaver (container command, Node 24 + compile cache)',
              [container.node, main],
              root,
              {
                NODE_COMPILE_CACHE: container.cache,
              },
            ),
            startupOnly: true,
          },
        ]
      : []),
    // The packed package installed in npxDir (install.mjs ensurePackage), run from there.
    ...(npxDir
      ? [
          {
            ...ours('mcp-beaver (npx mcp-beaver)', ['npx', '--no-install', 'mcp-beaver'], npxDir),
            startupOnly: true,
          },
        ]
      : []),
    {
      name: 'Google MCP Toolbox 1.12',
      workloads: ['tools', 'sql', 'http'],
      async start(count) {
        const file = join(work, `toolbox-${count}.yaml`);
        writeFileSync(file, toToolboxYaml(toolsOf(count), { schema, upstreamUrl }));
        const port = await freePort();
        const child = launch(
          [
            peers.toolbox,
            '--config',
            file,
            '--address',
            '127.0.0.1',
            '--port',
            String(port),
            '--log-level',
            'WARN',
            '--disable-reload',
            '--disable-version-check',
          ],
          { cpu },
        );
        return { child, url: at(port) };
      },
    },
    {
      name: 'DBHub 1.4',
      workloads: ['tools', 'sql'],
      async start(count) {
        const file = join(work, `dbhub-${count}.toml`);
        writeFileSync(file, toDbhubToml(toolsOf(count), { schema, databaseUrl }));
        const port = await freePort();
        // DBHub binds 0.0.0.0 unless it is given a host.
        const child = launch(
          [
            'node',
            peers.dbhub,
            '--transport',
            'http',
            '--host',
            '127.0.0.1',
            '--port',
            String(port),
            `--config=${file}`,
          ],
          { cpu, cwd: work },
        );
        return { child, url: at(port) };
      },
    },
    {
      name: 'official SDK v2 server (hand-written tools)',
      workloads: ['tools', 'sql', 'http'],
      async start(count) {
        const defs = toolsOf(count).map((t) => ({
          name: t.name,
          description: t.description,
          param: t.param,
          ...(t.statement ? { sql: t.statement(schema) } : { path: t.path }),
        }));
        const child = launch(['node', join(root, 'bench', 'servers', 'sdk-reference.mjs')], {
          env: {
            PEER_TOOLS: JSON.stringify(defs),
            DATABASE_URL: databaseUrl,
            UPSTREAM_URL: upstreamUrl,
          },
          cpu,
          cwd: root,
        });
        return { child, url: await urlOf(child, 'sdk-reference') };
      },
    },
  ];
  return list;
}
