// What every section of `npm run bench` runs with: the options of the run, its clock and
// log, and how it starts its processes. The server under test gets CPU 0 and the load
// generator CPU 1 (when pinning); each section's load is bounded in time.
import { dirname, join, resolve as resolvePath } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { canPin, launch, launchOnPort, runJson, urlOf, waitAnswer } from '../lib/processes.mjs';

const ROOT = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

/** `opts` are bench/run.mjs's parsed options. */
export function benchContext(opts) {
  const started = performance.now();
  const pin = !opts['no-pin'] && canPin;
  const serverCpu = '0';
  const ctx = {
    root: ROOT,
    bench: join(ROOT, 'bench'),
    main: opts.gateway ? resolvePath(opts.gateway) : join(ROOT, 'dist', 'cli', 'main.js'),
    /** --before: another build a section may run beside this one, in the same turns. */
    beforeMain: opts.before ? resolvePath(opts.before) : undefined,
    quick: opts.quick,
    profile: opts.profile,
    /** 'all', or 'bridges': the upstream MCP section without its mcp-beaver rows. */
    mcpSubjects: opts['mcp-subjects'],
    duration: opts.quick ? 1 : Number(opts.duration),
    connections: Number(opts.connections),
    reps: opts.quick ? 1 : Number(opts.reps),
    warmupS: opts.quick ? 1 : 2,
    pin,
    serverCpu,
    loadCpu: '1',
    started,
    /**
     * When the running section began (bench/run.mjs sets it): each section's windows stop
     * at `deadlineMs` from there. Per section, not per run: the sixteen sections at the
     * defaults take ~20 minutes in all, and a bound on the whole run cut the last ones.
     */
    sectionStarted: started,
    deadlineMs: 10 * 60_000,
    log(msg) {
      process.stderr.write(
        `[bench ${((performance.now() - started) / 1000).toFixed(0).padStart(3)}s] ${msg}\n`,
      );
    },
    launch: (args, options = {}) => launch(args, { cwd: ROOT, pin, ...options }),
    /**
     * An in-process bench of bench/ (envelope.mjs, …) against the build, in a process of
     * its own on the server's CPU: `node bench/<file> <args…> <dist>`; the JSON it prints.
     */
    runBuildBench(file, args, what) {
      const dist = dirname(dirname(ctx.main));
      const argv = ['node', join(ROOT, 'bench', file), ...args, dist];
      return runJson(argv, { cwd: ROOT, pin, cpu: serverCpu }, what);
    },

    /**
     * A gateway from the compiled build (or `main`, another build's), on a port picked
     * here (its listening line is info-level).
     */
    async startGateway(spec, { env = {}, extraArgs = [], profileDir, main = ctx.main } = {}) {
      const node = profileDir ? ['node', '--cpu-prof', `--cpu-prof-dir=${profileDir}`] : ['node'];
      const serve = [...node, main, 'serve', spec, '--log-level', 'warn', '--no-watch'];
      const { child, url, startedAt } = await launchOnPort([...serve, ...extraArgs], {
        env,
        cpu: serverCpu,
        cwd: ROOT,
        pin,
      });
      const readyMs = await waitAnswer({ url: `${url}/readyz` }, startedAt, child);
      return { child, url, readyMs };
    },

    /** One of bench/servers/, once it prints its URL. */
    async startScript(file, env, what) {
      const child = ctx.launch(['node', join(ROOT, 'bench', 'servers', file)], {
        env,
        cpu: serverCpu,
      });
      return { child, url: await urlOf(child, what) };
    },
  };
  return ctx;
}
