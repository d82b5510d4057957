/**
 * Secrets never reach a log line, checked over the whole test run. The runner gives every test
 * process an audit directory (BINTEL_TEST_AUDIT_DIR); there the server harness writes the
 * service's own log (the production logger, at debug level, to a file instead of stdout) and
 * records every credential the tests issued or presented: API key secrets, JWTs, invalid bearer
 * strings. After the last file the runner looks for each one in every log line.
 */
import pino from 'pino';
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { createLogger } from '../../server/context.ts';

const ENV = 'BINTEL_TEST_AUDIT_DIR';

/** The audit directory of this run, or undefined outside the runner. */
export function auditDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env[ENV] || undefined;
}
export const AUDIT_ENV = ENV;

/** This process's audit log file as a pino destination, or undefined when no audit runs. */
export function auditStream(): pino.DestinationStream | undefined {
  const dir = auditDir();
  return dir ? pino.destination({ dest: join(dir, `${process.pid}.log`), sync: true, mkdir: true }) : undefined;
}

/** A logger writing to this process's audit log, or undefined when no audit runs. */
export function auditLogger(): Logger | undefined {
  const audit = auditStream();
  return audit ? createLogger('debug', audit) : undefined;
}

/** Shortest string recorded: shorter ones (test placeholders like "x") would match by chance. */
const MIN_SECRET = 12;

/** Records credentials this process issued or presented. */
export function recordSecrets(secrets: Iterable<string | undefined>): void {
  const dir = auditDir();
  if (!dir) return;
  const lines = [...secrets].filter((s): s is string => typeof s === 'string' && s.length >= MIN_SECRET && !s.includes('\n'));
  if (lines.length) appendFileSync(join(dir, `${process.pid}.secrets`), `${lines.join('\n')}\n`);
}

/** Every `secret` or `token` string value in a response body. */
export function secretsIn(body: unknown, out: string[] = []): string[] {
  if (Array.isArray(body)) for (const v of body) secretsIn(v, out);
  else if (body && typeof body === 'object') {
    for (const [k, v] of Object.entries(body)) {
      if ((k === 'secret' || k === 'token') && typeof v === 'string') out.push(v);
      else secretsIn(v, out);
    }
  }
  return out;
}

/** What the audit found: how many secrets and log lines it compared, and every line holding a secret. */
export interface AuditResult {
  secrets: number;
  lines: number;
  leaks: { file: string; line: string }[];
}

export function auditSecrets(dir: string): AuditResult {
  const files = readdirSync(dir);
  const secrets = new Set<string>();
  for (const f of files.filter((f) => f.endsWith('.secrets'))) for (const s of readFileSync(join(dir, f), 'utf8').split('\n')) if (s.length >= MIN_SECRET) secrets.add(s);
  const all = [...secrets];
  let lines = 0;
  const leaks: AuditResult['leaks'] = [];
  for (const f of files.filter((f) => f.endsWith('.log'))) {
    for (const line of readFileSync(join(dir, f), 'utf8').split('\n')) {
      if (!line) continue;
      lines++;
      const hit = all.find((s) => line.includes(s));
      if (hit) leaks.push({ file: f, line: line.replaceAll(hit, '<secret>').slice(0, 300) });
    }
  }
  return { secrets: all.length, lines, leaks };
}
