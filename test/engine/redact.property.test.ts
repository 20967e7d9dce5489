/**
 * Redaction as a property (issue 14): secrets drawn from an alphabet of the characters
 * that escaping and encoding change (`/+~!'()*%&= `, quotes, backslash, non-ASCII), an
 * upstream that echoes every spelling of them, and no spelling left on either surface.
 *
 * CI runs a fixed seed and a bounded number of runs; FUZZ_RUNS and FUZZ_SEED run more.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveCredential } from '../../src/engine/backends/upstream/credentials.js';
import { buildTarget, planUrl, queryComponent } from '../../src/engine/backends/http/url.js';
import { makeRedactor, REDACTED } from '../../src/engine/redact.js';
import type { HttpBackend } from '../../src/compiler/descriptor.js';
import { compileSpecText } from '../../src/compiler/load-spec.js';
import { postJson, startGateway } from '../helpers/gateway.js';
import { formEncoded, leaksIn, percentEncoded, spellingsOf } from '../helpers/leaks.js';
import { LEGACY } from '../helpers/mcp-wire.js';
import { startUpstream, type Upstream } from '../helpers/upstream.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 50);
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_201);

const SPECIAL = [...`/+~!'()*%&= "\\`, '<', '>', '?', '#', ':', '@', '-', '_', '.'];
const LETTERS = [...'aZ09xQ'];
const NON_ASCII = ['é', 'ß', '日', '😀', '\u00a0'];

/** Printable ASCII only: what an HTTP header can carry as the gateway sends it. */
const headerSecret = fc.string({
  unit: fc.constantFrom(...SPECIAL, ...LETTERS),
  minLength: 8,
  maxLength: 24,
});
/** Anything an environment variable holds (query values and passwords are UTF-8 encoded). */
const anySecret = fc.string({
  unit: fc.oneof(
    fc.constantFrom(...SPECIAL, ...LETTERS, ...NON_ASCII),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
  ),
  minLength: 8,
  maxLength: 24,
});

/** Every spelling of each value, and each inside the base64 of a longer text. */
function echoes(values: readonly string[]): string[] {
  const out: string[] = [];
  for (const v of values) {
    out.push(...spellingsOf(v));
    for (const around of ['x', 'xy', 'xyz'])
      out.push(Buffer.from(`${around}${v} tail`).toString('base64'));
  }
  return out;
}

describe('the redactor on its own', () => {
  it('leaves no spelling of a secret or of the whole value sent, whatever surrounds it', () => {
    fc.assert(
      fc.property(
        anySecret,
        fc.string({ maxLength: 6 }),
        fc.string({ maxLength: 6 }),
        (s, a, b) => {
          const sent = `Bearer ${s}`;
          const redact = makeRedactor([s], [sent]);
          for (const spelled of echoes([s, sent])) {
            const out = redact.text(`${a}${spelled}${b}`);
            expect(out).toContain(REDACTED);
            expect(leaksIn(out, [s, sent])).toEqual([]);
          }
        },
      ),
      { numRuns: RUNS * 2, seed: SEED },
    );
  });

  it('returns a text without a secret as it came', () => {
    const redact = makeRedactor(
      ['UPSTREAM/tok+en_9f8e7d6c5b4a'],
      ['Bearer UPSTREAM/tok+en_9f8e7d6c5b4a'],
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        expect(redact.found(text)).toBe(false);
        expect(redact.text(text)).toBe(text);
      }),
      { numRuns: RUNS * 4, seed: SEED + 1 },
    );
  });

  it('redacts strings and keys of a JSON value and leaves the rest of it untouched', () => {
    fc.assert(
      fc.property(anySecret, fc.jsonValue({ maxDepth: 3 }), (s, rest) => {
        const redact = makeRedactor([s]);
        const value = { rest, [`key ${s}`]: [s, { deep: `a${s}b` }] };
        const out = redact.value(value);
        expect(leaksIn(JSON.stringify(out), [s])).toEqual([]);
        expect(out.rest).toEqual(redact.value(rest));
        expect(value[`key ${s}`]).toEqual([s, { deep: `a${s}b` }]);
      }),
      { numRuns: RUNS * 2, seed: SEED + 2 },
    );
  });
});

describe.each([
  ['percent', '', percentEncoded, '%20'],
  ['form', ' encoding="form"', formEncoded, '+'],
] as const)('an `auth query` key, query encoding %s', (encoding, property, encoded, space) => {
  const compiled = compileSpecText(
    `wrap "q" version="1.0.0"\nbase-url "http://127.0.0.1:9/v1"\nauth query "api key" env="Q"\ncan list things {\n    describe "Things."\n    path "/things"\n    query${property} {\n        q "string"\n    }\n}\n`,
    'q.mcp.kdl',
  ).compiled!;
  const d = compiled.tools[0]!;
  const backend = d.backend as HttpBackend;

  it('is redacted in exactly the encoding the URL carries it, which comes from the same function', () => {
    expect(backend.queryEncoding).toBe(encoding);
    const component = queryComponent(encoding);
    fc.assert(
      fc.property(anySecret, fc.option(fc.string(), { nil: undefined }), (key, q) => {
        const credential = resolveCredential(backend.auth, { Q: key });
        const target = buildTarget(planUrl(backend, d.arguments, credential.query), {
          ...(q !== undefined && { q }),
        });
        const sent = `api${space}key=${encoded(key)}`;
        expect(target.endsWith(`?${sent}`) || target.endsWith(`&${sent}`)).toBe(true);
        expect(component(key)).toBe(encoded(key));
        expect(credential.secrets).toContain(component(key));
        const redacted = makeRedactor(credential.secrets, credential.sent).text(target);
        expect(leaksIn(redacted, [key])).toEqual([]);
        expect(redacted.endsWith(`api${space}key=${REDACTED}`)).toBe(true);
      }),
      { numRuns: RUNS, seed: SEED + 4 },
    );
  });
});

interface Kind {
  readonly name: string;
  readonly auth: string;
  readonly env: (s: string) => Record<string, string>;
  /** What must never be readable: the secret and the whole values sent with it. */
  readonly values: (s: string) => string[];
}

const KINDS: readonly Kind[] = [
  {
    name: 'bearer',
    auth: 'auth bearer env="P_TOKEN"',
    env: (s) => ({ P_TOKEN: s }),
    values: (s) => [s, `Bearer ${s}`],
  },
  {
    name: 'header',
    auth: 'auth header "X-Upstream-Key" env="P_KEY" prefix="Key "',
    env: (s) => ({ P_KEY: s }),
    values: (s) => [s, `Key ${s}`],
  },
  {
    name: 'query',
    auth: 'auth query "api key" env="P_QUERY"',
    env: (s) => ({ P_QUERY: s }),
    values: (s) => [s],
  },
  {
    name: 'basic',
    auth: 'auth basic username-env="P_USER" password-env="P_PASS"',
    env: (s) => ({ P_USER: 'prop-user', P_PASS: s }),
    values: (s) => [
      s,
      `prop-user:${s}`,
      `Basic ${Buffer.from(`prop-user:${s}`).toString('base64')}`,
    ],
  },
];

/** How the upstream answers, each with every spelling in it. */
const ANSWERS: readonly { status: number; type: string; body: (forms: string[]) => string }[] = [
  { status: 401, type: 'application/json', body: (f) => JSON.stringify({ got: f }) },
  { status: 500, type: 'text/html', body: (f) => f.map((x) => `<p>${x}</p>`).join('') },
  { status: 200, type: 'text/plain', body: (f) => f.join('\n') },
  { status: 200, type: 'application/json', body: (f) => JSON.stringify({ echoed: f }) },
  { status: 200, type: 'application/json', body: (f) => `{"cut":${JSON.stringify(f.join(' '))}` },
];

describe('an upstream echoing every spelling of the credential', () => {
  let upstream: Upstream;
  let forms: string[] = [];
  let answer = ANSWERS[0]!;

  beforeAll(async () => {
    upstream = await startUpstream((req, res) => {
      res.writeHead(answer.status, { 'content-type': answer.type });
      // What it received, as received, and every spelling of the secret.
      const received = [req.url, ...Object.values(req.headers).map(String)];
      res.end(answer.body([...received, ...forms]));
    });
  });
  afterAll(async () => {
    await upstream?.close();
  });

  for (const kind of KINDS) {
    it(`leaks nothing of a ${kind.name} credential on REST, MCP or the logs (${RUNS} runs, seed ${SEED})`, async () => {
      const secret = kind.name === 'bearer' || kind.name === 'header' ? headerSecret : anySecret;
      await fc.assert(
        fc.asyncProperty(secret, async (s) => {
          const values = kind.values(s);
          forms = echoes(values);
          const gw = await startGateway(
            `wrap "prop" version="1.0.0"\nbase-url "${upstream.url}"\n${kind.auth}\ncan get echo {\n    describe "An echo."\n    path "/echo"\n}\n`,
            { env: kind.env(s) },
          );
          try {
            for (const a of ANSWERS) {
              answer = a;
              const rest = await postJson(`${gw.url}/api/get_echo`, {});
              expect(rest.status).not.toBe(500);
              expect(leaksIn(rest.text, values)).toEqual([]);
              const mcp = await postJson(
                `${gw.url}/mcp`,
                { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_echo' } },
                { accept: 'application/json, text/event-stream', 'mcp-protocol-version': LEGACY },
              );
              expect(mcp.status).toBe(200);
              expect(leaksIn(mcp.text, values)).toEqual([]);
            }
            expect(leaksIn(gw.logs(), values)).toEqual([]);
          } finally {
            await gw.close();
          }
        }),
        { numRuns: Math.ceil(RUNS / KINDS.length), seed: SEED + 3, endOnFailure: true },
      );
    }, 120_000);
  }
});
