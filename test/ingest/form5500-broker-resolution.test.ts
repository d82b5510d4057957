// @test-kind pure: runs with the other pure files in one process (test/runner/plan.ts)
/**
 * Broker entity resolution (pure): firms, agents, placeholders and offices of Schedule A Part I
 * lines, measured as pairwise precision and recall on labelled real broker names and addresses
 * (test/fixtures/form5500/broker-labels.json, each record naming its source); focused cases per
 * rule; a scale and order-independence smoke.
 */
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { analyzeName, resolveBrokers, type BrokerLine, type Resolution } from '../../ingest/form5500/broker-resolution.ts';

interface Label extends BrokerLine {
  source: string;
  firm: string;
  office: string | null;
  kind: 'firm' | 'agent' | 'placeholder';
}
const LABELS: Label[] = JSON.parse(readFileSync(new URL('../fixtures/form5500/broker-labels.json', import.meta.url), 'utf8'));

/** Pairwise precision and recall of a predicted clustering against a gold one (labels per record; null = a cluster of its own). */
export function pairwise(gold: readonly (string | null)[], predicted: readonly (string | null)[]): { precision: number; recall: number; truePairs: number; predictedPairs: number; goldPairs: number } {
  const pairs = (labels: readonly (string | null)[]) => {
    const by = new Map<string, number[]>();
    labels.forEach((l, i) => {
      if (l === null) return;
      const a = by.get(l);
      if (a) a.push(i);
      else by.set(l, [i]);
    });
    const set = new Set<string>();
    for (const ids of by.values()) for (let x = 0; x < ids.length; x++) for (let y = x + 1; y < ids.length; y++) set.add(`${ids[x]}:${ids[y]}`);
    return set;
  };
  const g = pairs(gold);
  const p = pairs(predicted);
  let tp = 0;
  for (const k of p) if (g.has(k)) tp++;
  return { precision: p.size ? tp / p.size : 1, recall: g.size ? tp / g.size : 1, truePairs: tp, predictedPairs: p.size, goldPairs: g.size };
}

/** Cluster labels for the firm metric: agents and placeholders are clusters of their own kind. */
const goldFirm = (l: Label, i: number) => (l.kind === 'placeholder' ? null : l.kind === 'agent' ? `agent:${l.firm}:${analyzeName(l.name).norm}|${l.office ?? i}` : `firm:${l.firm}`);
const predFirm = (r: Resolution, l: Label, i: number) => (r.kind === 'placeholder' ? null : r.kind === 'agent' ? `agent:${r.firm}:${analyzeName(l.name).norm}|${r.office ?? i}` : `firm:${r.firm}`);

function measure(results: readonly Resolution[]) {
  const firm = pairwise(LABELS.map(goldFirm), LABELS.map((l, i) => predFirm(results[i], l, i)));
  const office = pairwise(LABELS.map((l) => l.office), results.map((r) => r.office));
  const kinds = LABELS.filter((l, i) => l.kind === results[i].kind).length / LABELS.length;
  return { firm, office, kinds };
}

const fmt = (m: ReturnType<typeof measure>) =>
  `firms P=${m.firm.precision.toFixed(3)} R=${m.firm.recall.toFixed(3)} (${m.firm.truePairs}/${m.firm.predictedPairs} predicted, ${m.firm.goldPairs} gold pairs); ` +
  `offices P=${m.office.precision.toFixed(3)} R=${m.office.recall.toFixed(3)} (${m.office.truePairs}/${m.office.predictedPairs}, ${m.office.goldPairs}); kind accuracy ${m.kinds.toFixed(3)}`;

test('labelled set: at least 300 records, each with a source and a gold label', () => {
  assert.ok(LABELS.length >= 300, `${LABELS.length} records`);
  for (const l of LABELS) {
    assert.ok(l.source.length > 10, JSON.stringify(l));
    assert.ok(['firm', 'agent', 'placeholder'].includes(l.kind));
  }
});

test('pairwise precision and recall of firms and offices', () => {
  const lines = LABELS.map(({ name, address1, address2, city, state, zip }) => ({ name, address1, address2, city, state, zip }));
  const now = measure(resolveBrokers(lines));
  console.log(`  broker resolution on ${LABELS.length} labelled records: ${fmt(now)}`);
  if (process.env.BROKER_LABELS_DEBUG) {
    const res = resolveBrokers(lines);
    LABELS.forEach((l, i) => console.log(JSON.stringify([l.name, l.address1, l.city, l.kind, l.firm, l.office, res[i]])));
  }
  assert.ok(now.firm.precision >= 0.98, `firm precision ${now.firm.precision}`);
  assert.ok(now.firm.recall >= 0.95, `firm recall ${now.firm.recall}`);
  assert.ok(now.office.precision >= 0.98, `office precision ${now.office.precision}`);
  assert.ok(now.office.recall >= 0.95, `office recall ${now.office.recall}`);
});

const line = (name: string, address1 = '', city = '', state = '', zip = '', address2 = ''): BrokerLine => ({ name, address1, address2, city, state, zip });

test('names: dangling "and" after a suffix, abbreviations, state tags, qualifiers, DBA and divisions', () => {
  assert.is(analyzeName('ARTHUR J. GALLAGHER & CO.').norm, 'arthur j gallagher');
  assert.is(analyzeName('ARTHUR J GALLAGHER').norm, 'arthur j gallagher');
  assert.is(analyzeName('SEQUOIA BENEFITS & INS SVCS LLC').norm, analyzeName('Sequoia Benefits and Insurance Services, LLC').norm);
  assert.is(analyzeName('1ST AMERICAN INS AGCY').norm, 'first american insurance agency');
  assert.is(analyzeName('SMITH ASSOC MGMT GRP FINL').norm, 'smith associates management group financial');
  assert.is(analyzeName('NFP CORPORATE SERVICES LLC(NY)').norm, 'nfp corporate services');
  assert.is(analyzeName('NFP CORPORATE SERVICES NY LLC').norm, 'nfp corporate services');
  assert.is(analyzeName('GALLAGHER BENEFIT SERVICES INC NATIONAL INCENTIVE').norm, 'gallagher benefits services');
  assert.is(analyzeName('R S C INS BKGE DBA RISK STRATAGIES CO.').norm, 'rsc insurance brokerage');
  assert.is(analyzeName('FOX EVERETT A DIVISION OF HUB INTER').norm, 'fox everett');
});

test('kinds: persons are agents, placeholders are dropped, firms stay firms', () => {
  for (const p of ['JOHN SMITH', 'SMITH, JOHN', 'JASON M GREB', 'Julie Ann Klimchak']) assert.is(analyzeName(p).kind, 'agent', p);
  for (const p of ['NONE', 'N/A', 'UNKNOWN', 'SEE ATTACHED', ' - ', '', 'SEE ATTACHED SCHEDULE', 'NOT APPLICABLE']) assert.is(analyzeName(p).kind, 'placeholder', p);
  for (const f of ['HUMMEL GROUP INC', 'IMG', 'BANK OF BARTLETT', 'SMITH INSURANCE AGENCY', 'R S C INS BKGE']) assert.is(analyzeName(f).kind, 'firm', f);
});

test('geography: a distinctive name is one firm across states, a generic or surname name one per place', () => {
  const r = resolveBrokers([
    line('HUMMEL GROUP INC', 'PO BOX 250', 'BERLIN', 'OH', '44610'),
    line('HUMMEL GROUP', '9 MAIN ST', 'AUSTIN', 'TX', '78701'),
    line('SMITH INSURANCE AGENCY', '1 MAIN ST', 'DAYTON', 'OH', '45402'),
    line('SMITH INSURANCE AGENCY', '1 MAIN ST', 'AUSTIN', 'TX', '78701'),
    line('JOHN SMITH', '1 MAIN ST', 'DAYTON', 'OH', '45402'),
    line('JOHN SMITH', '5 ELM ST', 'AUSTIN', 'TX', '78701'),
  ]);
  assert.is(r[0].firm, r[1].firm);
  assert.is.not(r[2].firm, r[3].firm);
  assert.is(r[4].kind, 'agent');
  assert.is(r[4].firm, r[2].firm, 'an agent at a firm office belongs to that firm');
  assert.is(r[4].office, r[2].office);
  assert.is(r[5].firm, '', 'an agent at no firm office has no firm');
  assert.is.not(r[4].office, r[5].office);
});

test('35-character cuts join the one full name they start; an ambiguous cut stays alone', () => {
  const r = resolveBrokers([
    line('SEQUOIA BENEFITS & INSURANCE SERVIC'),
    line('SEQUOIA BENEFITS & INSURANCE SERVICES LLC'),
    line('ABCDEF HOLDINGS INSURANCE SERVICES '.slice(0, 35)),
    line('ABCDEF HOLDINGS INSURANCE SERVICES OF OHIO'),
    line('ABCDEF HOLDINGS INSURANCE SERVICES OF TEXAS'),
  ]);
  assert.is(r[0].firm, r[1].firm);
  assert.is.not(r[2].firm, r[3].firm);
  assert.is.not(r[3].firm, r[4].firm);
});

test('offices: suite, floor, c/o and attention lines, spelled-out types and lockbox spellings are one office', () => {
  const n = 'NFP CORPORATE SERVICES (NY) LLC';
  const r = resolveBrokers([
    line(n, '200 PARK AVE RM 3202', 'NEW YORK', 'NY', '10166-3201', 'ATTN ACCOUNTING'),
    line(n, 'ATTN: ACCOUNTING', 'NEW YORK', 'NY', '10166', '200 PARK AVENUE 32ND FLOOR'),
    line(n, 'C/O NFP', 'NEW YORK', 'NY', '10166', '200 PARK AVENUE, SUITE 3202'),
    line(n, 'PO BOX 786677', 'PHILADELPHIA', 'PA', '19178'),
    line(n, 'P.O. BOX 786677', 'PHILADELPHIA', 'PA', '19178-6677'),
    line(n, 'LOCKBOX 786677', 'PHILADELPHIA', 'PA', '19178'),
    line(n, 'POST OFFICE BOX 786677', 'PHILADELPHIA', 'PA', '19178'),
    line(n, '340 MADISON AVE', 'NEW YORK', 'NY', '10173'),
    line(n, '', '', '', ''),
  ]);
  assert.is(new Set(r.slice(0, 3).map((x) => x.office)).size, 1);
  assert.is(new Set(r.slice(3, 7).map((x) => x.office)).size, 1);
  assert.is.not(r[0].office, r[3].office);
  assert.is.not(r[0].office, r[7].office);
  assert.is(r[8].office, null);
  assert.ok(r.slice(0, 8).every((x) => x.firm === r[0].firm));
});

test('scale and order: 200k synthetic distinct lines resolve, and shuffled input gives the same keys', () => {
  const firms = ['ACME BENEFITS', 'NORTH STAR RISK', 'VALLEY INSURANCE AGENCY', 'ZENITH FINANCIAL', 'OAKTREE BENEFIT ADVISORS'];
  const states = ['OH', 'TX', 'CA', 'NY', 'IL', 'FL', 'GA', 'PA'];
  const lines: BrokerLine[] = [];
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  for (let i = 0; lines.length < 200_000; i++) {
    const base = i % 3 === 0 ? `${firms[i % firms.length]} ${i % 9000}` : i % 3 === 1 ? `PERSON${i % 5000} AGENTNAME` : `${firms[i % firms.length]}`;
    const st = states[Math.floor(rnd() * states.length)];
    lines.push(line(`${base} ${i % 2 ? 'LLC' : 'INC'}`.slice(0, 35), `${100 + (i % 977)} MAIN ST`, `CITY${i % 211}`, st, String(10000 + (i % 89999)), i % 5 ? `STE ${i}` : ''));
  }
  const t = performance.now();
  const a = resolveBrokers(lines);
  const ms = performance.now() - t;
  console.log(`  ${lines.length} synthetic lines resolved in ${ms.toFixed(0)} ms`);
  const order = lines.map((_, i) => i).sort(() => rnd() - 0.5);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const b = resolveBrokers(order.map((i) => lines[i]));
  order.forEach((orig, k) => {
    if (a[orig].firm !== b[k].firm || a[orig].office !== b[k].office) assert.unreachable(`line ${orig}: ${JSON.stringify(a[orig])} vs ${JSON.stringify(b[k])}`);
  });
});

test.run();
