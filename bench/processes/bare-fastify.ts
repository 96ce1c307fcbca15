/**
 * The baseline of the ingest bench, in a process of its own as kubewhy is: a bare Fastify
 * route that parses the same JSON body and answers 202. Prints its URL.
 */
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';

const app = Fastify({ bodyLimit: 32 * 1024 * 1024 });
app.post('/bare', async (_request, reply) => reply.code(202).send({ runs: [] }));
await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`listening on http://127.0.0.1:${(app.server.address() as AddressInfo).port}\n`);
const stop = (): void => void app.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
