/**
 * The commands `bintel reports` and `bintel flags` share (list, show, resolve): the operator's
 * side of bug reports and review flags (server/services/feedback.ts). Each group registers itself
 * in its own module (reports.ts, flags.ts). Wiring only.
 */
import { userInfo } from 'node:os';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { FEEDBACK_STATUSES, type FeedbackKind, type FeedbackRecord, type FeedbackStatus } from '../server/services/feedback.ts';
import { example, print, withServices } from './shared.ts';

/** One line per record in `list`. */
function line(kind: FeedbackKind, r: FeedbackRecord): string {
  const what = kind === 'report' ? `${r.endpoint} ${JSON.stringify(String(r.message).slice(0, 60))}` : `${r.entity_type}/${r.entity_id} ${r.field}: ${JSON.stringify(String(r.issue).slice(0, 60))}`;
  return `${r.id}  ${r.status.padEnd(8)} ${r.created_at}  ${r.org}/${r.filed_by.user}  ${what}`;
}

/** Every field of a record, one per line (`show`, `resolve`). */
const detail = (r: FeedbackRecord): string => Object.entries(r).map(([k, v]) => `${k}: ${typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v)}`).join('\n');

function statusArg(v: string): FeedbackStatus {
  if (!(FEEDBACK_STATUSES as readonly string[]).includes(v)) throw new InvalidArgumentError(`expected ${FEEDBACK_STATUSES.join(' or ')}`);
  return v as FeedbackStatus;
}

function limitArg(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 10_000) throw new InvalidArgumentError('expected a whole number from 1 to 10000');
  return n;
}

/** Registers the group `name` of one kind of feedback (`what` is its plural in words). */
export function registerFeedbackGroup(program: Command, kind: FeedbackKind, name: string, what: string): void {
  const cmd = example(program.command(name).summary(`list, show and resolve ${what}`).description(`${what} filed through the API: list, show and resolve`), `bintel ${name} list --status open`);
  const id = kind === 'report' ? 'rpt_5f0c2a9e7b3d41c68a2e9f10' : 'flg_0d3e8b1c6a2f4e9d7b5a1c08';
  example(cmd
    .command('list')
    .description(`${what}, newest first`)
    .option('--status <status>', `only ${FEEDBACK_STATUSES.join(' or ')}`, statusArg)
    .option('--org <org>', 'only this organization')
    .option('--limit <n>', 'at most this many (default 50)', limitArg, 50)
    .option('--json', 'JSON output (an array)')
    .action(async (o: { status?: FeedbackStatus; org?: string; limit: number; json?: boolean }) => {
      const records = await withServices((s) => s.feedback.listAll(kind, { status: o.status, org: o.org, limit: o.limit }));
      print(!!o.json, records, records.length ? records.map((r) => line(kind, r)).join('\n') : `(no ${what})`);
    }), `bintel ${name} list --status open --org acme --limit 20`);
  example(cmd
    .command('show')
    .description(`one ${kind} with every field`)
    .argument('<id>')
    .option('--json', 'JSON output')
    .action(async (id: string, o: { json?: boolean }) => {
      const rec = await withServices((s) => s.feedback.find(kind, id));
      if (!rec) throw new Error(`no ${kind} ${id}`);
      print(!!o.json, rec, detail(rec));
    }), `bintel ${name} show ${id} --json`);
  example(cmd
    .command('resolve')
    .description(`resolve a ${kind} with a note (its author sees the status, the note, who and when)`)
    .argument('<id>')
    .requiredOption('--note <text>', 'resolution note')
    .option('--by <name>', 'who resolves it (default: the operating system user)')
    .option('--json', 'JSON output')
    .action(async (id: string, o: { note: string; by?: string; json?: boolean }) => {
      if (!o.note.trim()) throw new InvalidArgumentError('--note must not be empty');
      const by = o.by?.trim() || userInfo().username;
      const out = await withServices((s) => s.feedback.resolve(kind, id, by, o.note.trim()));
      if (out === 'missing') throw new Error(`no ${kind} ${id}`);
      if (out === 'resolved') throw new Error(`${kind} ${id} is already resolved`);
      print(!!o.json, out, `resolved ${out.id} by ${by}\n${detail(out)}`);
    }), `bintel ${name} resolve ${id} --note "${kind === 'report' ? 'fixed in 1.4.2' : 'corrected the title'}" --by ops`);
}
