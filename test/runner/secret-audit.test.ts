// @test-kind pure: runs with the other pure files in one process (test/runner/plan.ts)
/** The run-wide secret audit finds a secret in a log line, and only there. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditSecrets, secretsIn } from './secret-audit.ts';

test('secretsIn finds secret and token values at any depth', () => {
  const body = { ok: true, data: { id: 'k1', secret: 'bk_live_aaaaaaaaaaaa', nested: [{ token: 'eyJhbGciOi.xxxx.yyyy' }] }, meta: { secret_hint: 'x' } };
  assert.equal(secretsIn(body).sort(), ['bk_live_aaaaaaaaaaaa', 'eyJhbGciOi.xxxx.yyyy']);
});

test('a log line holding a recorded secret is a leak, reported with the secret masked', () => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-test-'));
  try {
    writeFileSync(join(dir, '1.secrets'), 'bk_live_0123456789abcdef\nshort\n');
    writeFileSync(join(dir, '2.secrets'), 'eyJhbGciOiJIUzI1NiJ9.e30.sig\n');
    writeFileSync(join(dir, '1.log'), '{"msg":"request","path":"/v1/whoami"}\n{"msg":"oops","auth":"Bearer bk_live_0123456789abcdef"}\n');
    writeFileSync(join(dir, '2.log'), '{"msg":"request","short":"short"}\n');
    const r = auditSecrets(dir);
    assert.is(r.secrets, 2, 'strings under 12 characters are not secrets');
    assert.is(r.lines, 3);
    assert.is(r.leaks.length, 1);
    assert.is(r.leaks[0].file, '1.log');
    assert.not.match(r.leaks[0].line, /0123456789abcdef/);
    assert.match(r.leaks[0].line, /Bearer <secret>/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
