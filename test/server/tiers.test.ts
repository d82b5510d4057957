import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { ENTITIES, entity } from '../../mappings/index.ts';
import { assertFieldsAllowed, assertSortAllowed, keyTier, visibleFields } from '../../server/services/tiers.ts';
import { ApiError } from '../../server/errors.ts';
import { createServices } from '../../server/context.ts';
import { testConfig } from '../helpers/env.ts';

const services = createServices(testConfig());
const org = `tiers-${randomUUID().slice(0, 8)}`;

function refusal(fn: () => void): ApiError {
  try {
    fn();
  } catch (err) {
    assert.instance(err, ApiError);
    return err as ApiError;
  }
  throw new Error('expected a 403');
}

test.after(() => services.close());

test('basic keys: every advanced field and sort column is refused with 403 naming it; basic ones pass', async () => {
  const { key } = await services.keys.createRoot({ org, user: 'u', field_tier: 'basic' });
  const rec = (await services.keys.get(key.id))!;
  for (const def of ENTITIES) {
    assert.is(keyTier(rec, def), 'basic');
    for (const f of def.fields.filter((x) => x.output !== false)) {
      if (f.tier === 'advanced') {
        const e = refusal(() => assertFieldsAllowed(rec, def, ['id', f.name]));
        assert.is(e.status, 403);
        assert.is(e.code, 'FORBIDDEN');
        assert.equal(e.details, [{ field: `fields.${f.name}`, issue: 'advanced_field' }]);
        if (f.sortable) assert.is(refusal(() => assertSortAllowed(rec, def, f.name)).details[0].field, 'sort_by');
      } else {
        assertFieldsAllowed(rec, def, [f.name]);
        if (f.sortable) assertSortAllowed(rec, def, f.name);
      }
    }
    assert.ok(visibleFields(rec, def).every((f) => f.tier !== 'advanced'));
  }
});

test('advanced keys see and sort by everything; children of basic parents stay basic', async () => {
  const { key } = await services.keys.createRoot({ org, user: 'u', field_tier: 'advanced' });
  const rec = (await services.keys.get(key.id))!;
  const companies = entity('companies');
  assertFieldsAllowed(rec, companies, ['total_premiums', 'participants']);
  assertSortAllowed(rec, companies, 'filing_year');
  assert.ok(visibleFields(rec, companies).some((f) => f.name === 'admin_email'));
  const child = await services.keys.createChild(rec, { scopes: ['read:companies'], field_tier: 'basic' });
  const childRec = (await services.keys.get(child.key.id))!;
  assert.is(keyTier(childRec, companies), 'basic');
  refusal(() => assertSortAllowed(childRec, companies, 'total_premiums'));
});

test.run();
