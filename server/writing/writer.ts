/**
 * Generation behind one interface. The default writer is deterministic and needs no network: it
 * composes copy from the resolved identity, target, play, CTA, subject and sender, slot by slot,
 * each slot taking the first of its phrasings that passes the brand voice's constraints; the
 * temperature decides how many phrasings of a slot are in play and a hash of the context picks
 * among them (same context, same copy). When BINTEL_WRITER_URL and BINTEL_WRITER_MODEL are set,
 * an adapter asks an OpenAI-compatible chat-completions endpoint instead. Either way the output
 * passes the same hard-constraint check (`finish`) before it is delivered.
 */
import { createHash } from 'node:crypto';
import type { Config } from '../../core/config.ts';
import { clean, constraintsOf, violations, type Constraints } from './constraints.ts';
import type { ResolvedContext } from './context.ts';
import type { TokenUse } from '../services/usage.ts';

/** LinkedIn's limit on a connection request note. */
export const CONNECTION_NOTE_MAX = 300;
/** Our limit on a LinkedIn message (LinkedIn allows 8,000; a cold message reads best far shorter). */
export const LINKEDIN_MESSAGE_MAX = 1_000;

/** A generation's model token use (counted for GET /v1/usage/ai-costs: services/usage.ts). */
export type AiCosts = TokenUse;

/** What a writer returns: email subject and body, or a LinkedIn content. */
export interface Draft {
  subject?: string;
  body?: string;
  content?: string;
  costs: AiCosts;
}

export interface Writer {
  readonly name: string;
  write(ctx: ResolvedContext, attempt: number): Promise<Draft>;
}

/** The draft breaks a hard constraint (or a length limit): never delivered. */
export class ConstraintError extends Error {
  constructor(readonly broken: string[]) {
    super(`the copy breaks the brand voice: ${broken.join(', ')}`);
  }
}

export interface EmailOutput {
  channel: 'email';
  subject: string;
  body: string;
  body_html: string;
}
export interface LinkedinOutput {
  channel: 'linkedin';
  linkedin_type: 'message' | 'connection_request';
  content: string;
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** The HTML equivalent of a plain-text body: paragraphs at blank lines, `<br>` at single line breaks, everything escaped. */
export const bodyHtml = (body: string): string =>
  body
    .split(/\n{2,}/)
    .map((p) => `<p>${p.split('\n').map(escapeHtml).join('<br>')}</p>`)
    .join('\n');

const lf = (s: string) => s.replace(/\r\n?/g, '\n').trim();

/** Checks a draft against the voice and the channel's limits and shapes the output; throws ConstraintError. */
export function finish(ctx: ResolvedContext, d: Draft): EmailOutput | LinkedinOutput {
  const c = constraintsOf(ctx.identity.brandVoice);
  if (ctx.channel === 'email') {
    const subject = lf(d.subject ?? '').replace(/\n+/g, ' ');
    const body = lf(d.body ?? '');
    const broken = [...violations(subject, c), ...violations(body, c)];
    if (!subject) broken.push('empty subject');
    if (!body) broken.push('empty body');
    if (broken.length) throw new ConstraintError([...new Set(broken)]);
    return { channel: 'email', subject, body, body_html: bodyHtml(body) };
  }
  const type = ctx.linkedin_type ?? 'message';
  const content = lf(d.content ?? d.body ?? '');
  const broken = violations(content, c);
  const max = type === 'connection_request' ? CONNECTION_NOTE_MAX : LINKEDIN_MESSAGE_MAX;
  if (!content) broken.push('empty content');
  if ([...content].length > max) broken.push(`over ${max} characters`);
  if (broken.length) throw new ConstraintError(broken);
  return { channel: 'linkedin', linkedin_type: type, content };
}

// ---------------------------------------------------------------------------------------------
// The deterministic writer

/** `{{first_name}}`-style placeholders of a saved play, from the context. */
function fill(template: string, ctx: ResolvedContext): string {
  const t = ctx.target;
  const values: Record<string, string | null> = {
    first_name: t.first_name,
    last_name: t.last_name,
    full_name: t.full_name,
    title: t.title,
    company_name: t.company_name,
    company: t.company_name,
    industry: t.industry,
    city: t.city,
    state: t.state,
    sender_name: ctx.sender.full_name,
    sender_company: ctx.sender.company_name ?? ctx.identity.companyName,
    our_company: ctx.identity.companyName,
  };
  return template.replace(/\{\{\s*([a-z_]+)\s*\}\}/g, (m, k: string) => values[k] ?? (k in values ? '' : m)).replace(/[ \t]{2,}/g, ' ');
}

const firstWord = (s: string | null) => (s ? s.trim().split(/\s+/)[0] : null);
const lowerFirst = (s: string) => (/^[A-Z][a-z]/.test(s) ? s[0].toLowerCase() + s.slice(1) : s);
const sentence = (s: string) => (/[.!?]$/.test(s.trim()) ? s.trim() : `${s.trim()}.`);

/** First words that make a value proposition a verb phrase ("Cut renewal costs ..."), not a noun phrase. */
const VERBS = new Set(
  'audit automate benchmark boost bring build catch compare consolidate cut deliver design eliminate find get give grow help improve increase keep launch lower make manage measure modernize negotiate offer protect provide reduce replace retain save scale shop simplify spot streamline support track turn uncover'.split(' '),
);
const isVerbPhrase = (s: string) => VERBS.has(s.trim().split(/\s+/)[0].toLowerCase());
/** The head of a value proposition, for short slots: up to " by ", " with ", a comma; six words at most. */
const headOf = (s: string) => s.replace(/\.$/, '').split(/[,;:]| by | with | so | through /)[0].trim().split(/\s+/).slice(0, 6).join(' ');

/** The phrasings of one slot; null where a part it needs is missing. */
type Phrasings = (string | null)[];

export class DeterministicWriter implements Writer {
  readonly name = 'deterministic';

  async write(ctx: ResolvedContext): Promise<Draft> {
    const c = constraintsOf(ctx.identity.brandVoice);
    const seed = createHash('sha256').update(JSON.stringify(ctx)).digest();
    // Temperature 0 always takes a slot's first phrasing; each 0.5 above it brings one more into play.
    const spread = 1 + Math.floor(ctx.temperature.effective * 2);
    let slotNo = 0;
    const pick = (phrasings: Phrasings): string | null => {
      const ok = phrasings.map((p) => clean(p, c)).filter((p): p is string => p !== null);
      const n = Math.min(spread, ok.length);
      if (!n) return null;
      return ok[seed[slotNo++ % seed.length] % n] ?? ok[0];
    };
    const costs: AiCosts = { provider: 'bintel', model: this.name, requests: 0, prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
    const parts = this.parts(ctx, c);
    // A chosen CTA that breaks the voice cannot be delivered, and is not silently swapped for another.
    if (ctx.cta.text && !clean(fill(ctx.cta.text, ctx), c)) throw new ConstraintError(violations(fill(ctx.cta.text, ctx), c));
    if (ctx.channel === 'email') {
      const body = [pick(parts.greeting), ...parts.paragraphs.map(pick), pick(parts.cta), pick(parts.signoff)].filter(Boolean).join('\n\n');
      return { subject: pick(parts.subject) ?? '', body, costs };
    }
    if (ctx.linkedin_type === 'connection_request') return { content: this.connectionNote(ctx, parts, pick), costs };
    const content = [pick(parts.greeting), pick(parts.paragraphs[0] ?? []), pick(parts.paragraphs[1] ?? []), pick(parts.cta), pick(parts.shortSignoff)].filter(Boolean).join('\n\n');
    return { content, costs };
  }

  /** A connection note within 300 characters: optional sentences are dropped until it fits. */
  private connectionNote(ctx: ResolvedContext, parts: ReturnType<DeterministicWriter['parts']>, pick: (p: Phrasings) => string | null): string {
    const pieces = [pick(parts.greeting), pick(parts.note), pick(parts.noteClose), pick(parts.shortSignoff)].filter((p): p is string => p !== null);
    const join = (ps: string[]) => ps.join(' ').replace(/\n+/g, ' ');
    // Drop from the middle outward (the greeting and the sign-off go last).
    const order = [1, 2, 0, 3];
    let kept = pieces;
    for (const i of order) {
      if ([...join(kept)].length <= CONNECTION_NOTE_MAX) break;
      kept = kept.filter((p) => p !== pieces[i]);
    }
    const text = join(kept);
    if ([...text].length <= CONNECTION_NOTE_MAX) return text;
    const cut = [...text].slice(0, CONNECTION_NOTE_MAX - 1).join('');
    return `${cut.slice(0, cut.lastIndexOf(' ')).replace(/[,;:]$/, '')}.`;
  }

  private parts(ctx: ResolvedContext, c: Constraints) {
    const t = ctx.target;
    const first = t.first_name ?? firstWord(t.full_name);
    const company = t.company_name;
    const ours = ctx.identity.companyName ?? ctx.sender.company_name;
    const vp = ctx.value_props[0] ?? null;
    const cs = ctx.case_studies[0] ?? null;
    const angle = ctx.content_angles[0] ?? null;
    const pain = ctx.identity.painPoints.find((p) => clean(p, c)) ?? null;
    const proof = ctx.identity.proofPoints.find((p) => clean(p, c)) ?? null;
    const role = t.title && company ? `${t.title} at ${company}` : t.title ?? (company ? `someone leading ${company}` : null);
    const where = t.city && t.state ? `${t.city}, ${t.state}` : t.state ?? t.city;
    const team = company && t.industry ? `${company} and other ${t.industry} teams` : company;
    const size = t.employee_count ? `${t.employee_count.toLocaleString('en-US')} employees` : null;

    const opener: Phrasings = [
      role && ours ? `I'm reaching out to you as ${role} because ${ours} works with organizations facing the same decisions you are.` : null,
      role && pain ? `As ${role}, you are likely weighing how to handle ${lowerFirst(pain).replace(/\.$/, '')}.` : null,
      team && pain ? `Teams like ${team} often tell us that ${lowerFirst(pain).replace(/\.$/, '')}.` : null,
      company && size && where ? `With ${size} in ${where}, ${company} has a benefits program that deserves a close look each renewal.` : null,
      company ? `I have been looking at how ${company} approaches its benefits programs.` : null,
      ours ? `I lead conversations at ${ours} with teams that want more from their benefits programs.` : 'I wanted to share an idea that could help your team.',
    ];
    const playBody = ctx.play.body ? fill(ctx.play.body, ctx) : null;
    const feature = vp ? lowerFirst(vp.feature).replace(/\.$/, '') : null;
    const verb = vp ? isVerbPhrase(vp.feature) : false;
    const value: Phrasings = feature
      ? verb
        ? [ours && company ? `${ours} helps teams like ${company} ${feature}.` : null, company ? `We help teams like ${company} ${feature}.` : `We help teams ${feature}.`, `Our focus is simple: we ${feature}.`]
        : [ours ? `With ${ours}, you get ${feature}.` : null, `We bring ${feature}.`, `One thing we do well: ${feature}.`]
      : [];
    const story: Phrasings = cs
      ? [
          cs.customer ? `For example, ${cs.customer}: ${lowerFirst(cs.result).replace(/\.$/, '')}.` : `One recent result: ${lowerFirst(cs.result).replace(/\.$/, '')}.`,
          cs.quote && cs.customer ? `As ${cs.customer} put it: "${cs.quote.replace(/^"|"$/g, '')}"` : null,
          `A recent client saw this: ${lowerFirst(cs.result).replace(/\.$/, '')}.`,
        ]
      : proof
        ? [sentence(proof)]
        : [];
    const angleLine: Phrasings = angle ? [sentence(angle.headline), `Here is the idea in one line: ${lowerFirst(angle.headline).replace(/\.$/, '')}.`] : [];
    const paragraphs: Phrasings[] = playBody ? [[playBody], story] : [[...opener], angleLine.length ? angleLine : value, angleLine.length ? value : story, angleLine.length ? story : []].filter((p) => p.length);
    const ctaText = ctx.cta.text ? sentence(fill(ctx.cta.text, ctx)) : null;
    const subjectGiven = ctx.subject.text;
    const featureShort = vp ? headOf(vp.feature) : null;
    const sig = ctx.sender.signature ? lf(ctx.sender.signature) : [ctx.sender.full_name, [ctx.sender.title, ctx.sender.company_name ?? ours].filter(Boolean).join(', ')].filter(Boolean).join('\n');
    return {
      greeting: [first ? `Hi ${first},` : 'Hi there,', first ? `Hello ${first},` : 'Hello,', first ? `${first},` : null] as Phrasings,
      paragraphs,
      // A CTA the caller chose (inline or saved) is the only one; the template's are for when none was.
      cta: (ctaText ? [ctaText] : ['Would you be open to a 15-minute call next week to see whether this fits?', 'Is this worth a short conversation?', 'Would it help if I sent over a short summary?']) as Phrasings,
      signoff: [`Best,\n${sig}`, `Thanks,\n${sig}`, `Regards,\n${sig}`] as Phrasings,
      shortSignoff: [firstWord(ctx.sender.full_name) ?? ctx.sender.full_name, `Best, ${firstWord(ctx.sender.full_name) ?? ctx.sender.full_name}`] as Phrasings,
      subject: subjectGiven
        ? ([subjectGiven] as Phrasings)
        : ([
            ctx.play.subject ? fill(ctx.play.subject, ctx) : null,
            company && ours ? `${company} and ${ours}` : null,
            company && featureShort ? `${featureShort} for ${company}` : null,
            company ? `An idea for ${company}` : null,
            angle ? angle.headline.replace(/\.$/, '') : null,
            'A quick idea for your benefits program',
            'Quick question',
          ] as Phrasings),
      note: [
        team && featureShort ? (verb ? `I help ${team} ${lowerFirst(featureShort)}.` : `I work with ${team} on ${lowerFirst(featureShort)}.`) : null,
        role ? `I came across your work as ${role}.` : null,
        ours ? `I'm with ${ours} and work with benefits leaders.` : null,
      ] as Phrasings,
      noteClose: ["I'd be glad to connect.", 'Would be great to connect.', 'Happy to connect if useful.'] as Phrasings,
    };
  }
}

// ---------------------------------------------------------------------------------------------
// The OpenAI-compatible adapter

/** Asks an OpenAI-compatible `POST {url}/chat/completions` for the copy, with a timeout. */
export class ChatCompletionsWriter implements Writer {
  readonly name: string;
  constructor(private readonly opts: { url: string; model: string; apiKey: string | null; timeoutMs: number }) {
    this.name = opts.model;
  }

  async write(ctx: ResolvedContext, attempt: number): Promise<Draft> {
    const c = constraintsOf(ctx.identity.brandVoice);
    const shape = ctx.channel === 'email' ? '{"subject": string, "body": string (plain text, paragraphs separated by a blank line)}' : `{"content": string (at most ${ctx.linkedin_type === 'connection_request' ? CONNECTION_NOTE_MAX : LINKEDIN_MESSAGE_MAX} characters)}`;
    const rules = [
      `Write one ${ctx.channel === 'email' ? 'cold email' : ctx.linkedin_type === 'connection_request' ? 'LinkedIn connection request note' : 'LinkedIn message'} from the sender to the target, specific to them and to the identity.`,
      `Answer with JSON only: ${shape}.`,
      c.avoid.length ? `Never use these words or phrases: ${c.avoid.join(', ')}.` : null,
      c.noEmDash ? 'Never use the em dash character.' : null,
      ctx.subject.text ? `Use exactly this subject: ${ctx.subject.text}` : null,
      ctx.cta.text ? `End with this call to action: ${ctx.cta.text}` : null,
      attempt > 1 ? 'Your previous answer broke a rule above; follow every rule.' : null,
    ].filter(Boolean);
    const res = await fetch(`${this.opts.url.replace(/\/+$/, '')}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(this.opts.apiKey ? { authorization: `Bearer ${this.opts.apiKey}` } : {}) },
      body: JSON.stringify({
        model: this.opts.model,
        temperature: ctx.temperature.effective,
        response_format: { type: 'json_object' },
        messages: [
          { role: 'system', content: rules.join('\n') },
          { role: 'user', content: JSON.stringify({ ...ctx, instructions: ctx.instructions }) },
        ],
      }),
      signal: AbortSignal.timeout(this.opts.timeoutMs),
    });
    if (!res.ok) throw new Error(`the model endpoint answered ${res.status}`);
    const json = (await res.json()) as { choices?: { message?: { content?: string } }[]; usage?: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number } };
    const text = json.choices?.[0]?.message?.content ?? '';
    let out: { subject?: unknown; body?: unknown; content?: unknown };
    try {
      out = JSON.parse(text.replace(/^```(json)?|```$/g, '').trim());
    } catch {
      out = ctx.channel === 'email' ? { subject: ctx.subject.text ?? '', body: text } : { content: text };
    }
    const u = json.usage ?? {};
    const costs: AiCosts = { provider: 'openai-compatible', model: this.opts.model, requests: 1, prompt_tokens: u.prompt_tokens ?? 0, completion_tokens: u.completion_tokens ?? 0, total_tokens: u.total_tokens ?? (u.prompt_tokens ?? 0) + (u.completion_tokens ?? 0) };
    const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
    // A specific subject is returned unchanged whatever the model wrote.
    return { subject: ctx.subject.text ?? str(out.subject), body: str(out.body), content: str(out.content), costs };
  }
}

/** The configured writer: the model endpoint when BINTEL_WRITER_URL and BINTEL_WRITER_MODEL are set, else the deterministic one. */
export function createWriter(config: Pick<Config, 'writerUrl' | 'writerModel' | 'writerKey' | 'writerTimeoutMs'>): Writer {
  if (config.writerUrl && config.writerModel) return new ChatCompletionsWriter({ url: config.writerUrl, model: config.writerModel, apiKey: config.writerKey, timeoutMs: config.writerTimeoutMs });
  return new DeterministicWriter();
}

/**
 * Writes and checks: a draft that breaks a constraint is written once more (the model is told);
 * a second violation fails the job. Costs add up across both.
 */
export async function generate(writer: Writer, ctx: ResolvedContext): Promise<{ output: EmailOutput | LinkedinOutput; costs: AiCosts }> {
  let costs: AiCosts | undefined;
  let last: ConstraintError | null = null;
  for (let attempt = 1; attempt <= 2; attempt++) {
    const d = await writer.write(ctx, attempt);
    const prev: AiCosts | undefined = costs;
    costs = prev ? { ...prev, requests: prev.requests + d.costs.requests, prompt_tokens: prev.prompt_tokens + d.costs.prompt_tokens, completion_tokens: prev.completion_tokens + d.costs.completion_tokens, total_tokens: prev.total_tokens + d.costs.total_tokens } : d.costs;
    try {
      return { output: finish(ctx, d), costs };
    } catch (err) {
      if (!(err instanceof ConstraintError)) throw err;
      last = err;
    }
  }
  throw last!;
}
