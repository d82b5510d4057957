/**
 * A process that leaves one rejection unhandled, made inside a request's scope, then writes
 * "still serving" on its next turn (test/server/unhandled.test.ts). `guarded`: with the server's
 * process-level handler installed (its log on stdout); `unguarded`: Node's default.
 */
const guarded = process.argv[2] === 'guarded';
const scope = guarded ? await import('../../server/process-guard.ts') : null;
if (scope) {
  const { createLogger } = await import('../../server/context.ts');
  scope.guardProcess(createLogger('info'));
}
const reject = () => void Promise.reject(new Error('nobody caught this'));
if (scope) scope.inRequestScope('req_rejectonce0000000000000000001', reject);
else reject();
setTimeout(() => process.stdout.write('still serving\n'), 0);
