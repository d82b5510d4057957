/**
 * What the operator command groups share: connected services for one command, the `--json` or
 * text printer, option parsers, and the example every command's help ends with. Wiring only.
 */
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { loadConfig } from '../core/config.ts';
import { createServices } from '../server/context.ts';
import { toMilli } from '../server/pricing.ts';
import { ALL_SCOPES } from '../server/scopes.ts';

/** Runs `fn` with connected services, closing them after. */
export async function withServices<T>(fn: (s: ReturnType<typeof createServices>) => Promise<T>): Promise<T> {
  const services = createServices(loadConfig());
  await services.redis.connect();
  try {
    return await fn(services);
  } finally {
    await services.close();
  }
}

/** Prints `value` as JSON with --json, else `text`. */
export const print = (json: boolean | undefined, value: unknown, text: string) => process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${text}\n`);

/** A number of credits (up to 3 decimals), as milli-credits. */
export function creditsArg(v: string): number {
  const n = Number(v);
  const m = Number.isFinite(n) ? toMilli(n) : null;
  if (m === null) throw new InvalidArgumentError('expected a number of credits (up to 3 decimals)');
  return m;
}

/** A comma-separated list of known scopes. */
export function scopesArg(v: string): string[] {
  const list = v.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = list.filter((s) => !ALL_SCOPES.includes(s));
  if (unknown.length) throw new InvalidArgumentError(`unknown scope(s) ${unknown.join(', ')}; known: ${ALL_SCOPES.join(', ')}`);
  return list;
}

/** A whole number of at least 1 (`what` names it in the error). */
export const positiveWhole = (what = 'a positive whole number') => (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`expected ${what}`);
  return n;
};

export { example } from './example.ts';
