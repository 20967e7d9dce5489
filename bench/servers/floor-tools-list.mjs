// Floor for tools/list: a bare fastify POST route answering the precomputed bytes of
// the gateway's own tools/list response (read from the file named by BODY_FILE).
// Fastify still parses the JSON request body, as any real route would.
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const body = readFileSync(process.env.BODY_FILE);
const app = Fastify({ logger: false });
app.post('/mcp', async (_req, reply) => reply.type('application/json').send(body));
const url = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${JSON.stringify({ url })}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
