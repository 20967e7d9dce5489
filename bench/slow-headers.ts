/**
 * How long a slow-header socket is held (slowloris): starts the gateway in-process on
 * 127.0.0.1:0, opens sockets (at staggered times) that send a header one byte every
 * 500 ms and never finish it, plus one that sends nothing, and prints how long each
 * lived and what it got back. The header timeout is 10 s, checked every second.
 *
 *   npx tsx bench/slow-headers.ts
 */
import { connect } from 'node:net';
import { compileSpecText } from '../src/compiler/load-spec.js';
import { startServer } from '../src/server/start.js';

const compiled = compileSpecText(
  'wrap "slow" version="1.0.0"\nbase-url "http://127.0.0.1:1/v1"\ncan list things {\n    path "/things"\n}\n',
  'slow.mcp.kdl',
).compiled;
if (!compiled) throw new Error('the bench spec does not compile');
const server = await startServer({
  spec: compiled,
  listen: { host: '127.0.0.1', port: 0, loopback: true },
  logger: false,
  env: {},
});
const port = Number(new URL(server.url).port);
const HEAD = `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ${'a'.repeat(10_000)}`;

/** Resolves with the socket's lifetime and first answer line once the server closes it. */
function socketLife(startAfterMs: number, trickle: boolean): Promise<string> {
  return new Promise((resolve) =>
    setTimeout(() => {
      const t0 = performance.now();
      let got = '';
      let i = 0;
      let timer: NodeJS.Timeout | undefined;
      const socket = connect({ host: '127.0.0.1', port }, () => {
        if (trickle)
          timer = setInterval(() => {
            if (!socket.destroyed) socket.write(HEAD[i++ % HEAD.length]!);
          }, 500);
      });
      socket.setEncoding('utf8');
      socket.on('data', (c: string) => (got += c));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearInterval(timer);
        const s = ((performance.now() - t0) / 1000).toFixed(1);
        resolve(`${trickle ? 'trickling' : 'silent   '} ${s} s  ${got.split('\r\n')[0] ?? ''}`);
      });
    }, startAfterMs),
  );
}

const lives = await Promise.all([
  ...[0, 3_000, 7_000, 13_000, 21_000].map((ms) => socketLife(ms, true)),
  socketLife(0, false),
]);
process.stdout.write(`${lives.join('\n')}\n`);
await server.shutdown(1_000);
