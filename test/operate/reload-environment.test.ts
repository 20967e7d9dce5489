import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';

const GRANT = `
can get ping {
    describe "Answers pong."
    path "/ping"
}`;

describe('reloading a spec that reads variables this process does not have', () => {
  let gw: TestGateway | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await gw?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses the new spec naming every missing variable at once, and the last good spec keeps serving', async () => {
    dir = mkdtempSync(join(tmpdir(), 'beaver-reload-env-'));
    const file = join(dir, 'env.mcp.kdl');
    const top = 'wrap "reload-env" version="1"\nbase-url "http://127.0.0.1:9"\n';
    writeFileSync(file, `${top}${GRANT}\n`);
    gw = await startGateway(readFileSync(file, 'utf8'), { specFile: file, env: {} });
    writeFileSync(
      file,
      `${top}auth bearer env="RELOAD_TOKEN"\naccess {\n    api-key env="RELOAD_KEYS"\n}\n${GRANT}\n`,
    );
    const result = await gw.reload();
    expect(result).toEqual({
      ok: false,
      reason: [
        '2 environment variables the new spec reads are not set:',
        `  RELOAD_TOKEN  ${file}:3  auth bearer`,
        `  RELOAD_KEYS   ${file}:5  access api-key`,
        `set them and reload (\`mcp-beaver check --env ${file}\` lists every variable a spec reads)`,
      ].join('\n'),
    });
    expect(gw.runtime.spec.access).toBeUndefined();
  });
});
