/**
 * A fault-injecting upstream for the soak (docs/reliability.md). It serves the two
 * HTTP grants of the soak spec under a path prefix and answers each request with one
 * fault drawn from a seeded, block-shuffled schedule, so the injected shares are exact
 * (every block of 1,000 requests holds exactly 50 HTTP 500s at a 5% share, …) and
 * the fault given to each request id is remembered: the soak compares every outcome
 * the gateway reported with the fault behind it.
 *
 * Faults:
 *   ok        200 JSON echoing the id, after the latency
 *   status500 500 JSON
 *   reset     200 with Content-Length, part of the body, then a TCP reset
 *   hang      no answer (half: no headers; half: headers and part of the body) until
 *             the gateway gives up (grant deadline) or `hangMaxMs`
 *   oversized 200 JSON larger than the gateway's read cap, streamed
 *
 * It also checks what it receives, as security.md asks: the path is under the prefix
 * and one of the served routes, query and body keys are declared ones, no caller
 * header (Authorization other than the spec's credential, Cookie, X-Forwarded-*)
 * arrives, and no id arrives twice (the gateway never retries on its own).
 *
 * Run alone: node soak/fault-upstream.mjs [--port 0] [--mix 500=5,reset=3,...]
 */
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';

export const FAULTS = /** @type {const} */ (['ok', 'status500', 'reset', 'hang', 'oversized']);

/** The catalogue code each fault must come back as ('ok' for none). */
export const EXPECTED_OUTCOME = {
  ok: 'ok',
  status500: 'UPSTREAM_STATUS',
  reset: 'UPSTREAM_UNREACHABLE',
  hang: 'UPSTREAM_TIMEOUT',
  oversized: 'UPSTREAM_BAD_RESPONSE',
};

/** Percent of requests per fault; `ok` takes the rest. */
export const DEFAULT_MIX = { status500: 5, reset: 3, hang: 2, oversized: 1 };

const MIX_ALIASES = {
  500: 'status500',
  status500: 'status500',
  reset: 'reset',
  hang: 'hang',
  oversized: 'oversized',
  big: 'oversized',
};

/** `500=5,reset=3,hang=2,oversized=1` → { status500: 5, … }. */
export function parseMix(text) {
  const mix = { status500: 0, reset: 0, hang: 0, oversized: 0 };
  for (const part of text.split(',').filter(Boolean)) {
    const [k, v] = part.split('=');
    const key = MIX_ALIASES[k.trim()];
    const pct = Number(v);
    if (!key || !Number.isFinite(pct) || pct < 0 || pct > 50)
      throw new Error(
        `bad mix entry ${JSON.stringify(part)}: use 500=5,reset=3,hang=2,oversized=1`,
      );
    mix[key] = pct;
  }
  if (mix.status500 + mix.reset + mix.hang + mix.oversized > 100)
    throw new Error('the fault shares add up to more than 100%');
  return mix;
}

/** mulberry32: a small seeded PRNG, so a run can be repeated. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const BLOCK = 1000;

function scheduleBlock(mix, random) {
  const block = [];
  for (const fault of ['status500', 'reset', 'hang', 'oversized'])
    for (let i = 0; i < Math.round((mix[fault] * BLOCK) / 100); i++) block.push(fault);
  while (block.length < BLOCK) block.push('ok');
  for (let i = block.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [block[i], block[j]] = [block[j], block[i]];
  }
  return block;
}

/** Routes served under the prefix, and the argument names each may carry. */
const ROUTES = {
  GET: { pattern: /^\/echo\/([A-Za-z0-9_-]{1,64})$/, query: new Set(['tag']), body: null },
  POST: { pattern: /^\/echo$/, query: new Set(), body: new Set(['id', 'n', 'tags']) },
};
const CALLER_HEADERS = ['cookie', 'x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto'];

/**
 * @param {{ mix?: object, seed?: number, prefix?: string, latencyMs?: [number, number],
 *   hangMaxMs?: number, oversizedBytes?: number, token?: string, port?: number }} opts
 */
export async function startFaultUpstream(opts = {}) {
  const mix = { ...DEFAULT_MIX, ...opts.mix };
  const random = rng(opts.seed ?? 1);
  const prefix = opts.prefix ?? '/v1';
  const [latMin, latMax] = opts.latencyMs ?? [0, 50];
  const hangMaxMs = opts.hangMaxMs ?? 30_000;
  const oversizedBytes = opts.oversizedBytes ?? 2 * 1024 * 1024;
  const token = opts.token;
  let schedule = [];
  const injected = new Map();
  const counts = Object.fromEntries(FAULTS.map((f) => [f, 0]));
  const violations = [];
  let requests = 0;
  let duplicates = 0;
  const sockets = new Set();
  const timers = new Set();

  const nextFault = () => {
    if (schedule.length === 0) schedule = scheduleBlock(mix, random);
    return schedule.pop();
  };
  const later = (ms, fn) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
    return t;
  };
  const violation = (what) => {
    if (violations.length < 100) violations.push(what);
    else violations[99] = `${what} (and more)`;
  };

  const server = createServer((req, res) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size <= 1 << 20) chunks.push(c);
    });
    req.on('error', () => undefined);
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  server.keepAliveTimeout = 30_000;
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  });

  function check(req, body) {
    const url = new URL(req.url ?? '/', 'http://upstream.invalid');
    const route = ROUTES[req.method ?? ''];
    if (!route) return { error: `method ${req.method} is not served` };
    if (!url.pathname.startsWith(`${prefix}/`))
      return { error: `path ${url.pathname} is off the prefix ${prefix}` };
    const m = route.pattern.exec(url.pathname.slice(prefix.length));
    if (!m) return { error: `path ${url.pathname} is not a served route` };
    for (const key of url.searchParams.keys())
      if (!route.query.has(key)) return { error: `undeclared query key ${JSON.stringify(key)}` };
    for (const h of CALLER_HEADERS)
      if (req.headers[h] !== undefined) return { error: `caller header ${h} reached the upstream` };
    if (token !== undefined && req.headers.authorization !== `Bearer ${token}`)
      return { error: 'the spec credential is missing or another one arrived' };
    let id = m[1];
    if (route.body) {
      let parsed;
      try {
        parsed = JSON.parse(body);
      } catch {
        return { error: 'the body is not JSON' };
      }
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
        return { error: 'the body is not a JSON object' };
      for (const key of Object.keys(parsed))
        if (!route.body.has(key)) return { error: `undeclared body key ${JSON.stringify(key)}` };
      id = parsed.id;
    }
    return { id: String(id), tag: url.searchParams.get('tag') };
  }

  function handle(req, res, body) {
    requests += 1;
    const seen = check(req, body);
    if (seen.error) {
      violation(`${req.method} ${req.url}: ${seen.error}`);
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: seen.error }));
      return;
    }
    if (injected.has(seen.id)) {
      duplicates += 1;
      violation(`id ${seen.id} arrived twice`);
    }
    const fault = nextFault();
    injected.set(seen.id, fault);
    counts[fault] += 1;
    if (fault === 'hang') {
      const partial = counts.hang % 2 === 0;
      if (partial) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '64' });
        res.write('{"id":');
      }
      const t = later(hangMaxMs, () => res.destroy());
      res.once('close', () => {
        clearTimeout(t);
        timers.delete(t);
      });
      return;
    }
    const latency = latMin + random() * (latMax - latMin);
    later(latency, () => answer(res, fault, seen));
  }

  function answer(res, fault, seen) {
    if (res.destroyed) return;
    switch (fault) {
      case 'ok': {
        const json = JSON.stringify({ id: seen.id, tag: seen.tag, items: [1, 2, 3] });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(json);
        return;
      }
      case 'status500':
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end('{"error":"injected failure"}');
        return;
      case 'reset': {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '4096' });
        res.write(`{"id":${JSON.stringify(seen.id)},"pad":"${'x'.repeat(1000)}`);
        // Let the headers and the first part leave, then reset the connection.
        later(2, () => {
          const s = res.socket;
          if (s && typeof s.resetAndDestroy === 'function') s.resetAndDestroy();
          else res.destroy();
        });
        return;
      }
      case 'oversized': {
        res.writeHead(200, { 'content-type': 'application/json' });
        const piece = Buffer.from(`"${'y'.repeat(16 * 1024 - 3)}",`);
        let sent = 1;
        res.write('[');
        const pump = () => {
          while (!res.destroyed && sent + piece.length < oversizedBytes) {
            sent += piece.length;
            if (!res.write(piece)) {
              res.once('drain', pump);
              return;
            }
          }
          if (!res.destroyed) res.end('0]');
        };
        res.on('error', () => undefined);
        pump();
        return;
      }
      default:
        res.destroy();
    }
  }

  await new Promise((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    prefix,
    mix,
    /** The fault given to a request id, or undefined when the id never arrived. */
    faultOf: (id) => injected.get(id),
    stats: () => ({ requests, duplicates, counts: { ...counts }, violations: [...violations] }),
    close() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '0' },
      mix: { type: 'string', default: '500=5,reset=3,hang=2,oversized=1' },
      seed: { type: 'string', default: '1' },
      prefix: { type: 'string', default: '/v1' },
    },
  });
  const up = await startFaultUpstream({
    port: Number(values.port),
    mix: parseMix(values.mix),
    seed: Number(values.seed),
    prefix: values.prefix,
  });
  process.stdout.write(`fault upstream at ${up.url}${up.prefix}\n`);
  const stop = () => {
    process.stdout.write(`${JSON.stringify(up.stats())}\n`);
    void up.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
