// @test-kind pure: runs with the other pure files in one process (test/runner/plan.ts)
/**
 * Field tiers (server/services/tiers.ts) are pure functions of a key record and an entity
 * definition: the records are built here in memory, in the shape KeyService stores them, so
 * no Redis or server is needed. (That createChild really derives a basic child this way is
 * checked over HTTP in keys.test.ts.)
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { ENTITIES, ENTITY_NAMES, entity } from '../../mappings/index.ts';
import type { EntityDef, FieldDef, Tier } from '../../mappings/types.ts';
import type { KeyRecord } from '../../server/services/keys.ts';
import { advancedAmong, assertFieldsAllowed, assertSortAllowed, keyTier, visibleFields } from '../../server/services/tiers.ts';
import { ApiError } from '../../server/errors.ts';

type Templates = KeyRecord['field_tiers'];

const outputFields = (def: EntityDef): FieldDef[] => def.fields.filter((f) => f.output !== false);
const names = (fields: readonly FieldDef[]): string[] => fields.map((f) => f.name);

/** The per-tier field lists every root key carries: the output fields of each definition by their tier. */
function defaultTemplates(): Templates {
  return Object.fromEntries(
    ENTITIES.map((def) => [def.name, { basic: names(outputFields(def).filter((f) => f.tier !== 'advanced')), advanced: names(outputFields(def).filter((f) => f.tier === 'advanced')) }]),
  );
}

/** A root key record as KeyService.createRoot stores it, built in memory. */
function rootKey(tier: Tier, over: Partial<KeyRecord> = {}): KeyRecord {
  return {
    id: `key_${tier}`,
    org: 'tiers',
    user: 'u',
    name: 'root key',
    key_type: 'live',
    scopes: ['read:companies', 'read:personnel', 'read:broker-offices', 'read:brokers'],
    field_tier: tier,
    entity_field_tiers: Object.fromEntries(ENTITY_NAMES.map((e) => [e, tier])),
    field_tiers: defaultTemplates(),
    parent_id: null,
    internal: false,
    secret_prefix: 'bk_live_0000',
    secret_hash: '0'.repeat(64),
    status: 'active',
    created_at: '2025-01-01T00:00:00.000Z',
    revoked_at: null,
    rotated_at: null,
    ...over,
  };
}

/** A child of `parent` with the given tier, derived as KeyService.createChild does (a basic child is basic everywhere). */
function childKey(parent: KeyRecord, tier: Tier): KeyRecord {
  const entityTiers = Object.fromEntries(Object.entries(parent.entity_field_tiers).map(([e, t]) => [e, tier === 'basic' ? 'basic' : t])) as Record<string, Tier>;
  return { ...parent, id: `${parent.id}_child`, name: 'child key', parent_id: parent.id, field_tier: tier, entity_field_tiers: entityTiers, field_tiers: structuredClone(parent.field_tiers) };
}

function refusal(fn: () => void): ApiError {
  try {
    fn();
  } catch (err) {
    assert.instance(err, ApiError);
    return err as ApiError;
  }
  throw new Error('expected a 403');
}

/** Any entity definition. */
const anyEntity = fc.constantFrom(...ENTITIES);
/** A basic key as stored (default templates), or one without templates (definition tiers only). */
const anyBasicKey = fc.constantFrom(rootKey('basic'), rootKey('basic', { field_tiers: {} }), childKey(rootKey('advanced'), 'basic'));
/** An advanced key, with or without templates. */
const anyAdvancedKey = fc.constantFrom(rootKey('advanced'), rootKey('advanced', { field_tiers: {} }), childKey(rootKey('advanced'), 'advanced'));
/** An entity and a list of names: some of its fields (output or filter-only), in any order, and unknown names. */
const entityAndNames = anyEntity.chain((def) =>
  fc.tuple(fc.constant(def), fc.array(fc.oneof(fc.constantFrom(...names(def.fields)), fc.constantFrom('nope', 'id ', '')), { maxLength: 8 })),
);

test('basic keys: every advanced field and sort column is refused with 403 naming it; basic ones pass', () => {
  const rec = rootKey('basic');
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

test('advanced keys see and sort by everything; a basic child of an advanced parent is basic', () => {
  const rec = rootKey('advanced');
  const companies = entity('companies');
  assertFieldsAllowed(rec, companies, ['total_premiums', 'participants']);
  assertSortAllowed(rec, companies, 'filing_year');
  assert.ok(visibleFields(rec, companies).some((f) => f.name === 'admin_email'));
  const childRec = childKey(rec, 'basic');
  assert.is(keyTier(childRec, companies), 'basic');
  refusal(() => assertSortAllowed(childRec, companies, 'total_premiums'));
});

test('property: a basic key never gets an advanced field from visibleFields; it gets every basic output field, in definition order', () => {
  fc.assert(
    fc.property(anyBasicKey, anyEntity, (key, def) => {
      const visible = visibleFields(key, def);
      assert.ok(visible.every((f) => f.tier !== 'advanced' && f.output !== false), `${def.name}: ${names(visible)}`);
      assert.equal(names(visible), names(outputFields(def).filter((f) => f.tier !== 'advanced')), def.name);
    }),
  );
});

test('property: an advanced key gets every output field, in definition order, and may ask for and sort by any field', () => {
  fc.assert(
    fc.property(anyAdvancedKey, entityAndNames, (key, [def, asked]) => {
      assert.is(keyTier(key, def), 'advanced');
      assert.equal(names(visibleFields(key, def)), names(outputFields(def)), def.name);
      assert.equal(advancedAmong(key, def, asked), []);
      assertFieldsAllowed(key, def, asked);
      for (const f of def.fields.filter((x) => x.sortable)) assertSortAllowed(key, def, f.name);
    }),
  );
});

test('property: a basic key is refused exactly the advanced fields it names, every one named in the 403, in the order asked', () => {
  fc.assert(
    fc.property(anyBasicKey, entityAndNames, (key, [def, asked]) => {
      const advanced = asked.filter((n) => def.fields.find((f) => f.name === n)?.tier === 'advanced');
      assert.equal(advancedAmong(key, def, asked), advanced);
      if (!advanced.length) {
        assertFieldsAllowed(key, def, asked);
        return;
      }
      const e = refusal(() => assertFieldsAllowed(key, def, asked, (n) => `cf[${n}]`));
      assert.equal([e.status, e.code], [403, 'FORBIDDEN']);
      assert.equal(e.details, advanced.map((n) => ({ field: `cf[${n}]`, issue: 'advanced_field' })));
    }),
  );
});

test('property: a basic key may sort by exactly the sortable columns that are not advanced', () => {
  fc.assert(
    fc.property(anyBasicKey, anyEntity, (key, def) => {
      for (const f of def.fields.filter((x) => x.sortable)) {
        if (f.tier !== 'advanced') assertSortAllowed(key, def, f.name);
        else assert.equal(refusal(() => assertSortAllowed(key, def, f.name)).details, [{ field: 'sort_by', issue: 'advanced_sort' }]);
      }
      assertSortAllowed(key, def, 'not_a_field');
    }),
  );
});

test('property: the per-resource tier wins over the key tier', () => {
  fc.assert(
    fc.property(fc.constantFrom<Tier>('basic', 'advanced'), fc.dictionary(fc.constantFrom(...ENTITY_NAMES), fc.constantFrom<Tier>('basic', 'advanced')), (tier, perEntity) => {
      const key = rootKey(tier, { entity_field_tiers: perEntity });
      for (const def of ENTITIES) {
        const want = perEntity[def.name] ?? tier;
        assert.is(keyTier(key, def), want, def.name);
        assert.is(visibleFields(key, def).length === outputFields(def).length, want === 'advanced' || outputFields(def).every((f) => f.tier !== 'advanced'), def.name);
      }
    }),
  );
});

test("property: a key's templates decide its output fields; filter-only attributes keep their definition's tier", () => {
  const personnel = entity('personnel');
  const filterOnlyAdvanced = personnel.fields.filter((f) => f.output === false && f.tier === 'advanced');
  assert.ok(filterOnlyAdvanced.length > 0, 'personnel has an advanced filter-only attribute');
  fc.assert(
    fc.property(anyEntity.chain((def) => fc.tuple(fc.constant(def), fc.array(fc.boolean(), { minLength: outputFields(def).length, maxLength: outputFields(def).length }))), ([def, advancedFlags]) => {
      const out = outputFields(def);
      const template = { basic: names(out.filter((_, i) => !advancedFlags[i])), advanced: names(out.filter((_, i) => advancedFlags[i])) };
      const key = rootKey('basic', { field_tiers: { ...defaultTemplates(), [def.name]: template } });
      assert.equal(names(visibleFields(key, def)), template.basic, def.name);
      assert.equal(advancedAmong(key, def, names(out)), template.advanced, def.name);
      if (def === personnel) assert.equal(advancedAmong(key, def, names(filterOnlyAdvanced)), names(filterOnlyAdvanced));
      // An advanced key is not bound by its templates.
      assert.equal(names(visibleFields({ ...key, field_tier: 'advanced', entity_field_tiers: {} }, def)), names(out));
    }),
  );
});

test.run();
