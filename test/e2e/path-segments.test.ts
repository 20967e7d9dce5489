import { describe, expect, it } from 'vitest';
import { postJson, type TestGateway } from '../helpers/gateway.js';
import type { Upstream } from '../helpers/upstream.js';
import { useGatewayOnUpstream } from '../helpers/upstream-fixtures.js';
import { specHead } from '../helpers/spec-fixtures.js';

// Segments that mix literal text and parameters (`{id}.json`), and array path parameters
// (items comma-joined in one segment), through a real gateway to a real upstream: the
// upstream receives exactly the raw path the template says, and hostile values are
// refused with nothing sent (security.md, "Path values").

const TOKEN = 'path_segments_secret_7781';

function specText(baseUrl: string): string {
  return `
${specHead('segments', baseUrl, { bearerEnv: 'SEG_TOKEN' })}
can get item {
    describe "One item as JSON."
    path "/items/{id}.json"
}
can get job {
    describe "A job's cancel action."
    path "/jobs/{name}:cancel"
}
can get docket {
    describe "The docket in a format."
    path "/docket.{format}"
}
can get range {
    describe "A range of two ends."
    path "/ranges/{a}-{b}"
}
can get batch {
    describe "Some items of some batches."
    path "/batches/{ids}/items/{codes}.csv" {
        ids "integer[]"
        codes "string[]" max-items=5
    }
}
`;
}

describe('path segments with literal text and array path parameters', () => {
  let upstream: Upstream;
  let gateway: TestGateway;

  useGatewayOnUpstream(
    (url) => specText(`${url}/api/v2`),
    { env: { SEG_TOKEN: TOKEN } },
    (s) => {
      ({ upstream, gw: gateway } = s);
    },
  );

  const sent: [tool: string, args: Record<string, unknown>, rawPath: string][] = [
    ['get_item', { id: '42' }, '/api/v2/items/42.json'],
    ['get_item', { id: 'a b,c' }, '/api/v2/items/a%20b%2Cc.json'],
    ['get_item', { id: '...' }, '/api/v2/items/....json'],
    ['get_item', { id: '@evil.example:80' }, '/api/v2/items/%40evil.example%3A80.json'],
    ['get_job', { name: 'nightly' }, '/api/v2/jobs/nightly:cancel'],
    ['get_job', { name: 'x:y' }, '/api/v2/jobs/x%3Ay:cancel'],
    ['get_docket', { format: 'json' }, '/api/v2/docket.json'],
    ['get_range', { a: '1', b: '-2' }, '/api/v2/ranges/1--2'],
    ['get_batch', { ids: [7], codes: ['z'] }, '/api/v2/batches/7/items/z.csv'],
    [
      'get_batch',
      { ids: [1, 2, -3], codes: ['a,b', 'c d', 'é', '..x'] },
      '/api/v2/batches/1,2,-3/items/a%2Cb,c%20d,%C3%A9,..x.csv',
    ],
  ];

  it.each(sent)('%s %j reaches the upstream as exactly %s', async (tool, args, rawPath) => {
    upstream.requests.length = 0;
    const res = await postJson(`${gateway.url}/api/${tool}`, args);
    expect(res.status).toBe(200);
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0]!.path).toBe(rawPath);
    expect(upstream.requests[0]!.headers.host).toBe(new URL(upstream.url).host);
  });

  const refused: [tool: string, args: Record<string, unknown>, code: string, names: string][] = [
    ['get_item', { id: '..' }, 'PATH_VALUE_REJECTED', 'id'],
    ['get_item', { id: '.' }, 'PATH_VALUE_REJECTED', 'id'],
    ['get_item', { id: '../../admin' }, 'PATH_VALUE_REJECTED', 'id'],
    ['get_item', { id: '%2e%2e' }, 'PATH_VALUE_REJECTED', 'id'],
    ['get_item', { id: 'a\\b' }, 'PATH_VALUE_REJECTED', 'id'],
    ['get_item', { id: 'x?y=1' }, 'PATH_VALUE_REJECTED', 'id'],
    ['get_item', { id: 'a\r\nHost: evil.example' }, 'PATH_VALUE_REJECTED', 'id'],
    ['get_item', { id: '\u202egnp' }, 'PATH_VALUE_REJECTED', 'id'],
    ['get_item', { id: '' }, 'PATH_VALUE_REJECTED', 'id'],
    ['get_item', { id: 'x'.repeat(1025) }, 'INVALID_ARGUMENTS', 'id'],
    ['get_docket', { format: '.' }, 'PATH_VALUE_REJECTED', 'format'],
    ['get_docket', { format: '/../secret' }, 'PATH_VALUE_REJECTED', 'format'],
    ['get_range', { a: '..', b: 'x' }, 'PATH_VALUE_REJECTED', 'a'],
    ['get_range', { a: '1', b: '' }, 'PATH_VALUE_REJECTED', 'b'],
    ['get_batch', { ids: [1], codes: ['ok', '..'] }, 'PATH_VALUE_REJECTED', 'codes[1]'],
    ['get_batch', { ids: [1], codes: ['a/b'] }, 'PATH_VALUE_REJECTED', 'codes[0]'],
    ['get_batch', { ids: [1], codes: [''] }, 'PATH_VALUE_REJECTED', 'codes[0]'],
    ['get_batch', { ids: [1], codes: ['%2F'] }, 'PATH_VALUE_REJECTED', 'codes[0]'],
    ['get_batch', { ids: [1], codes: ['\u0000'] }, 'PATH_VALUE_REJECTED', 'codes[0]'],
    ['get_batch', { ids: [1], codes: [] }, 'INVALID_ARGUMENTS', 'codes'],
    ['get_batch', { ids: [], codes: ['a'] }, 'INVALID_ARGUMENTS', 'ids'],
    ['get_batch', { ids: ['1'], codes: ['a'] }, 'INVALID_ARGUMENTS', 'ids'],
    ['get_batch', { ids: [1], codes: ['x'.repeat(1025)] }, 'INVALID_ARGUMENTS', 'codes'],
    [
      'get_batch',
      { ids: [1], codes: ['a', 'b', 'c', 'd', 'e', 'f'] },
      'INVALID_ARGUMENTS',
      'codes',
    ],
  ];

  it.each(refused)(
    '%s %j is refused with %s naming %s, and nothing reaches the upstream',
    async (tool, args, code, names) => {
      upstream.requests.length = 0;
      const res = await postJson(`${gateway.url}/api/${tool}`, args);
      expect(res.status).toBe(400);
      const error = (res.json as { error: { code: string; message: string } }).error;
      expect(error.code).toBe(code);
      expect(error.message).toContain(names);
      expect(upstream.requests).toHaveLength(0);
      expect(res.text).not.toContain(TOKEN);
    },
  );
});
