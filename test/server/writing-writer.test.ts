// @test-kind pure: runs with the other pure files in one process (test/runner/plan.ts)
/**
 * The writers and the brand-voice check, as properties over random identities (fast-check):
 * whatever the identity, target and avoid list, delivered copy never holds an avoid term nor,
 * when the voice forbids it, an em dash; a LinkedIn connection note never passes 300
 * characters; the email body is LF-only and body_html is its escaped equivalent. For the
 * deterministic writer and for the OpenAI-compatible adapter, the latter against a local HTTP
 * server speaking the chat-completions protocol that sometimes answers with forbidden words.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { createServer, type Server } from 'node:http';
import { constraintsOf, violations, EM_DASH } from '../../server/writing/constraints.ts';
import type { ResolvedContext } from '../../server/writing/context.ts';
import { ChatCompletionsWriter, ConstraintError, CONNECTION_NOTE_MAX, DeterministicWriter, bodyHtml, generate, type Writer } from '../../server/writing/writer.ts';

const t = suite('writing writers');

const WORDS = ['benefits', 'renewal', 'premium', 'synergy', 'leverage', 'carrier', 'team', 'cost', 'plan', 'Contoso', 'Dana', 'growth', 'quick', 'idea', 'help', 'connect', 'best', 'thanks', 'call', 'value', 'partner', 'hi', 'with', 'savings'];
const word = fc.constantFrom(...WORDS);
const phrase = (min: number, max: number) => fc.array(word, { minLength: min, maxLength: max }).map((ws) => ws.join(' '));
const withDash = (p: fc.Arbitrary<string>) => fc.tuple(p, fc.boolean(), p).map(([a, dash, b]) => (dash ? `${a} ${EM_DASH} ${b}` : a));

const contextArb: fc.Arbitrary<ResolvedContext> = fc.record({
  channel: fc.constantFrom('email' as const, 'linkedin' as const),
  lt: fc.constantFrom('message' as const, 'connection_request' as const),
  ours: withDash(phrase(1, 3)),
  features: fc.array(withDash(phrase(3, 12)), { minLength: 0, maxLength: 3 }),
  results: fc.array(fc.record({ result: withDash(phrase(2, 10)), customer: fc.option(phrase(1, 3), { nil: undefined }), quote: fc.option(phrase(3, 12), { nil: undefined }) }), { maxLength: 2 }),
  pains: fc.array(phrase(3, 10), { maxLength: 2 }),
  avoid: fc.array(fc.oneof(word, fc.constant('em dash')), { maxLength: 5 }),
  first: fc.option(fc.constantFrom('Dana', 'Lee', 'Ana María', 'O’Neil'), { nil: null }),
  company: fc.option(phrase(1, 3), { nil: null }),
  title: fc.option(phrase(1, 3), { nil: null }),
  cta: fc.option(phrase(4, 12), { nil: null }),
  subject: fc.option(phrase(2, 6), { nil: null }),
  temperature: fc.double({ min: 0, max: 2, noNaN: true }),
}).map((r) => ({
  channel: r.channel,
  linkedin_type: r.channel === 'linkedin' ? r.lt : null,
  source_mode: 'inline' as const,
  identity: { id: null, companyName: r.ours, versionName: null, brandVoice: { avoid: r.avoid }, icp: null, painPoints: r.pains, proofPoints: [] },
  value_props: r.features.map((feature, i) => ({ id: `vp${i}`, feature })),
  case_studies: r.results.map((c, i) => ({ id: `cs${i}`, ...c })),
  content_angles: [],
  target: { full_name: r.first, first_name: r.first, last_name: null, title: r.title, company_name: r.company, industry: 'manufacturing', city: 'Dayton', state: 'OH', employee_count: 250, website: null, notes: null },
  sender: { full_name: 'Sam Reyes', title: 'Partner', company_name: r.ours, signature: null, source: 'explicit' as const },
  play: { source: 'template' as const, id: null, name: null, subject: null, body: null },
  cta: r.cta ? { source: 'inline' as const, id: null, text: r.cta } : { source: 'template' as const, id: null, text: null },
  subject: r.subject && r.channel === 'email' ? { source: 'inline' as const, id: null, text: r.subject } : { source: 'generated' as const, id: null, text: null },
  instructions: null,
  content_mode: null,
  temperature: { effective: r.temperature, source: 'global' as const },
}));

/** Delivered copy honours the voice and the channel; a refusal is a ConstraintError (the job fails, nothing delivered). */
async function checkDelivery(writer: Writer, ctx: ResolvedContext): Promise<'delivered' | 'refused'> {
  const c = constraintsOf(ctx.identity.brandVoice);
  try {
    const { output } = await generate(writer, ctx);
    const texts = output.channel === 'email' ? [output.subject, output.body, output.body_html] : [output.content];
    for (const text of texts) assert.equal(violations(text, c), [], text);
    if (output.channel === 'email') {
      assert.not.ok(output.body.includes('\r'), 'LF-only body');
      assert.is(output.body_html, bodyHtml(output.body));
      if (ctx.subject.text) assert.is(output.subject, ctx.subject.text, 'a specific subject is returned unchanged');
      if (ctx.cta.text && writer instanceof DeterministicWriter) assert.ok(output.body.includes(ctx.cta.text), 'a chosen CTA is the one delivered');
    } else if (output.linkedin_type === 'connection_request') {
      assert.ok([...output.content].length <= CONNECTION_NOTE_MAX, `${[...output.content].length} characters`);
    }
    return 'delivered';
  } catch (err) {
    if (!(err instanceof ConstraintError)) throw err;
    return 'refused';
  }
}

t('the deterministic writer never delivers an avoid term or a forbidden em dash (property)', async () => {
  const writer = new DeterministicWriter();
  const outcomes = { delivered: 0, refused: 0, refusedAvoidably: 0 };
  await fc.assert(
    fc.asyncProperty(contextArb, async (ctx) => {
      const outcome = await checkDelivery(writer, ctx);
      outcomes[outcome]++;
      // What the caller chose is delivered as is: a chosen CTA or subject that breaks the voice is a refusal the writer cannot avoid.
      const c = constraintsOf(ctx.identity.brandVoice);
      const chosenBreaks = [ctx.cta.text, ctx.subject.text].some((t) => t && violations(t, c).length);
      if (outcome === 'refused' && !chosenBreaks) outcomes.refusedAvoidably++;
    }),
    { numRuns: 400, seed: 20261123 },
  );
  // Otherwise the writer routes around the words it may not use: refusals are rare.
  assert.ok(outcomes.refusedAvoidably <= outcomes.delivered / 10, JSON.stringify(outcomes));
});

t('the deterministic writer is specific and deterministic: same context, same copy; the copy names the target and the identity', async () => {
  const writer = new DeterministicWriter();
  const [ctx] = fc.sample(contextArb, { numRuns: 1, seed: 7 });
  const email: ResolvedContext = { ...ctx, channel: 'email', linkedin_type: null, identity: { ...ctx.identity, companyName: 'Northwind Benefits', brandVoice: { avoid: [] } }, target: { ...ctx.target, first_name: 'Dana', company_name: 'Contoso Ltd' } };
  const a = await generate(writer, email);
  const b = await generate(writer, email);
  assert.equal(a, b);
  const text = a.output.channel === 'email' ? `${a.output.subject}\n${a.output.body}` : '';
  assert.match(text, /Dana/);
  assert.match(text, /Contoso Ltd|Northwind Benefits/);
});

let server: Server;
let url = '';
let calls = 0;
let badFirst = true;

t.before(async () => {
  // A local OpenAI-compatible endpoint: it echoes the system prompt's forbidden words on every
  // other first attempt (a model that slips), and answers properly when told it broke a rule.
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      calls++;
      const body = JSON.parse(raw) as { model: string; messages: { role: string; content: string }[] };
      const system = body.messages[0].content;
      const ctx = JSON.parse(body.messages[1].content) as ResolvedContext;
      const avoid = /Never use these words or phrases: (.*)\./.exec(system)?.[1].split(', ') ?? [];
      const retry = system.includes('previous answer broke a rule');
      const slip = !retry && badFirst && avoid.length > 0;
      badFirst = !badFirst;
      const words = `Hi ${ctx.target.first_name ?? 'there'}, a quick note about ${ctx.target.company_name ?? 'your team'}${slip ? ` and ${avoid[0]}` : ''}.`;
      const content = ctx.channel === 'email' ? JSON.stringify({ subject: 'A quick idea', body: `${words}\n\nBest,\n${ctx.sender.full_name}` }) : JSON.stringify({ content: words });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'cmpl-1', object: 'chat.completion', model: body.model, choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }], usage: { prompt_tokens: 120, completion_tokens: 40, total_tokens: 160 } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
});
t.after(() => new Promise<void>((r) => server.close(() => r())));

t('the chat-completions adapter: a slip is written again once, and never delivered (property); tokens add up', async () => {
  const writer = new ChatCompletionsWriter({ url, model: 'test-model', apiKey: 'sk-test', timeoutMs: 5000 });
  await fc.assert(
    fc.asyncProperty(contextArb, async (ctx) => {
      await checkDelivery(writer, ctx);
    }),
    { numRuns: 60, seed: 11 },
  );
  assert.ok(calls > 60, 'slips were regenerated');
  const [ctx] = fc.sample(contextArb, { numRuns: 1, seed: 3 });
  badFirst = true;
  const res = await generate(writer, { ...ctx, channel: 'email', linkedin_type: null, identity: { ...ctx.identity, brandVoice: { avoid: ['synergy'] } } });
  assert.equal({ requests: res.costs.requests, total: res.costs.total_tokens }, { requests: 2, total: 320 });
});

t('constraints: avoid terms match case-insensitively; "em dash" forbids the character', () => {
  const c = constraintsOf({ avoid: ['Synergy', 'em dash', ''] });
  assert.equal(c, { avoid: ['synergy', 'em dash'], noEmDash: true });
  assert.equal(violations(`SYNERGY-driven ${EM_DASH} yes`, c), ['synergy', 'em dash']);
  assert.equal(constraintsOf('A warm, plain voice'), { avoid: [], noEmDash: false });
});

t.run();
