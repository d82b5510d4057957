/**
 * Personnel: contacts at companies (about 85%) and at broker offices. A contact's
 * employer is recomputed from its index (companyCore / brokerCore), so the email domain,
 * city and description match the employer without holding any employer in memory.
 */
import { brokerCore } from './brokers.ts';
import { companyCore, companyId } from './companies.ts';
import type { Ctx } from './context.ts';
import { asciiLower, slug, type Row } from './format.ts';
import { CITY_PICK, cityDma, cityName, cityState, phoneOf } from './geo.ts';
import { FIRST_NAMES, lastName } from './names.ts';
import { officeId } from './offices.ts';
import { type Rng, rowRng, uniqueHex, uuid, Weighted } from './prng.ts';
import { BROKER_TITLES_LARGE, BROKER_TITLES_LOCAL, COMPANY_TITLES_LARGE, COMPANY_TITLES_SMALL, type TitleDef } from './titles.ts';

/** Share of contacts at companies (the rest at broker offices). */
export const COMPANY_CONTACT_SHARE = 0.85;

type EmailPattern = (f: string, l: string) => string;
const EMAIL_PATTERNS = new Weighted<EmailPattern>([
  [(f, l) => `${f}.${l}`, 62],
  [(f, l) => `${f[0]}${l}`, 20],
  [(f, l) => `${f}${l[0]}`, 5],
  [(f) => f, 6],
  [(f, l) => `${f}_${l}`, 3],
  [(f, l) => `${l}${f[0]}`, 4],
]);
const EMAIL_STATUS = new Weighted<string>([['verified', 72], ['unverified', 13], ['catch-all', 10], ['invalid', 5]]);

interface Employer {
  name: string;
  domain: string;
  city: number;
  title: TitleDef;
  companyId: string;
  officeId: string;
}

function employer(ctx: Ctx, rng: Rng): Employer {
  const { companies: C, brokerOffices: O } = ctx.counts;
  if (C > 0 && (O === 0 || rng.chance(COMPANY_CONTACT_SHARE))) {
    const j = rng.int(0, C - 1);
    const core = companyCore(ctx, j);
    const title = (core.participants < 100 ? COMPANY_TITLES_SMALL : COMPANY_TITLES_LARGE).pick(rng);
    return { name: core.name, domain: core.domain, city: core.city, title, companyId: companyId(ctx, j), officeId: '' };
  }
  const o = rng.int(0, O - 1);
  const core = brokerCore(ctx, ctx.layout.officeBroker[o]);
  const title = (core.cls === 'local broker' ? BROKER_TITLES_LOCAL : BROKER_TITLES_LARGE).pick(rng);
  return { name: core.name, domain: core.domain, city: ctx.layout.officeCity[o], title, companyId: '', officeId: officeId(ctx, o) };
}

/** The title's description at an employer ("... at Acme Inc." without a doubled period). */
function describe(t: TitleDef, org: string): string {
  const d = t.desc.replace('{org}', org);
  return d.endsWith('..') ? d.slice(0, -1) : d;
}

/** Picks one of the title's Form 5500 roles, the first most often. */
function role(rng: Rng, t: TitleDef): string {
  return t.roles.length === 1 || rng.chance(0.6) ? t.roles[0] : t.roles[rng.int(1, t.roles.length - 1)];
}

export function personRow(ctx: Ctx, i: number): Row {
  const rng = rowRng(ctx.keys.personnel, i, 0);
  const emp = employer(ctx, rng);
  const first = rng.pick(FIRST_NAMES);
  const last = lastName(rng);
  const middle = rng.chance(0.08) ? ` ${'ABCDEFGHJKLMNPRSTW'[rng.int(0, 17)]}.` : '';
  const atCompany = emp.companyId !== '';
  const city = rng.chance(atCompany ? 0.85 : 0.93) ? emp.city : CITY_PICK.pick(rng);
  const f = asciiLower(first);
  const l = asciiLower(last);
  const hasEmail = rng.chance(0.9) && f !== '' && l !== '';
  const t = emp.title;

  return {
    id: uuid(ctx.keys.personnel ^ 0x4a, i),
    first_name: first,
    last_name: last,
    full_name: `${first}${middle} ${last}`,
    title: rng.chance(0.98) ? t.title : '',
    job_description: rng.chance(0.85) ? describe(t, emp.name) : '',
    seniority: rng.chance(0.96) ? t.seniority : '',
    job_function: rng.chance(0.96) ? t.fn : '',
    email_address: hasEmail ? `${EMAIL_PATTERNS.pick(rng)(f, l)}@${emp.domain}` : '',
    email_status: hasEmail ? EMAIL_STATUS.pick(rng) : '',
    person_linkedin_url: rng.chance(0.85) ? `https://www.linkedin.com/in/${slug(first)}-${slug(last)}-${uniqueHex(ctx.keys.personnel ^ 0x71, i)}` : '',
    phone_number: rng.chance(0.75) ? phoneOf(rng, city) : '',
    lead_type: atCompany ? 'company' : 'broker',
    company_id: emp.companyId,
    broker_office_id: emp.officeId,
    form5500_role: rng.chance(0.88) ? role(rng, t) : '',
    person_city: cityName(city),
    person_state: cityState(city),
    person_dma: cityDma(city),
    last_updated_at: ctx.days.ago(rng.int(0, ctx.days.span - 1)),
  };
}

