/**
 * A body over the 4 MiB limit (issue 37, item 7): the caller must be able to read the
 * 413, not a connection reset. The gateway answers before the body has arrived; if it
 * then closes the socket while the client is still sending, the client's kernel gets a
 * reset and drops the answer it had not read yet. A real client (node:http) posts 6 and
 * 16 MiB, with Content-Length and chunked, to POST /api/<tool> and /mcp, several times,
 * while the machine's cores are busy; each must read 413 in the surface's error shape.
 */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveProcess, type ServeProcess } from './serve-process.js';
import { busyMachine } from '../helpers/busy-machine.js';

const MiB = 1024 * 1024;
const ROUNDS = 4;

let gw: ServeProcess;
let stopBusy: () => Promise<void>;

const SPEC = `
wrap "limits" version="1.0.0"
base-url "http://127.0.0.1:9"
can get thing {
    describe "Anything."
    path "/thing/{id}"
}
`;

beforeAll(async () => {
  gw = await serveProcess(SPEC);
  stopBusy = busyMachine(120_000);
});

afterAll(async () => {
  await stopBusy?.();
  await gw?.stop();
});

interface Outcome {
  status?: number;
  body?: string;
  error?: string;
}

/**
 * POSTs `size` bytes of a JSON string in 64 KiB writes, as a client that keeps sending
 * until it has written everything or the socket fails; resolves with the answer read.
 */
function postHuge(path: string, size: number, chunked: boolean): Promise<Outcome> {
  return new Promise((resolve) => {
    const url = new URL(path, gw.url);
    const req = httpRequest(url, {
      method: 'POST',
      agent: false,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
        ...(chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(size) }),
      },
    });
    let outcome: Outcome | undefined;
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => {
        outcome = { status: res.statusCode!, body };
        resolve(outcome);
      });
      res.on('error', (err) => resolve(outcome ?? { error: (err as Error).message }));
    });
    req.on('error', (err: NodeJS.ErrnoException) =>
      resolve(outcome ?? { error: err.code ?? err.message }),
    );
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const head = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"pad":"');
    let sent = 0;
    const write = (): void => {
      if (sent === 0) {
        req.write(head);
        sent = head.length;
      }
      while (sent < size && !req.destroyed) {
        const piece = chunk.subarray(0, Math.min(chunk.length, size - sent));
        sent += piece.length;
        if (!req.write(piece)) {
          req.once('drain', write);
          return;
        }
      }
      if (!req.destroyed) req.end();
    };
    write();
  });
}

describe.each([
  ['REST', '/api/get_thing'],
  ['MCP', '/mcp'],
])('%s: a body over the limit', (surface, path) => {
  it.each([
    [6, false],
    [16, false],
    [6, true],
    [16, true],
  ])(
    `is answered 413 in the surface's error shape that the client reads, %i MiB (chunked: %s)`,
    async (mib, chunked) => {
      for (let i = 0; i < ROUNDS; i++) {
        const out = await postHuge(path, mib * MiB, chunked);
        expect(out, `${surface} round ${i}`).toMatchObject({ status: 413 });
        const body = JSON.parse(out.body!) as {
          error?: { code: unknown; message?: string };
        };
        if (surface === 'REST') expect(body.error?.code).toBe('PAYLOAD_TOO_LARGE');
        else expect(body).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
      }
    },
    120_000,
  );
});

/**
 * Opens a raw connection, sends a request head declaring `declared` bytes, then body
 * bytes as fast as the socket takes them (or, with `stall`, a byte now and then);
 * resolves with the
 * bytes written when the gateway closed the connection, and the answer's status line.
 */
function hostileUpload(
  declared: number,
  stall: boolean,
): Promise<{ written: number; statusLine: string }> {
  return new Promise((resolve) => {
    const { hostname, port } = new URL(gw.url);
    // Half-open allowed: the gateway's FIN after its answer does not end our side.
    const socket = connect({ port: Number(port), host: hostname, allowHalfOpen: true });
    let written = 0;
    let answer = '';
    const chunk = Buffer.alloc(256 * 1024, 'a');
    const pump = (): void => {
      while (!socket.destroyed && socket.write(chunk)) written += chunk.length;
      if (!socket.destroyed) written += chunk.length;
    };
    socket.on('connect', () => {
      socket.write(
        `POST /api/get_thing HTTP/1.1\r\nHost: ${hostname}:${port}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`,
      );
      if (!stall) {
        pump();
        socket.on('drain', pump);
      } else {
        // A trickle: one byte now and then keeps the connection busy but never ends.
        const trickle = setInterval(() => {
          if (socket.destroyed) clearInterval(trickle);
          else {
            socket.write('a');
            written += 1;
          }
        }, 200);
        socket.once('close', () => clearInterval(trickle));
      }
    });
    socket.on('data', (b: Buffer) => (answer += b.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ written, statusLine: answer.split('\r\n')[0] ?? '' }));
  });
}

describe('a client that never stops sending, or stops without finishing', () => {
  it('is cut off once the gateway has discarded a bounded amount of its body', async () => {
    const out = await hostileUpload(1024 * MiB, false);
    expect(out.statusLine).toBe('HTTP/1.1 413 Payload Too Large');
    // The gateway discards at most 32 MiB; what the kernels buffered comes on top.
    expect(out.written).toBeLessThan(256 * MiB);
  }, 120_000);

  it('is cut off after a bounded time when it trickles its body', async () => {
    const out = await hostileUpload(1024 * MiB, true);
    expect(out.statusLine).toBe('HTTP/1.1 413 Payload Too Large');
  }, 120_000);
});

it('still serves after the oversized bodies', async () => {
  const res = await fetch(`${gw.url}/healthz`);
  expect(res.status).toBe(200);
});
