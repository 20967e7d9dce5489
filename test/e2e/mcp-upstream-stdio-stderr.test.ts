/**
 * A stdio child that floods its stderr, end to end through the gateway (issue 37: one
 * call wrote 4.3 MB of log). The recording fixture's `stderr-flood` tool writes 100,000
 * numbered lines before it answers; the gateway's log must hold a bounded number of
 * them and summaries that count every other line, and the call must be served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import {
  childrenRunning,
  eventually,
  gatewayEnv,
  kdl,
  NODE,
  rest,
} from '../helpers/stdio-children.js';

const FIXTURE = new URL('../fixtures/mcp-upstream/recording-server.mjs', import.meta.url).pathname;
const LINES = 100_000;

const SPEC = `wrap "stderr-e2e" version="1.0.0"

mcp-server "rec" {
    command ${kdl(NODE)} ${kdl(FIXTURE)}
}

can run stderr-flood {
    describe "Write many lines to the child's stderr."
    tool "rec" "stderr-flood"
    args {
        lines "integer" required=#true min=1 max=${LINES}
    }
}

can send note {
    describe "Echo a note."
    tool "rec" "echo"
    args {
        text "string" required=#true
    }
}
`;

let gw: TestGateway;

beforeAll(async () => {
  gw = await startGateway(SPEC, { env: gatewayEnv() });
  await eventually(async () => {
    const r = (await (await fetch(`${gw.url}/readyz`)).json()) as { servers?: { rec?: string } };
    return r.servers?.rec === 'up';
  });
});

afterAll(async () => {
  await gw?.close();
  expect(childrenRunning(FIXTURE)).toEqual([]);
});

/** The flood's lines the log holds, and what its summaries say was dropped. */
function tally(logs: string) {
  const messages = logs
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => String((JSON.parse(l) as { msg?: unknown }).msg ?? ''));
  const logged = messages
    .filter((m) => m.startsWith('mcp-server rec stderr: flood line '))
    .map((m) => m.slice('mcp-server rec stderr: '.length));
  const summaries = messages.filter((m) => m.startsWith('mcp-server rec: stderr: '));
  let dropped = 0;
  let droppedBytes = 0;
  for (const s of summaries) {
    const [, lines, bytes] = /^mcp-server rec: stderr: (\d+) lines \((\d+) bytes\) dropped/.exec(
      s,
    )!;
    dropped += Number(lines);
    droppedBytes += Number(bytes);
  }
  return { logged, summaries, dropped, droppedBytes };
}

describe('a stdio child that floods its stderr', () => {
  it('costs the log a bounded number of its lines and a summary counting every other, and its call is served', async () => {
    const r = await rest(gw.url, 'run_stderr_flood', { lines: LINES });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ result: { written: LINES } });

    // Every line written is either in the log or counted by a summary.
    const t = await eventually(async () => {
      const now = tally(gw.logs());
      return now.logged.length + now.dropped === LINES ? now : undefined;
    }, 60_000);
    expect(t.logged.length).toBeGreaterThan(0);
    expect(t.logged.length).toBeLessThan(2_000);
    expect(t.summaries[0]).toMatch(
      /^mcp-server rec: stderr: \d+ lines \(\d+ bytes\) dropped in the last \d+\.\d s, over the log's budget of 200 lines at once and 10 a second$/,
    );
    // The byte counts add up too: the lines the flood wrote, less those logged.
    let written = 0;
    for (let i = 0; i < LINES; i += 1) written += `flood line ${i}`.length;
    const loggedBytes = t.logged.reduce((n, l) => n + l.length, 0);
    expect(t.droppedBytes).toBe(written - loggedBytes);
    // The first lines of the flood are the ones logged (the burst), in order.
    expect(t.logged.slice(0, 3)).toEqual(['flood line 0', 'flood line 1', 'flood line 2']);

    const next = await rest(gw.url, 'send_note', { text: 'after the flood' });
    expect(next.status).toBe(200);
    expect(next.json).toMatchObject({ result: { received: { text: 'after the flood' } } });
  }, 90_000);
});
