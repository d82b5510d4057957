// @test-kind pure: runs with the other pure files in one process (test/runner/plan.ts)
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { companies } from '../../mappings/companies.ts';
import { personnel } from '../../mappings/personnel.ts';
import { csvFields, fieldOf } from '../../mappings/index.ts';
import { coerceField } from '../../ingest/validate.ts';
import { isRejected, naturalId, prepareRow, type RejectedRow, type PreparedRow } from '../../ingest/transform.ts';

const field = (name: string) => {
  const f = fieldOf(companies, name);
  if (!f) throw new Error(name);
  return f;
};

test('coercion by type: CSV strings and typed values pass the same checks', () => {
  assert.equal(coerceField(field('participants'), '1,234'), { ok: true, value: 1234 });
  assert.equal(coerceField(field('participants'), 1234), { ok: true, value: 1234 });
  assert.is((coerceField(field('participants'), '12.5') as { issue: string }).issue, 'invalid_integer');
  assert.is((coerceField(field('participants'), '-3') as { issue: string }).issue, 'out_of_range');
  assert.equal(coerceField(field('participant_growth'), '-2.5'), { ok: true, value: -2.5 });
  assert.equal(coerceField(field('state'), 'ny'), { ok: true, value: 'NY' });
  assert.is((coerceField(field('state'), 'New York') as { issue: string }).issue, 'invalid_state');
  assert.equal(coerceField(field('ein'), '12-3456789'), { ok: true, value: '123456789' });
  assert.is((coerceField(field('funding_status'), 'self funded') as { issue: string }).issue, 'invalid_value');
  assert.equal(coerceField(field('benefit_types'), 'Medical; Dental;;Medical'), { ok: true, value: ['Medical', 'Dental'] });
  assert.equal(coerceField(field('benefit_types'), ['Vision']), { ok: true, value: ['Vision'] });
  assert.equal(coerceField(field('total_premiums'), '   '), { ok: true, value: null });
  assert.is((coerceField(field('company_name'), '') as { issue: string }).issue, 'missing_required');
  assert.is((coerceField(field('company_name'), 'Bad \uFFFD name') as { issue: string }).issue, 'invalid_utf8');
  assert.is((coerceField(field('last_updated_at'), '2025-13-45') as { issue: string }).issue, 'invalid_iso_date');
});

test('prepareRow reports every issue of a row at once, with field names', () => {
  const r = prepareRow(companies, { row: 7, line: 8, values: { company_name: '', participants: 'many', state: 'Texas', filing_year: '2024' } }, csvFields(companies));
  assert.ok(isRejected(r));
  const issues = (r as RejectedRow).issues.map((i) => `${i.field}:${i.issue}`).sort();
  assert.equal(issues, ['company_name:missing_required', 'id:missing_required', 'participants:invalid_integer', 'state:invalid_state']);
  assert.is((r as RejectedRow).line, 8);
});

test('ids: the CSV id wins; without it the id is a stable hash of the natural key', () => {
  const fields = csvFields(companies);
  const base = { company_name: 'Acme', ein: '123456789', filing_year: '2024' };
  const a = prepareRow(companies, { row: 1, line: 2, values: base }, fields) as PreparedRow;
  const b = prepareRow(companies, { row: 9, line: 10, values: { ...base, company_name: 'Acme Inc' } }, fields) as PreparedRow;
  assert.is(a.id, b.id, 'same EIN, same id');
  assert.match(a.id, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  const c = prepareRow(companies, { row: 1, line: 2, values: { ...base, id: 'c-42' } }, fields) as PreparedRow;
  assert.is(c.id, 'c-42');
  const d = prepareRow(companies, { row: 1, line: 2, values: { ...base, id: 'bad id with spaces' } }, fields);
  assert.ok(isRejected(d));
  assert.is(naturalId(companies, {}), null);
});

test('personnel rules: each side needs its own parent and not the other', () => {
  const fields = csvFields(personnel);
  const check = (values: Record<string, string>) => {
    const r = prepareRow(personnel, { row: 1, line: 2, values: { full_name: 'Ana Diaz', ...values } }, fields);
    return isRejected(r) ? r.issues.map((i) => `${i.field}:${i.issue}`) : [];
  };
  assert.equal(check({ lead_type: 'company', company_id: 'c1' }), []);
  assert.equal(check({ lead_type: 'broker', broker_office_id: 'o1' }), []);
  assert.equal(check({ lead_type: 'company' }), ['company_id:missing_required']);
  assert.equal(check({ lead_type: 'broker', broker_office_id: 'o1', company_id: 'c1' }), ['company_id:not_allowed_for_broker_contact']);
  assert.equal(check({ lead_type: 'partner', company_id: 'c1' }), ['lead_type:invalid_value']);
});

test.run();
