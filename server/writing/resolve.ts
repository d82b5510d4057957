/**
 * Resolution of a writing request into its context (the same code for a job and a dry run):
 *
 * - identity: the saved identity (saved, hybrid), then the inline identity over it: scalars and
 *   objects win, nested objects merge recursively, arrays replace in full;
 * - value propositions, case studies, content angles: the direct id (an item id, `auto`,
 *   `none`) or the selection object; `auto` takes the first usable item. Unusable items
 *   (placeholders, a case study without a result, a repeated id) are never chosen, and a quote
 *   without a customer name is dropped from its case study;
 * - sender: an explicit sender as given; else the account default: the saved email signature,
 *   then the user's full name, then the local part of their email address;
 * - CTA: a non-empty writing.cta, then writing.cta_id, then the template's;
 * - subject: a specific subject (inline or saved) unchanged; else generated;
 * - temperature: the user's override, else the global one.
 *
 * References that are unknown, deleted or another organization's are all `invalid_reference`
 * with the same wording: nothing tells one case from another.
 */
import { invalid, type ErrorDetail } from '../errors.ts';
import type { CaseStudy, ContentAngle, ResolvedContext, ResolvedTarget, ValueProp } from './context.ts';
import { ITEM_KINDS, type Selection, type StartJobRequest } from './job-request.ts';
import { identityChoices, isPlaceholder } from './identity.ts';

type Obj = Record<string, unknown>;

/** What resolution reads, all scoped to the caller's organization and user. */
export interface WritingRefs {
  identity(id: string): Promise<Obj | null>;
  play(id: string): Promise<{ id: string; name?: string | null; subject?: string | null; body?: string | null } | null>;
  cta(id: string): Promise<{ id: string; name?: string | null; body?: string | null } | null>;
  subject(id: string): Promise<{ id: string; name?: string | null; text?: string | null } | null>;
  /** The user's temperature: their override, else the global one (asked only for personal plays). */
  temperature(): Promise<{ effective: number; source: 'user' | 'global' }>;
  /** The global temperature (template plays write at it). */
  readonly globalTemperature: number;
  /** The user's account details for the default sender. */
  profile(): Promise<{ full_name?: string | null; email?: string | null; signature?: string | null; company_name?: string | null; title?: string | null }>;
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `over` onto `base`: scalars and objects win, nested objects merge recursively, arrays replace in full. */
export function mergeIdentity(base: Obj, over: Obj): Obj {
  const out: Obj = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = isObj(v) && isObj(out[k]) ? mergeIdentity(out[k] as Obj, v) : v;
  return out;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string' && !isPlaceholder(s)) : typeof v === 'string' && !isPlaceholder(v) ? [v] : []);

/** The items a direct id or a selection picks (auto: the first usable one). */
function choose<T extends { id: string }>(items: T[], direct: string | undefined, sel: Selection | undefined, field: string, problems: ErrorDetail[]): T[] {
  const mode = sel?.selection ?? (direct === undefined || direct === 'auto' ? 'auto' : direct === 'none' ? 'none' : 'specific');
  if (mode === 'none') return [];
  if (mode === 'auto') return items.slice(0, 1);
  const ids = sel?.selected_ids ?? [direct!];
  const out: T[] = [];
  for (const id of ids) {
    const item = items.find((i) => i.id === id);
    if (item) out.push(item);
    else problems.push({ field, issue: 'invalid_reference', expected: 'an id of a usable item of the resolved identity' });
  }
  return out;
}

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);

function resolveTarget(t: Obj = {}): ResolvedTarget {
  const first = text(t.first_name);
  const last = text(t.last_name);
  const full = text(t.full_name) ?? ([first, last].filter(Boolean).join(' ') || null);
  return {
    full_name: full,
    first_name: first ?? (full ? full.split(/\s+/)[0] : null),
    last_name: last ?? (full && full.includes(' ') ? full.split(/\s+/).slice(1).join(' ') : null),
    title: text(t.title),
    company_name: text(t.company_name),
    industry: text(t.industry),
    city: text(t.city),
    state: text(t.state),
    employee_count: typeof t.employee_count === 'number' ? t.employee_count : null,
    website: text(t.website),
    notes: text(t.notes),
  };
}

/** Resolves the request's context, or throws one 400 naming every bad reference. */
export async function resolveContext(req: StartJobRequest, refs: WritingRefs): Promise<ResolvedContext> {
  const problems: ErrorDetail[] = [];
  const w = req.writing ?? {};
  const bad = (field: string) => problems.push({ field, issue: 'invalid_reference', expected: 'an id of a record of your organization' });

  const [saved, play, cta, subject, temp, profile] = await Promise.all([
    req.identity_id && req.source_mode !== 'inline' ? refs.identity(req.identity_id) : null,
    w.play_source === 'personal' && w.personal_play_id ? refs.play(w.personal_play_id) : null,
    w.cta_id ? refs.cta(w.cta_id) : null,
    w.subject_id ? refs.subject(w.subject_id) : null,
    // The user's override applies to personal plays; template plays write at the global temperature.
    w.play_source === 'personal' ? refs.temperature() : { effective: refs.globalTemperature, source: 'global' as const },
    req.sender ? null : refs.profile(),
  ]);
  const temperature = { effective: temp.effective, source: temp.source };
  if (req.identity_id && req.source_mode !== 'inline' && !saved) bad('identity_id');
  if (w.personal_play_id && !play) bad('writing.personal_play_id');
  if (w.cta_id && !cta) bad('writing.cta_id');
  if (w.subject_id && !subject) bad('writing.subject_id');

  const identity = mergeIdentity(saved ?? {}, req.source_mode === 'saved' ? {} : (req.identity ?? {}));
  // The same choices writing options shows: placeholders, incomplete rows and repeated ids left out.
  const { choices } = identityChoices(identity);
  const pick = <T>(list: unknown[], fields: (keyof T)[]): T[] => list.map((i) => Object.fromEntries(fields.filter((f) => (i as T)[f] !== undefined).map((f) => [f, (i as T)[f]])) as T);
  const lists = {
    valueProps: pick<ValueProp>(choices.value_propositions, ['id', 'feature']),
    caseStudies: pick<CaseStudy>(choices.case_studies, ['id', 'result', 'customer', 'quote']),
    contentAngles: pick<ContentAngle>(choices.content_angles, ['id', 'headline']),
  } as const;
  const chosen = ITEM_KINDS.map((k) => choose<{ id: string }>(lists[k.list], w[k.id], w[k.selection], `writing.${w[k.selection] ? `${k.selection}.selected_ids` : k.id}`, problems));
  if (problems.length) throw invalid(problems);

  let sender: ResolvedContext['sender'];
  if (req.sender) {
    const s = req.sender;
    sender = { full_name: (s.full_name ?? s.name)!, title: s.title ?? null, company_name: s.company_name ?? s.company ?? null, signature: s.signature ?? null, source: 'explicit' };
  } else {
    const p = profile ?? {};
    const signature = text(p.signature);
    const local = text(p.email)?.split('@')[0] ?? null;
    const full = text(p.full_name) ?? (signature ? signature.split('\n')[0].trim() : null) ?? local ?? 'The team';
    sender = { full_name: full, title: text(p.title), company_name: text(p.company_name) ?? text(identity.companyName), signature, source: 'account_default' };
  }

  const inlineCta = typeof w.cta === 'string' ? text(w.cta) : isObj(w.cta) ? text(w.cta.body) ?? text(w.cta.name) : null;
  const ctaPart: ResolvedContext['cta'] = inlineCta ? { source: 'inline', id: null, text: inlineCta } : cta ? { source: 'saved', id: cta.id, text: text(cta.body) ?? text(cta.name) } : { source: 'template', id: null, text: null };
  const subjectPart: ResolvedContext['subject'] = w.subject ? { source: 'inline', id: null, text: w.subject } : subject ? { source: 'saved', id: subject.id, text: text(subject.text) ?? text(subject.name) } : { source: 'generated', id: null, text: null };

  return {
    channel: req.channel,
    linkedin_type: req.channel === 'linkedin' ? (req.linkedin_type ?? 'message') : null,
    source_mode: req.source_mode,
    identity: {
      id: req.source_mode === 'inline' ? null : (req.identity_id ?? null),
      companyName: text(identity.companyName),
      versionName: text(identity.versionName),
      brandVoice: identity.brandVoice ?? null,
      icp: identity.icp ?? null,
      painPoints: choices.pain_points as string[],
      proofPoints: strings(identity.proofPoints),
    },
    value_props: chosen[0] as ValueProp[],
    case_studies: chosen[1] as CaseStudy[],
    content_angles: chosen[2] as ContentAngle[],
    target: resolveTarget(req.target),
    sender,
    play: play ? { source: 'personal', id: play.id, name: text(play.name), subject: text(play.subject), body: text(play.body) } : { source: 'template', id: null, name: null, subject: null, body: null },
    cta: ctaPart,
    subject: subjectPart,
    instructions: text(w.instructions),
    content_mode: w.content_mode ?? null,
    temperature,
  };
}
