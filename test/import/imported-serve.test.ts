import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { postJson, startGateway, type TestGateway } from '../helpers/gateway.js';
import { startUpstream, type Upstream } from '../helpers/upstream.js';
import { checkErrors, draft, EXAMPLES, GITHUB } from './draft-helpers.js';

// A draft is only useful if it serves: the Petstore (OpenAPI 3.0, with --writes) and
// GitHub's list_repo_issues, imported and served against a recording upstream.
describe('an imported spec, served', () => {
  const TOKEN = 'pet-token-0123456789';
  let upstream: Upstream;
  let pets: TestGateway;
  let github: TestGateway;

  beforeAll(async () => {
    upstream = await startUpstream((req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ok: true }));
    });
    const petstore = await draft(join(EXAMPLES, '3.0', 'json', 'petstore.json'), {
      writes: true,
      baseUrl: `${upstream.url}/v2`,
    });
    const issues = await draft(GITHUB, {
      include: ['issues/list-for-repo'],
      baseUrl: upstream.url,
    });
    expect(checkErrors(petstore.text)).toEqual([]);
    expect(checkErrors(issues.text)).toEqual([]);
    pets = await startGateway(petstore.text, { env: { PETSTORE_TOKEN: TOKEN } });
    github = await startGateway(issues.text);
  }, 120_000);

  afterAll(async () => {
    await pets?.close();
    await github?.close();
    await upstream?.close();
  });

  async function call(gw: TestGateway, tool: string, args: object) {
    const before = upstream.requests.length;
    const reply = await postJson(`${gw.url}/api/${tool}`, args);
    return { reply, sent: upstream.requests.slice(before) };
  }

  it('sends a query array as repeated keys, with the credential from the environment', async () => {
    const { reply, sent } = await call(pets, 'find_pet_by_status', {
      status: ['available', 'sold'],
    });
    expect(reply.status).toBe(200);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.method).toBe('GET');
    expect(sent[0]!.url).toBe('/v2/pet/findByStatus?status=available&status=sold');
    expect(sent[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(sent[0]!.body).toBe('');
  });

  it('fills a typed path parameter and sends DELETE for delete_pet', async () => {
    const { reply, sent } = await call(pets, 'delete_pet', { petId: 7 });
    expect(reply.status).toBe(200);
    expect([sent[0]!.method, sent[0]!.url, sent[0]!.body]).toEqual(['DELETE', '/v2/pet/7', '']);
    expect(sent[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it('sends a JSON body with nested objects and an object array', async () => {
    const { reply, sent } = await call(pets, 'add_pet', {
      name: 'Rex',
      photoUrls: ['https://img.example.com/rex.png'],
      category: { id: 1, name: 'dogs' },
      tags: [{ id: 2, name: 'good' }],
      status: 'available',
    });
    expect(reply.status).toBe(200);
    expect(sent[0]!.method).toBe('POST');
    expect(sent[0]!.url).toBe('/v2/pet');
    expect(sent[0]!.headers['content-type']).toBe('application/json');
    // In the order the draft declares the fields (the document's order), not the caller's.
    expect(sent[0]!.body).toBe(
      '{"category":{"id":1,"name":"dogs"},"name":"Rex","photoUrls":["https://img.example.com/rex.png"],"tags":[{"id":2,"name":"good"}],"status":"available"}',
    );
  });

  it('sends a form body for an operation the document gives as urlencoded', async () => {
    const { reply, sent } = await call(pets, 'update_pet_with_form', {
      petId: 7,
      name: 'Rex II',
      status: 'sold',
    });
    expect(reply.status).toBe(200);
    expect([sent[0]!.method, sent[0]!.url]).toEqual(['POST', '/v2/pet/7']);
    expect(sent[0]!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(sent[0]!.body).toBe('name=Rex+II&status=sold');
  });

  it('refuses what the document does not declare, or a value of the wrong type, before calling upstream', async () => {
    const undeclared = await call(pets, 'get_pet', { petId: 7, admin: true });
    expect(undeclared.reply.status).toBe(400);
    expect(undeclared.reply.text).toContain('admin');
    expect(undeclared.sent).toHaveLength(0);
    const badEnum = await call(pets, 'find_pet_by_status', { status: ['lost'] });
    expect(badEnum.reply.status).toBe(400);
    expect(badEnum.sent).toHaveLength(0);
    const stringId = await call(pets, 'get_pet', { petId: '7' });
    expect(stringId.reply.status).toBe(400);
    expect(stringId.sent).toHaveLength(0);
  });

  it("serves GitHub's list_repo_issues with the document's defaults filled in", async () => {
    const { reply, sent } = await call(github, 'list_repo_issues', {
      owner: 'acme',
      repo: 'rocket',
      labels: 'bug',
      since: '2026-01-01T00:00:00Z',
    });
    expect(reply.status).toBe(200);
    expect(sent[0]!.method).toBe('GET');
    expect(sent[0]!.url).toBe(
      '/repos/acme/rocket/issues?state=open&labels=bug&sort=created&direction=desc&since=2026-01-01T00%3A00%3A00Z&per_page=30&page=1',
    );
    expect(sent[0]!.headers.authorization).toBeUndefined();
  });
});
