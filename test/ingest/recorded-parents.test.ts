// @test-kind pure: runs with the other pure files in one process (test/runner/plan.ts)
/**
 * The record of parents an import's children join from (ingest/recorded-parents.ts): what it
 * serves is the recorded rows' joined fields, ids asked again or out of order are still served,
 * and ids it lacks (or a parent marked unusable) go to the fallback.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Doc, EntityName } from '../../mappings/types.ts';
import { fieldsReadFrom, RecordedParents } from '../../ingest/recorded-parents.ts';
import type { ParentLookup, PreparedRow } from '../../ingest/transform.ts';

const rows = (docs: Doc[]): PreparedRow[] => docs.map((doc, i) => ({ row: i + 1, line: 0, doc }) as unknown as PreparedRow);

function fallback(): ParentLookup & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    fetch: async (_e: EntityName, ids: readonly string[]) => {
      asked.push(...ids);
      return new Map(ids.filter((id) => id.startsWith('es-')).map((id) => [id, { id, company_name: `ES ${id}` } as Doc]));
    },
  };
}

for (const large of [false, true]) {
  test(`companies recorded ${large ? 'to a file read forward' : 'in memory'}: served in order, again, out of order; unknown ids from the fallback`, async () => {
    const rec = new RecordedParents();
    try {
      const fields = [...fieldsReadFrom('companies')].sort();
      assert.ok(fields.includes('company_name') && !fields.includes('lead_source'), fields.join(','));
      const record = rec.recorder('companies', large);
      const docs = Array.from({ length: 12_000 }, (_, i) => ({ id: `c${i}`, company_name: `Co ${i}`, state: 'TX', carriers: [`K${i % 7}`], unrelated: 'x' }) as Doc);
      for (let i = 0; i < docs.length; i += 100) record(rows(docs.slice(i, i + 100)));
      const fb = fallback();
      const lookup = rec.lookup(fb);
      const want = fields.filter((f) => ['company_name', 'state', 'carriers'].includes(f));
      const one = await lookup.fetch('companies', ['c0', 'c1'], want);
      assert.equal(one.get('c1'), { company_name: 'Co 1', state: 'TX', carriers: ['K1'] });
      assert.equal((await lookup.fetch('companies', ['c1', 'c2', 'c5000'], want)).get('c5000')?.company_name, 'Co 5000', 'asked again, and further on');
      assert.equal((await lookup.fetch('companies', ['c3'], want)).get('c3')?.company_name, 'Co 3', 'behind the last one asked');
      const mixed = await lookup.fetch('companies', ['c9000', 'es-9', 'nowhere'], want);
      assert.is(mixed.get('c9000')?.company_name, 'Co 9000');
      assert.is(mixed.get('es-9')?.company_name, 'ES es-9');
      assert.not.ok(mixed.has('nowhere'));
      assert.equal(fb.asked, ['es-9', 'nowhere']);
      assert.equal(rec.stats, { recorded: 7, fallback: 2 });
      rec.forget('companies');
      await lookup.fetch('companies', ['c4'], want);
      assert.equal(fb.asked.slice(-1), ['c4'], 'a parent marked unusable goes to the fallback');
    } finally {
      rec.close();
    }
  });
}

test('fields the record lacks go to the fallback', async () => {
  const rec = new RecordedParents();
  try {
    rec.recorder('brokers', false)(rows([{ id: 'b1', broker_name: 'B' } as Doc]));
    const fb = fallback();
    await rec.lookup(fb).fetch('brokers', ['b1'], ['no_such_field']);
    assert.equal(fb.asked, ['b1']);
  } finally {
    rec.close();
  }
});

test.run();
