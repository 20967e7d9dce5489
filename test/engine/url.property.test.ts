import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildTarget, planUrl, targetEscapes } from '../../src/engine/backends/http/url.js';
import {
  builtSegmentProblem,
  gatePathValues,
  mixedSegments,
  pathValueProblem,
} from '../../src/engine/guards/metachar.js';
import type { HttpBackend } from '../../src/compiler/descriptor.js';
import { compileSpecText } from '../../src/compiler/load-spec.js';
import { postJson, type TestGateway } from '../helpers/gateway.js';
import type { Upstream } from '../helpers/upstream.js';
import { useGatewayOnUpstream } from '../helpers/upstream-fixtures.js';
import { specHead } from '../helpers/spec-fixtures.js';

const TOKEN = 'url_prop_secret_token_4242';

function specText(baseUrl: string): string {
  return `
${specHead('urls', baseUrl, { bearerEnv: 'URL_TOKEN' })}
can get thing {
    describe "One thing of one owner."
    path "/owners/{owner}/things/{id}"
    query {
        tag "string[]"
        q "string" as="search"
    }
}
`;
}

function compilePlan(baseUrl: string) {
  const result = compileSpecText(specText(baseUrl), 'urls.mcp.kdl');
  if (!result.compiled) throw new Error(JSON.stringify(result.diagnostics));
  const d = result.compiled.tools[0]!;
  return planUrl(d.backend as HttpBackend, d.arguments, []);
}

// Characters and fragments that have meaning in URLs and paths, mixed with anything at all.
const tricky = fc.constantFrom(
  ...['.', '..', '/', '\\', '%', '?', '#', '@', ':', ';', '=', '&', '+', ' ', '~', '*', "'"],
  ...['(', ')', '!', '$', ',', '[', ']', '{', '}', '|', '^', '`', '"', '<', '>'],
  ...['\u0000', '\t', '\r', '\n', '\u007f', '\u0085', '\u202e', '\u2066', '\u200b', '\ufeff'],
  ...['é', 'ß', '日本', '😀', '\ud800', '\udfff', 'a', 'Z', '0', '-', '_'],
  ...['%2e', '%2E%2e', '%2F', '..%2F', 'http://169.254.169.254/', '//evil.example', '%00'],
);
const anyPathValue = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'binary-ascii', maxLength: 40 }),
  fc.string({ unit: tricky, maxLength: 12 }),
  fc.string({ unit: fc.oneof(tricky, fc.string({ unit: 'binary', maxLength: 1 })) }),
  // Lone surrogates: encodeURIComponent throws on them, so the gate must refuse them.
  fc
    .tuple(fc.string({ maxLength: 5 }), fc.integer({ min: 0xd800, max: 0xdfff }))
    .map(([s, c]) => s + String.fromCharCode(c)),
);
const accepted = anyPathValue.filter((v) => pathValueProblem(v) === undefined);
const rejected = anyPathValue.filter((v) => pathValueProblem(v) !== undefined);

/** Characters encodeURIComponent leaves alone, or a percent escape. */
const ENCODED_SEGMENT = /^(?:[A-Za-z0-9\-_.!~*'()]|%[0-9A-F]{2})+$/;

describe('upstream URLs built from path values that pass the metachar gate', () => {
  const base = 'http://127.0.0.1:9/api/v2';
  const plan = compilePlan(base);

  it('stay on the base-url origin and prefix, and each value fills exactly one segment', () => {
    expect(plan.origin).toBe('http://127.0.0.1:9');
    expect(plan.prefix).toBe('/api/v2');
    fc.assert(
      fc.property(accepted, accepted, (owner, id) => {
        const target = buildTarget(plan, { owner, id });
        expect(targetEscapes(plan, target)).toBeUndefined();
        const url = new URL(target, plan.origin);
        expect(url.origin).toBe(plan.origin);
        expect(url.href.startsWith(`${base}/owners/`)).toBe(true);
        const pathname = target.split('?')[0]!;
        // No normalization by a URL parser: what is built is what is sent.
        expect(url.pathname).toBe(pathname);
        const segments = pathname.split('/');
        expect(segments).toHaveLength(7);
        expect(segments.slice(0, 4)).toEqual(['', 'api', 'v2', 'owners']);
        expect(segments[5]).toBe('things');
        expect(segments[4]).toMatch(ENCODED_SEGMENT);
        expect(segments[6]).toMatch(ENCODED_SEGMENT);
        expect(decodeURIComponent(segments[4]!)).toBe(owner);
        expect(decodeURIComponent(segments[6]!)).toBe(id);
      }),
      { numRuns: 1_000 },
    );
  });

  it('never change the host, even for values that look like URLs or authorities', () => {
    const hostile = ['@evil.example', 'evil.example:80', ':@169.254.169.254', 'user@evil', '...'];
    for (const owner of hostile) {
      expect(pathValueProblem(owner)).toBeUndefined();
      const target = buildTarget(plan, { owner, id: owner });
      expect(targetEscapes(plan, target)).toBeUndefined();
      expect(new URL(target, plan.origin).host).toBe('127.0.0.1:9');
    }
  });

  it('judge any target, built or not, as parsing it with URL does', () => {
    // The check as it was before it skipped the URL parser for plain paths.
    const byUrlParser = (target: string): string | undefined => {
      let url: URL;
      try {
        url = new URL(target, plan.origin);
      } catch {
        return 'the built URL does not parse';
      }
      if (url.origin !== plan.origin) return `the built URL left the origin ${plan.origin}`;
      const pathname = target.split('?')[0]!;
      if (url.pathname !== pathname) return 'the built path was changed by URL normalization';
      if (pathname !== plan.prefix && !pathname.startsWith(`${plan.prefix}/`))
        return `the built path left the prefix ${plan.prefix}`;
      if (pathname.split('/').length !== plan.pathParts)
        return 'a path value spans more than one segment';
      return undefined;
    };
    const piece = fc.oneof(
      tricky,
      fc.constantFrom('/', '//', '/api/v2', '/owners/', '/things/', '%2e%2E', '.%2e', 'x'),
      fc.string({ unit: 'binary-ascii', maxLength: 3 }),
    );
    const target = fc.oneof(
      fc.string({ unit: piece, maxLength: 12 }),
      fc.string({ unit: piece, maxLength: 10 }).map((t) => `/api/v2/owners/${t}`),
      fc.tuple(accepted, accepted).map(([owner, id]) => buildTarget(plan, { owner, id })),
    );
    fc.assert(
      fc.property(target, (t) => {
        expect(targetEscapes(plan, t)).toBe(byUrlParser(t));
      }),
      { numRuns: 5_000 },
    );
    for (const t of ['/api/v2/owners/./things/1', '/api/v2/owners/%2E%2e/things/1', '//x/api']) {
      expect(targetEscapes(plan, t)).toBe(byUrlParser(t));
      expect(targetEscapes(plan, t)).toBeDefined();
    }
  });

  it('keep every query value as one value, arrays as repeated keys in caller order', () => {
    const queryValue = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.string({ unit: fc.constantFrom('&', '=', '#', '?', '+', '%', ' ', '/', 'a', 'é') }),
    );
    fc.assert(
      fc.property(fc.array(queryValue, { maxLength: 6 }), queryValue, (tag, q) => {
        const target = buildTarget(plan, { owner: 'o', id: 'i', tag, q });
        expect(targetEscapes(plan, target)).toBeUndefined();
        const query = new URL(target, plan.origin).searchParams;
        expect([...query.keys()]).toEqual([...tag.map(() => 'tag'), 'search']);
        expect(query.getAll('tag')).toEqual(tag);
        expect(query.get('search')).toBe(q);
      }),
      { numRuns: 500 },
    );
  });
});

const MIXED_SPEC = (baseUrl: string): string => `
wrap "urls" version="1.0.0"
base-url "${baseUrl}"
can get file {
    describe "One file of one owner, in a format, with tags."
    path "/owners/{owner}/files/{name}.{ext}/v{rev}-{tags}/{ids}" {
        rev "integer"
        tags "string[]"
        ids "integer[]"
    }
}
`;

describe('upstream URLs built for segments that mix literal text and values, and arrays', () => {
  const base = 'http://127.0.0.1:9/api/v2';
  const result = compileSpecText(MIXED_SPEC(base), 'mixed.mcp.kdl');
  if (!result.compiled) throw new Error(JSON.stringify(result.diagnostics));
  const d = result.compiled.tools[0]!;
  const backend = d.backend as HttpBackend;
  const plan = planUrl(backend, d.arguments, []);
  const segments = mixedSegments(backend.path);
  const pathArgs = ['owner', 'name', 'ext', 'rev', 'tags', 'ids'];
  const items = fc.array(accepted, { minLength: 1, maxLength: 5 });
  const ints = fc.array(fc.integer({ min: -1000, max: 1000 }), { minLength: 1, maxLength: 5 });

  it('compiles the mixed segments of the template once, as literal and parameter pieces', () => {
    expect(segments).toEqual([
      [{ param: 'name' }, { literal: '.' }, { param: 'ext' }],
      [{ literal: 'v' }, { param: 'rev' }, { literal: '-' }, { param: 'tags' }],
    ]);
  });

  it('stay on the origin and prefix; each value and item stays inside its own segment', () => {
    fc.assert(
      fc.property(
        fc.record({ owner: accepted, name: accepted, ext: accepted, tags: items, ids: ints }),
        fc.integer(),
        (values, rev) => {
          const args = { ...values, rev };
          expect(gatePathValues(pathArgs, args, segments)).toBeUndefined();
          const target = buildTarget(plan, args);
          expect(targetEscapes(plan, target)).toBeUndefined();
          const url = new URL(target, plan.origin);
          expect(url.origin).toBe(plan.origin);
          expect(url.pathname).toBe(target);
          const parts = target.split('/');
          expect(parts).toHaveLength(9);
          expect(parts.slice(0, 4)).toEqual(['', 'api', 'v2', 'owners']);
          expect(parts[5]).toBe('files');
          const enc = encodeURIComponent;
          expect(parts[6]).toBe(`${enc(values.name)}.${enc(values.ext)}`);
          expect(parts[6]).not.toMatch(/^\.\.?$/);
          expect(parts[7]).toBe(`v${rev}-${values.tags.map(enc).join(',')}`);
          // Commas inside an item are %2C: the segment splits back into the caller's items.
          expect(parts[7]!.slice(`v${rev}-`.length).split(',').map(decodeURIComponent)).toEqual(
            values.tags,
          );
          expect(parts[8]).toBe(values.ids.join(','));
          for (const p of [parts[4]!, parts[6]!, ...parts[7]!.split(',')])
            expect(p).toMatch(ENCODED_SEGMENT);
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('refuse any array whose item the metachar gate rejects, naming the item', () => {
    fc.assert(
      fc.property(items, rejected, fc.nat(), (good, bad, at) => {
        const tags = [...good];
        const i = at % (tags.length + 1);
        tags.splice(i, 0, bad);
        const args = { owner: 'o', name: 'n', ext: 'e', rev: 1, tags, ids: [1] };
        const refused = gatePathValues(pathArgs, args, segments);
        expect(refused?.code).toBe('PATH_VALUE_REJECTED');
        expect(refused?.message).toContain(`path argument tags[${i}]`);
      }),
      { numRuns: 500 },
    );
  });

  it('refuse a built mixed segment that is "." or "..", whatever put it there', () => {
    // Values that pass the gate cannot make one (a value is never empty, "." or ".."):
    // this is the segment-level check behind them, fed values the gate never lets by.
    const dotted = [{ param: 'a' }, { literal: '.' }, { param: 'b' }] as const;
    expect(builtSegmentProblem(dotted, { a: '', b: '' })?.message).toBe(
      'path arguments a, b make the segment {a}.{b} ".", a relative path segment',
    );
    expect(builtSegmentProblem(dotted, { a: '.', b: '' })?.message).toContain('".."');
    expect(builtSegmentProblem(dotted, { a: 'x', b: '' })).toBeUndefined();
    expect(builtSegmentProblem(dotted, { a: '.' })).toBeUndefined(); // b not given yet
    fc.assert(
      fc.property(accepted, accepted, (a, b) => {
        expect(builtSegmentProblem(dotted, { a, b })).toBeUndefined();
      }),
      { numRuns: 1_000 },
    );
  });
});

describe('path values through the running gateway', () => {
  let upstream: Upstream;
  let gateway: TestGateway;

  useGatewayOnUpstream(
    (url) => specText(`${url}/api/v2`),
    { env: { URL_TOKEN: TOKEN } },
    (s) => ({ upstream, gw: gateway } = s),
  );

  it('sends nothing upstream for any value the metachar gate rejects', async () => {
    await fc.assert(
      fc.asyncProperty(rejected, fc.boolean(), async (bad, inOwner) => {
        upstream.requests.length = 0;
        const args = inOwner ? { owner: bad, id: 'fine' } : { owner: 'fine', id: bad };
        const res = await postJson(`${gateway.url}/api/get_thing`, args);
        expect(res.status).toBe(400);
        expect((res.json as { error: { code: string } }).error.code).toBe('PATH_VALUE_REJECTED');
        expect(upstream.requests).toHaveLength(0);
        expect(res.text).not.toContain(TOKEN);
      }),
      { numRuns: 150 },
    );
    expect(gateway.logs()).not.toContain(TOKEN);
  });

  it('delivers every accepted value to the upstream as exactly one segment', async () => {
    await fc.assert(
      fc.asyncProperty(accepted, async (id) => {
        upstream.requests.length = 0;
        const res = await postJson(`${gateway.url}/api/get_thing`, { owner: 'acme', id });
        expect(res.status).toBe(200);
        expect(upstream.requests).toHaveLength(1);
        const seen = upstream.requests[0]!;
        expect(seen.headers.host).toBe(new URL(upstream.url).host);
        const segments = seen.path.split('/');
        expect(segments.slice(0, 6)).toEqual(['', 'api', 'v2', 'owners', 'acme', 'things']);
        expect(segments).toHaveLength(7);
        expect(decodeURIComponent(segments[6]!)).toBe(id);
      }),
      { numRuns: 100 },
    );
  });
});
