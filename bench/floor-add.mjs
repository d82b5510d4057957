// The floor of any job-accepting HTTP API: a bare http server that reads a POST's JSON body,
// adds it as it is to a BullMQ queue (bench-floor-http, under FLOOR_PREFIX) and answers 202 with
// the job id. No routing, auth, validation, reservation or record. Used by bench/accept.ts.
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';

const connection = new Redis(process.env.FLOOR_REDIS, { maxRetriesPerRequest: null });
const queue = new Queue('bench-floor-http', { connection, prefix: process.env.FLOOR_PREFIX });
const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    const id = `floor_${randomUUID().replace(/-/g, '')}`;
    await queue.add('floor', JSON.parse(Buffer.concat(chunks).toString('utf8')), { jobId: id, removeOnComplete: true });
    res.writeHead(202, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: true, data: { id }, meta: {} }));
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${server.address().port}\n`));
process.on('SIGTERM', async () => {
  await queue.obliterate({ force: true }).catch(() => {});
  server.close(() => process.exit(0));
  connection.disconnect();
});
