/**
 * Brokers (brokerages). A broker's core (class, name, headquarters) is a pure function of
 * its index; its totals are the sums over its offices, gathered in the context's layout.
 */
import { dec2, int, keywords, type Row } from './format.ts';
import type { Ctx } from './context.ts';
import { CITY_PICK, METRO_PICK, cityDma, cityName, cityState, phoneOf } from './geo.ts';
import { brokerName, domainStem, linkedinSlug, type BrokerageClass } from './orgnames.ts';
import { rowRng, uuid, Weighted } from './prng.ts';
import { pickSignals, signalList } from './signals.ts';

export interface BrokerCore {
  readonly cls: BrokerageClass;
  readonly name: string;
  /** The name without its legal suffix. */
  readonly base: string;
  readonly domain: string;
  /** Headquarters city (index into CITIES). */
  readonly hq: number;
  /** Relative share of the extra offices (national and regional players). */
  readonly spread: number;
}

const BROKER_SIGNALS = signalList(['new_filer', 'carrier_change', 'below_peer_growth', 'likely_to_switch']);
const CLASS_PICK = new Weighted<BrokerageClass>([['national player', 3], ['regional player', 20], ['local broker', 77]]);

export function brokerId(ctx: Ctx, i: number): string {
  return uuid(ctx.keys.brokers ^ 0x1d, i);
}

export function brokerCore(ctx: Ctx, i: number): BrokerCore {
  const rng = rowRng(ctx.keys.brokers, i, 0);
  const cls = CLASS_PICK.pick(rng);
  const hq = (cls === 'national player' ? METRO_PICK : CITY_PICK).pick(rng);
  const { name, base } = brokerName(rng, cls, hq);
  const domain = domainStem(base) + (rng.chance(0.9) ? '.com' : rng.pick(['.net', '.us', '.co']));
  const spread = cls === 'national player' ? 12 * rng.logNormal(1, 0.5) : cls === 'regional player' ? rng.logNormal(1, 0.5) : 0;
  return { cls, name, base, domain, hq, spread };
}

export function brokerRow(ctx: Ctx, i: number): Row {
  const core = brokerCore(ctx, i);
  const rng = rowRng(ctx.keys.brokers, i, 1);
  const L = ctx.layout;
  const offices = L.firstOffice[i + 1] - L.firstOffice[i];
  const growth = L.growthWeight[i] > 0 ? dec2(L.growthWeighted[i] / L.growthWeight[i]) : '';
  return {
    id: brokerId(ctx, i),
    broker_name: core.name,
    website: rng.chance(0.95) ? `https://www.${core.domain}` : '',
    broker_linkedin: rng.chance(core.cls === 'local broker' ? 0.6 : 0.95) ? `https://www.linkedin.com/company/${linkedinSlug(core.base)}` : '',
    hq_city: cityName(core.hq),
    hq_state: cityState(core.hq),
    hq_dma: cityDma(core.hq),
    phone_number: rng.chance(0.88) ? phoneOf(rng, core.hq) : '',
    brokerage_class: core.cls,
    total_clients: offices ? int(L.clients[i]) : '0',
    total_offices: String(offices),
    total_commissions: offices ? int(L.commissions[i]) : '',
    total_premiums: offices ? int(L.premiums[i]) : '',
    commission_growth: growth,
    signals: keywords(pickSignals(rng, 0.15, BROKER_SIGNALS)),
    last_updated_at: ctx.days.ago(rng.int(0, ctx.days.span - 1)),
  };
}

