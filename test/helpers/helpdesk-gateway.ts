/**
 * The helpdesk spec (spec-fixtures.ts) served by the in-process gateway from a temp
 * folder that holds the files it names: `docs/guide.md`, and `docs/pixel.png` when the
 * spec has the pixel. The suites that serve it share this setup, so a file the spec
 * names is written in one place.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, type TestGateway } from './gateway.js';
import { helpdeskSpec, type HelpdeskOptions } from './spec-fixtures.js';
import { answerJson } from './upstream.js';
import { useOnUpstream, type GatewayOnUpstream } from './upstream-fixtures.js';

const PIXEL = join(import.meta.dirname, '..', 'fixtures', 'pixel.png');

export interface HelpdeskGatewayOptions {
  /** The text of `docs/guide.md` (the suite compares reads against it). */
  readonly guide: string;
  /** The gateway's environment: FULL_KEYS and READER_KEYS unless `access: false`. */
  readonly env?: Record<string, string>;
}

/** Starts the gateway; its `close` also removes the folder. */
export async function startHelpdeskGateway(
  spec: HelpdeskOptions,
  opts: HelpdeskGatewayOptions,
): Promise<TestGateway> {
  const folder = mkdtempSync(join(tmpdir(), `beaver-${spec.name}-`));
  const remove = (): void => rmSync(folder, { recursive: true, force: true });
  try {
    mkdirSync(join(folder, 'docs'));
    writeFileSync(join(folder, 'docs', 'guide.md'), opts.guide);
    if (spec.pixel) copyFileSync(PIXEL, join(folder, 'docs', 'pixel.png'));
    // The spec's file paths resolve from its own place, the folder.
    const gw = await startGateway(helpdeskSpec(spec), {
      file: join(folder, 'helpdesk.mcp.kdl'),
      ...(opts.env && { env: opts.env }),
    });
    const shutdown = gw.close.bind(gw);
    return Object.assign(gw, {
      close: async () => {
        try {
          await shutdown();
        } finally {
          remove();
        }
      },
    });
  } catch (err) {
    remove();
    throw err;
  }
}

/** The helpdesk upstream's answer: the ticket the path names, always the same subject. */
export const TICKET_ANSWER = answerJson((req) => ({
  id: Number(req.path.split('/').at(-1)),
  subject: 'Printer on fire',
}));

/**
 * The helpdesk suites' set-up as hooks: an upstream answering TICKET_ANSWER, and the
 * helpdesk served with `<upstream>/api` as its base URL.
 */
export function useHelpdeskOnUpstream(
  spec: Omit<HelpdeskOptions, 'baseUrl'>,
  opts: HelpdeskGatewayOptions,
  take: (started: GatewayOnUpstream) => void,
): void {
  useOnUpstream(
    (url) => startHelpdeskGateway({ ...spec, baseUrl: `${url}/api` }, opts),
    { answer: TICKET_ANSWER },
    take,
  );
}
