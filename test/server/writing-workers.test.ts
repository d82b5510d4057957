/**
 * Writing jobs run by `bintel worker` processes apart from two API servers
 * (BINTEL_WORKER_IN_PROCESS=0), writing through the OpenAI-compatible adapter against a local
 * chat-completions server started here (no network):
 *
 * - two servers and two workers: every job of a burst completes, each charged exactly its
 *   reservation, and both workers take jobs;
 * - a worker killed (SIGKILL) while its job waits on the model: another worker takes the job
 *   when its lease lapses and completes it; the organization is charged once, nothing stays
 *   reserved;
 * - a model endpoint that keeps failing: the job is retried, then failed and released.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import { startHarness, withOrg, type Harness } from './harness.ts';
import { kill, startWorker as startProcess, stopAll } from '../helpers/workers.ts';
import { pollUntil } from '../helpers/env.ts';

const t = suite('writing workers');
const LOCK_MS = 1500;

let h1: Harness;
let h2: Harness;
let model: Server;
let modelUrl = '';
/** Requests the model endpoint received, by target company. */
const received = new Map<string, number>();

const EMAIL = (company: string) => ({ source_mode: 'inline', channel: 'email', identity: { companyName: 'Northwind Benefits', brandVoice: { avoid: ['synergy'] } }, target: { full_name: 'Dana Whitfield', company_name: company }, sender: { full_name: 'Sam Reyes' } });

/** A `bintel worker` for the servers' namespace, writing through the local model as `model-<tag>`. */
const startWorker = (tag: string) =>
  startProcess({ BINTEL_NAMESPACE: h1.config.namespace, BINTEL_JOB_LOCK_MS: String(LOCK_MS), BINTEL_WRITER_URL: modelUrl, BINTEL_WRITER_MODEL: `model-${tag}`, BINTEL_WRITER_KEY: 'sk-local' }, 4);

/** Polls (long polls) until the job is done. */
async function done(h: Harness, secret: string, id: string): Promise<any> {
  let count = 0;
  for (let i = 0; i < 60; i++) {
    const res = await h.call('GET', `/v1/writing-jobs/${id}?wait_ms=2000&last_event_count=${count}`, { secret });
    assert.is(res.status, 200, JSON.stringify(res.body));
    if (res.body.data.done) return res.body.data;
    count = res.body.data.eventCount;
  }
  throw new Error(`job ${id} not done in two minutes`);
}

t.before(async () => {
  // The model: answers after 50 ms; "Slow Co" after 3 s; "Broken Co" with a 500.
  model = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = JSON.parse(raw) as { model: string; messages: { content: string }[] };
      const ctx = JSON.parse(body.messages[1].content) as { target: { company_name: string } };
      const company = ctx.target.company_name;
      received.set(company, (received.get(company) ?? 0) + 1);
      if (company === 'Broken Co') {
        res.writeHead(500).end('{"error":"down"}');
        return;
      }
      const content = JSON.stringify({ subject: `An idea for ${company}`, body: `Hi Dana,\n\nA short note for ${company} from ${body.model}.\n\nBest,\nSam` });
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content } }], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } }));
      }, company === 'Slow Co' ? 3000 : 50);
    });
  });
  await new Promise<void>((r) => model.listen(0, '127.0.0.1', r));
  modelUrl = `http://127.0.0.1:${(model.address() as { port: number }).port}/v1`;
  // Attempts are fixed when a job is enqueued: by the API servers' configuration.
  const env = { BINTEL_WORKER_IN_PROCESS: '0', BINTEL_JOB_LOCK_MS: String(LOCK_MS), BINTEL_JOB_ATTEMPTS: '2', BINTEL_RATE_LIMIT_PER_MIN: '100000' };
  h1 = await startHarness(env);
  h2 = await startHarness(env);
});
t.after(async () => {
  await stopAll();
  await h1.close();
  await h2.close();
  await new Promise<void>((r) => model.close(() => r()));
});

t('two servers and two workers: a burst of 20 jobs all complete, each charged exactly its reservation, both workers writing', async () => {
  const [wa, wb] = [await startWorker('a'), await startWorker('b')];
  const o = await withOrg(h1, { milli: 1_000_000 });
  const accepted = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? h2 : h1).call('POST', '/v1/writing-jobs', { secret: o.secret, body: EMAIL(`Burst ${i}`) })));
  for (const a of accepted) assert.is(a.status, 202, JSON.stringify(a.body));
  assert.is(await h1.running.services.credits.balance(o.org), 1_000_000 - 20 * 5000);
  const jobs = await Promise.all(accepted.map((a, i) => done(i % 2 ? h1 : h2, o.secret, a.body.data.id)));
  for (const j of jobs) assert.equal([j.status, j.billing.credits_charged], ['completed', 5]);
  const models = new Set(jobs.map((j) => /from (model-\w)/.exec(j.output.body)?.[1]));
  assert.equal([...models].sort(), ['model-a', 'model-b']);
  assert.is(await h1.running.services.credits.balance(o.org), 1_000_000 - 20 * 5000);
  await Promise.all([kill(wa), kill(wb)]);
});

t('a worker killed while its job waits on the model: another worker completes it; charged once', async () => {
  const o = await withOrg(h1, { milli: 100_000 });
  const w1 = await startWorker('c');
  const res = await h1.call('POST', '/v1/writing-jobs', { secret: o.secret, body: EMAIL('Slow Co') });
  assert.is(res.status, 202);
  await pollUntil(() => received.get('Slow Co'), { what: 'the job reaching the model' });
  assert.is(received.get('Slow Co'), 1, 'the job reached the model once');
  await kill(w1);
  const w2 = await startWorker('d');
  const job = await done(h2, o.secret, res.body.data.id);
  assert.is(job.status, 'completed');
  assert.match(job.output.body, /model-d/);
  assert.is(received.get('Slow Co'), 2);
  assert.equal(job.billing, { credits_reserved: 5, credits_charged: 5, credits_released: 0, credits_refunded: 0 });
  assert.is(await h1.running.services.credits.balance(o.org), 100_000 - 5000);
  await kill(w2);
});

t('a model endpoint that keeps failing: retried, then failed and released', async () => {
  const o = await withOrg(h1, { milli: 100_000 });
  const w = await startWorker('e');
  const res = await h1.call('POST', '/v1/writing-jobs', { secret: o.secret, body: EMAIL('Broken Co') });
  const job = await done(h1, o.secret, res.body.data.id);
  assert.equal([job.status, job.success], ['failed', false]);
  assert.is(received.get('Broken Co'), 2, 'BINTEL_JOB_ATTEMPTS=2 runs');
  assert.equal(job.billing, { credits_reserved: 5, credits_charged: 0, credits_released: 5, credits_refunded: 0 });
  assert.is(await h1.running.services.credits.balance(o.org), 100_000);
  await kill(w);
});

t.run();
