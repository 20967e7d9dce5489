/**
 * `import openapi --ref-root <dir>`: a repository's document may `$ref` a shared file in a
 * folder above its own (`../common/schemas.yaml`) when the flag names that parent; the
 * rules inside the root stay those of the document's folder (links resolved, no
 * absolute path, no URL, nothing above the root).
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ImportError } from '../../src/import/openapi/load-document.js';
import { runCli } from '../helpers/run-cli.js';
import { checkErrors, draft, grantText } from './draft-helpers.js';

const SHARED = 'type: string\nenum: [small, large]\ndescription: The kind of thing.\n';

/**
 * A repository in a temp folder: `repo/api/openapi.json`, whose query parameter's schema
 * is `$ref: ref`, and `repo/common/schemas.yaml` with the shared schema.
 */
function repository(ref: string): { repo: string; file: string; outside: string } {
  const outside = mkdtempSync(join(tmpdir(), 'beaver-ref-root-'));
  const repo = join(outside, 'repo');
  mkdirSync(join(repo, 'api'), { recursive: true });
  mkdirSync(join(repo, 'common'));
  writeFileSync(join(repo, 'common', 'schemas.yaml'), SHARED);
  const doc = {
    openapi: '3.0.3',
    info: { title: 'Refs', version: '1' },
    paths: {
      '/things': {
        get: {
          operationId: 'listThings',
          parameters: [{ name: 'kind', in: 'query', schema: { $ref: ref } }],
          responses: { 200: { description: 'ok' } },
        },
      },
    },
  };
  const file = join(repo, 'api', 'openapi.json');
  writeFileSync(file, JSON.stringify(doc));
  return { repo, file, outside };
}

async function refusal(file: string, refRoot?: string): Promise<ImportError> {
  const err = await draft(file, refRoot === undefined ? {} : { refRoot }).then(
    (r) => r,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ImportError);
  expect((err as ImportError).message).not.toContain('\n');
  return err as ImportError;
}

describe('a $ref to ../common/schemas.yaml', () => {
  it('is refused without --ref-root, in a message that names the flag', async () => {
    const { repo, file } = repository('../common/schemas.yaml');
    expect((await refusal(file)).message).toBe(
      `${file}: the $ref "../common/schemas.yaml" is outside ${join(repo, 'api')}; pass --ref-root <dir> to allow refs under a parent folder`,
    );
  });

  it('is followed with --ref-root naming the parent folder', async () => {
    const { repo, file } = repository('../common/schemas.yaml');
    const r = await draft(file, { refRoot: repo });
    expect(checkErrors(r.text)).toEqual([]);
    expect(grantText(r.text, 'GET /things (listThings)')).toContain(
      '        kind "string" describe="The kind of thing." {\n            enum "small" "large"\n',
    );
  });

  it(
    'is followed through the command line, and refused there with the flag named',
    {
      timeout: 60_000,
    },
    async () => {
      const { repo, file } = repository('../common/schemas.yaml');
      const refused = await runCli(['import', 'openapi', file]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('pass --ref-root <dir> to allow refs under a parent folder');
      const imported = await runCli(['import', 'openapi', file, '--ref-root', repo]);
      expect(imported.code).toBe(0);
      expect(imported.stdout).toContain('enum "small" "large"');
    },
  );
});

describe('with --ref-root naming a parent folder', () => {
  it('a $ref to /etc/passwd is still refused', async () => {
    const { repo, file } = repository('/etc/passwd');
    expect((await refusal(file, repo)).message).toBe(
      `${file}: the $ref "/etc/passwd" is outside --ref-root ${repo}; only files inside it are followed`,
    );
  });

  it('a $ref that climbs above the root with ../ is still refused', async () => {
    const { repo, file, outside } = repository('../../secret.yaml');
    writeFileSync(join(outside, 'secret.yaml'), 'type: string\ndescription: SECRET=hunter2\n');
    expect((await refusal(file, repo)).message).toBe(
      `${file}: the $ref "../../secret.yaml" is outside --ref-root ${repo}; only files inside it are followed`,
    );
  });

  it('a $ref through a symlink inside the root that points out of it is still refused', async () => {
    const { repo, file, outside } = repository('../common/link.yaml');
    writeFileSync(join(outside, 'secret.yaml'), 'type: string\ndescription: SECRET=hunter2\n');
    symlinkSync(join(outside, 'secret.yaml'), join(repo, 'common', 'link.yaml'));
    expect((await refusal(file, repo)).message).toBe(
      `${file}: the $ref "../common/link.yaml" is outside --ref-root ${repo}; only files inside it are followed`,
    );
  });

  it('a file:// URL is still refused', async () => {
    const { repo, file } = repository(`file://${'/etc/passwd'}`);
    expect((await refusal(file, repo)).message).toBe(
      `${file}: the $ref "file:///etc/passwd" is a URL; only files inside --ref-root ${repo} are followed`,
    );
  });
});

describe('--ref-root itself', () => {
  it('is refused with exit 2 when it does not hold the document', async () => {
    const { file } = repository('../common/schemas.yaml');
    const beside = mkdtempSync(join(tmpdir(), 'beaver-ref-root-'));
    const err = await refusal(file, beside);
    expect(err.exitCode).toBe(2);
    expect(err.message).toBe(
      `--ref-root ${beside} does not hold ${file}; name the document's folder or one above it`,
    );
  });

  it('is refused with exit 2 when it is not a folder that exists', async () => {
    const { repo, file } = repository('../common/schemas.yaml');
    const missing = join(repo, 'nope');
    expect((await refusal(file, missing)).message).toBe(`--ref-root ${missing}: no such folder`);
    expect((await refusal(file, file)).message).toBe(`--ref-root ${file}: not a folder`);
  });

  it('is named in the help of import openapi', { timeout: 60_000 }, async () => {
    const r = await runCli(['import', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--ref-root DIR +The folder \$refs may reach/);
  });
});
