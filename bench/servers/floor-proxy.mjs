// Floor for an HTTP grant call: a bare fastify POST route that forwards to the
// upstream (UPSTREAM_URL + UPSTREAM_PATH) through an undici Pool and answers its body.
import Fastify from 'fastify';
import { Pool } from 'undici';

const upstream = new URL(process.env.UPSTREAM_URL);
const path = process.env.UPSTREAM_PATH ?? '/';
const pool = new Pool(upstream.origin, { connections: 256, keepAliveTimeout: 10_000 });
const app = Fastify({ logger: false });
app.post('/call', async (_req, reply) => {
  const res = await pool.request({ path, method: 'GET' });
  const text = await res.body.text();
  return reply.code(res.statusCode).type('application/json').send(text);
});
const url = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${JSON.stringify({ url })}\n`);
process.on(
  'SIGTERM',
  () =>
    void app
      .close()
      .then(() => pool.close())
      .then(() => process.exit(0)),
);
