/**
 * Which files a document's `$ref`s may name: regular JSON or YAML files inside the
 * document's folder (after symlinks are resolved), of at most 16 MiB. Anything else, a
 * URL included, is a one-line error, and no library reads or fetches anything itself.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ImportError } from '../../src/import/openapi/load-document.js';
import { checkErrors, draft, grantText } from './draft-helpers.js';

/** A folder holding `api/openapi.json`, whose query parameter's schema is `$ref: ref`. */
function documentWithRef(ref: string, swagger = false): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'beaver-refs-'));
  mkdirSync(join(dir, 'api'));
  const param = swagger
    ? { name: 'kind', in: 'query', type: 'string', description: { $ref: ref } }
    : { name: 'kind', in: 'query', schema: { $ref: ref } };
  const doc = {
    ...(swagger ? { swagger: '2.0' } : { openapi: '3.0.3' }),
    info: { title: 'Refs', version: '1' },
    paths: {
      '/things': {
        get: {
          operationId: 'listThings',
          parameters: [param],
          responses: { 200: { description: 'ok' } },
        },
      },
    },
  };
  const file = join(dir, 'api', 'openapi.json');
  writeFileSync(file, JSON.stringify(doc));
  return { dir, file };
}

/** The refusal of a $ref outside the document's folder: it names the folder and --ref-root. */
function outside(file: string, ref: string): string {
  return `${file}: the $ref "${ref}" is outside ${dirname(file)}; pass --ref-root <dir> to allow refs under a parent folder`;
}

async function refusal(file: string): Promise<string> {
  const err = await draft(file).then(
    (r) => r,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ImportError);
  const message = (err as ImportError).message;
  expect(message).not.toContain('\n');
  return message;
}

describe('a $ref to a file', () => {
  it('inside the document folder is followed', async () => {
    const r = await draft(join(import.meta.dirname, 'fixtures', 'refs', 'openapi.yaml'));
    expect(checkErrors(r.text)).toEqual([]);
    expect(grantText(r.text, 'GET /things (listThings)')).toContain(
      '        kind "string" describe="The kind of thing." {\n            enum "small" "large"\n',
    );
  });

  it('given as an absolute path is refused, and its text is not read', async () => {
    const { file } = documentWithRef('/etc/passwd');
    expect(await refusal(file)).toBe(outside(file, '/etc/passwd'));
  });

  it('that climbs out with ../ is refused', async () => {
    const { dir, file } = documentWithRef('../secret.yaml');
    writeFileSync(join(dir, 'secret.yaml'), 'type: string\ndescription: SECRET=hunter2\n');
    expect(await refusal(file)).toBe(outside(file, '../secret.yaml'));
  });

  it('given as a file:// URL is refused', async () => {
    const { file } = documentWithRef('file:///etc/passwd');
    expect(await refusal(file)).toBe(
      `${file}: the $ref "file:///etc/passwd" is a URL; only files inside the document's folder are followed`,
    );
  });

  it('through a symlink that points out of the folder is refused', async () => {
    const { dir, file } = documentWithRef('./link.yaml');
    writeFileSync(join(dir, 'outside.yaml'), 'type: string\ndescription: SECRET=hunter2\n');
    symlinkSync(join(dir, 'outside.yaml'), join(dir, 'api', 'link.yaml'));
    expect(await refusal(file)).toBe(outside(file, './link.yaml'));
  });

  it('to /dev/zero is refused at once, without reading it', async () => {
    const { file } = documentWithRef('/dev/zero');
    expect(await refusal(file)).toBe(outside(file, '/dev/zero'));
  });

  it('that is a FIFO inside the folder is refused without waiting for a writer', async () => {
    const { dir, file } = documentWithRef('./pipe.yaml');
    execFileSync('mkfifo', [join(dir, 'api', 'pipe.yaml')]);
    expect(await refusal(file)).toBe(`${file}: the $ref "./pipe.yaml" is not a regular file`);
  });

  it('over 16 MiB is refused', async () => {
    const { dir, file } = documentWithRef('./big.yaml');
    writeFileSync(
      join(dir, 'api', 'big.yaml'),
      `type: string\ndescription: ${'x'.repeat(16 * 1024 * 1024)}\n`,
    );
    expect(await refusal(file)).toBe(`${file}: the $ref "./big.yaml" names a file over 16 MiB`);
  });

  it('that is not JSON or YAML by its name (a .env file) is refused', async () => {
    const { dir, file } = documentWithRef('./.env');
    writeFileSync(join(dir, 'api', '.env'), 'API_TOKEN=hunter2\n');
    expect(await refusal(file)).toBe(
      `${file}: the $ref "./.env" is not a .json, .yaml or .yml file`,
    );
  });

  it('in a Swagger 2.0 document follows the same rule', async () => {
    const { file } = documentWithRef('/etc/passwd', true);
    expect(await refusal(file)).toBe(outside(file, '/etc/passwd'));
  });
});

describe('the document itself', () => {
  it('as a FIFO is refused at once, in one line', async () => {
    const fifo = join(mkdtempSync(join(tmpdir(), 'beaver-refs-')), 'openapi.json');
    execFileSync('mkfifo', [fifo]);
    expect(await refusal(fifo)).toBe(`${fifo}: is not a regular file`);
  });
});

describe('a $ref to an http(s) URL', () => {
  it('is refused, and nothing is fetched', async () => {
    let requests = 0;
    const server = createServer((_req, res) => {
      requests += 1;
      res.setHeader('content-type', 'application/yaml');
      res.end('type: string\n');
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/kind.yaml`;
      const { file } = documentWithRef(url);
      expect(await refusal(file)).toBe(
        `${file}: the $ref "${url}" is a URL; only files inside the document's folder are followed`,
      );
      expect(requests).toBe(0);
    } finally {
      await new Promise((ok) => server.close(ok));
    }
  });
});
