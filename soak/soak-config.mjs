// The options of `npm run soak` (see soak/run.mjs for what each does), as one object the
// soak's parts take: durations in ms, shares as fractions, the fault mix parsed.
import { parseArgs } from 'node:util';
import { parseMix } from './fault-upstream.mjs';

/** `60s`, `300ms`, `2m` (a bare number is seconds) → ms. */
export function durationMs(text) {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text);
  if (!m) throw new Error(`not a duration: ${text}`);
  return Number(m[1]) * { ms: 1, s: 1000, m: 60_000 }[m[2] ?? 's'];
}

export function soakConfig(args) {
  const { values: flags } = parseArgs({
    args,
    options: {
      duration: { type: 'string', default: '60s' },
      concurrency: { type: 'string', default: '64' },
      mix: { type: 'string', default: '500=5,reset=3,hang=2,oversized=1' },
      latency: { type: 'string', default: '0-50' },
      'sql-share': { type: 'string', default: '0.3' },
      'mcp-share': { type: 'string', default: '0.5' },
      'max-in-flight': { type: 'string', default: '1024' },
      'grant-timeout': { type: 'string', default: '300ms' },
      warmup: { type: 'string', default: '0.33' },
      'pg-restart': { type: 'boolean', default: false },
      'no-sql': { type: 'boolean', default: false },
      seed: { type: 'string', default: '11' },
      'log-level': { type: 'string', default: 'info' },
      json: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const duration = durationMs(flags.duration);
  return {
    help: flags.help,
    durationMs: duration,
    concurrency: Number(flags.concurrency),
    mix: parseMix(flags.mix),
    latencyMs: flags.latency.split('-').map(Number),
    sqlShare: flags['no-sql'] ? 0 : Number(flags['sql-share']),
    mcpShare: Number(flags['mcp-share']),
    maxInFlight: Number(flags['max-in-flight']),
    grantTimeout: flags['grant-timeout'],
    grantTimeoutMs: durationMs(flags['grant-timeout']),
    warmupMs: Math.max(Math.min(20_000, duration / 3), duration * Number(flags.warmup)),
    seed: Number(flags.seed),
    pgRestart: flags['pg-restart'],
    logLevel: flags['log-level'],
    json: flags.json,
  };
}
