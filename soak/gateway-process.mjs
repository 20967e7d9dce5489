// The gateway under the soak: `node bin/mcp-beaver.js serve` as its own process on a
// given port. It counts its log lines by level and keeps the first error lines, and
// when it dies unasked it is recorded as a crash and started again, so the run goes on
// and the checks see the crash.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitListening } from '../bench/lib/listening.mjs';

const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'mcp-beaver.js');

export class GatewayProcess {
  constructor(specFile, port, env, { maxInFlight, logLevel }) {
    this.specFile = specFile;
    this.port = port;
    this.env = env;
    this.maxInFlight = maxInFlight;
    this.logLevel = logLevel;
    this.crashes = [];
    this.logLevels = {};
    this.errorLines = [];
    this.stopping = false;
  }

  get url() {
    return `http://127.0.0.1:${this.port}`;
  }

  async start() {
    const child = spawn(
      process.execPath,
      [
        BIN,
        'serve',
        this.specFile,
        '--http',
        `127.0.0.1:${this.port}`,
        '--max-in-flight',
        String(this.maxInFlight),
        '--log-level',
        this.logLevel,
        '--grace',
        '10s',
        '--no-watch',
      ],
      { env: { ...process.env, ...this.env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.child = child;
    // Should the soak itself die, its gateway goes with it.
    process.once('exit', () => child.kill('SIGKILL'));
    let pending = '';
    const ready = waitListening(child, { timeoutMs: 30_000 });
    const onLine = (line) => {
      const level = /"level":(\d+)/.exec(line)?.[1];
      if (level) this.logLevels[level] = (this.logLevels[level] ?? 0) + 1;
      if (!level || Number(level) >= 50) {
        if (this.errorLines.length < 20) this.errorLines.push(line.slice(0, 500));
      }
    };
    const onData = (b) => {
      pending += b.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const l of lines) if (l.trim()) onLine(l);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        if (!this.stopping) {
          this.crashes.push({ at: Date.now(), code, signal });
          process.stderr.write(`soak: the gateway died (code ${code}, signal ${signal})\n`);
          void this.start().catch((err) => process.stderr.write(`soak: restart failed: ${err}\n`));
        }
        resolve({ code, signal });
      }),
    );
    await ready;
    this.pid = child.pid;
    return this;
  }

  async stop() {
    this.stopping = true;
    const started = Date.now();
    this.child.kill('SIGTERM');
    const { code } = await this.exited;
    return { code, ms: Date.now() - started };
  }
}
