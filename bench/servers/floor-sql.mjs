// Floor for a sql grant call: a bare fastify POST route running one named (prepared)
// statement with `pg` (DATABASE_URL, POOL connections) and answering the rows as JSON.
import Fastify from 'fastify';
import pg from 'pg';

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.POOL ?? 10),
});
// A connection dropped by a Postgres restart must not end the process.
pool.on('error', () => {});
const text = process.env.SQL;
const app = Fastify({ logger: false });
app.post('/call', async (req, reply) => {
  const { rows } = await pool.query({ name: 'floor_stmt', text, values: [req.body.id] });
  return reply.type('application/json').send(JSON.stringify(rows));
});
const url = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${JSON.stringify({ url })}\n`);
process.on(
  'SIGTERM',
  () =>
    void app
      .close()
      .then(() => pool.end())
      .then(() => process.exit(0)),
);
