import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImportResult } from '../../src/import/openapi/import-openapi.js';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { startUpstream, type Upstream } from '../helpers/upstream.js';
import { checkErrors, draft, grantText } from './draft-helpers.js';

// Paths with literal text beside a parameter in one segment (`/items/{id}.json`,
// `/docket.{format}`, `/ranges/{from}-{to}`) and array path parameters (style simple,
// comma-joined) are drafted, not skipped; a draft of them serves the exact raw paths.
const DOC = join(import.meta.dirname, 'fixtures', 'public-record', 'path-segments.json');

describe('importing paths with mixed segments and array path parameters', () => {
  let result: ImportResult;
  let upstream: Upstream;
  let gateway: TestGateway;

  beforeAll(async () => {
    upstream = await startUpstream();
    result = await draft(DOC, { baseUrl: `${upstream.url}/v1` });
    gateway = await startGateway(result.text);
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  it('drafts every path whose values each sit inside one segment, and the draft checks', () => {
    expect(checkErrors(result.text)).toEqual([]);
    expect(result.summary.imported).toBe(5);
    expect(grantText(result.text, 'GET /items/{id}.json (getItemJson)')).toContain(
      'can get item {\n    describe "One item as JSON."\n    path "/items/{id}.json" {',
    );
    expect(grantText(result.text, 'GET /docket.{format}')).toContain(
      'can get docket {\n    describe "The docket in a format."\n    path "/docket.{format}" {',
    );
    expect(grantText(result.text, 'GET /ranges/{from}-{to}')).toContain(
      '    path "/ranges/{from}-{to}" {\n        from "integer" min=1\n        to "integer" min=1\n    }',
    );
  });

  it('types an array path parameter as string[] or integer[], at least one item', () => {
    // The document's minItems 0 is not kept: an empty array would empty the segment.
    expect(grantText(result.text, 'GET /batches/{ids}')).toContain(
      '    path "/batches/{ids}" {\n        ids "integer[]" min=1 max-items=20\n    }',
    );
    expect(grantText(result.text, 'GET /cases/{numbers}/parties')).toContain(
      'can list case-parties {\n    describe "The parties of some cases."\n    path "/cases/{numbers}/parties" {\n        numbers "string[]" max-length=40\n    }',
    );
  });

  it('still skips adjacent parameters, label-style arrays and arrays of numbers, saying why', () => {
    expect([...result.summary.skipped]).toEqual([
      ['a path parameter array in style label: grants send path arrays comma-joined', 1],
      [
        'its path cannot be a template: it has the segment "{left}{right}", which puts {left} and {right} side by side: literal text must separate two parameters, or the upstream cannot tell where one value ends',
        1,
      ],
      [
        'a path parameter is an array of number; a path segment holds strings or integers, comma-joined',
        1,
      ],
    ]);
    expect(result.text).toContain(
      '// GET /labels/{names}\n// skipped: path parameter names is an array in style label\n',
    );
  });

  const served: [tool: string, args: object, raw: string][] = [
    ['get_item', { id: 'A 1' }, '/v1/items/A%201.json'],
    ['get_docket', { format: 'xml' }, '/v1/docket.xml'],
    ['get_range', { from: 3, to: 9 }, '/v1/ranges/3-9'],
    ['get_batch', { ids: [4, 5, 6] }, '/v1/batches/4,5,6'],
    ['list_case_parties', { numbers: ['1:23-cv-1', 'x,y'] }, '/v1/cases/1%3A23-cv-1,x%2Cy/parties'],
  ];

  it.each(served)('serves %s %j as exactly %s', async (tool, args, raw) => {
    upstream.requests.length = 0;
    const res = await postJson(`${gateway.url}/api/${tool}`, args);
    expect(res.status).toBe(200);
    expect(upstream.requests.map((r) => r.path)).toEqual([raw]);
  });

  it('refuses an empty array and a traversal item without calling the upstream', async () => {
    upstream.requests.length = 0;
    expect((await postJson(`${gateway.url}/api/get_batch`, { ids: [] })).status).toBe(400);
    const res = await postJson(`${gateway.url}/api/list_case_parties`, { numbers: ['a', '..'] });
    expect(res.status).toBe(400);
    expect((res.json as { error: { code: string } }).error.code).toBe('PATH_VALUE_REJECTED');
    expect(upstream.requests).toHaveLength(0);
  });
});
