/**
 * The one compare-and-set loop (server/cas.ts): a round that decides ends it at once; a round
 * lost to another writer is run again, at most `attempts` times; then 409 CONFLICT naming the
 * field with `concurrent_change`, or what `exhausted` answers. Properties over every number of
 * lost rounds and bounds. (The records' own writes are tested against Redis in keys, tags,
 * writing-resources, feedback and paid-jobs tests; this is the loop alone.)
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { CAS_ATTEMPTS, RETRY, compareAndSet } from '../../server/cas.ts';
import { ApiError } from '../../server/errors.ts';

const t = suite('cas');

t('a round that decides ends the loop with its value; lost rounds are retried; past the bound, 409 concurrent_change', async () => {
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 30 }), async (lost, attempts) => {
      let rounds = 0;
      const run = compareAndSet({ field: 'key_id', what: 'The key', attempts }, async () => (rounds++ < lost ? RETRY : 'written'));
      if (lost < attempts) {
        assert.is(await run, 'written');
        assert.is(rounds, lost + 1, 'one round per lost write, then the one that decides');
      } else {
        try {
          await run;
          assert.unreachable('a loop past its bound answers 409');
        } catch (err) {
          assert.instance(err, ApiError);
          assert.is((err as ApiError).code, 'CONFLICT');
          assert.equal((err as ApiError).details, [{ field: 'key_id', issue: 'concurrent_change' }]);
        }
        assert.is(rounds, attempts, 'never more rounds than the bound');
      }
    }),
  );
});

t('exhausted answers instead of the 409; the default bound is CAS_ATTEMPTS', async () => {
  let rounds = 0;
  assert.is(await compareAndSet({ field: 'id', what: 'The job', attempts: 5, exhausted: () => null }, async () => (rounds++, RETRY)), null);
  assert.is(rounds, 5);
  rounds = 0;
  await compareAndSet({ field: 'id', what: 'The record' }, async () => (rounds++, RETRY)).catch(() => {});
  assert.is(rounds, CAS_ATTEMPTS);
});

t('an error thrown by a round ends the loop with it (a refusal is no lost round)', async () => {
  let rounds = 0;
  const err = await compareAndSet({ field: 'id', what: 'The record' }, async () => {
    rounds++;
    throw new Error('precondition failed');
  }).catch((e: Error) => e);
  assert.is((err as Error).message, 'precondition failed');
  assert.is(rounds, 1);
});

t.run();
