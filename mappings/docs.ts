/**
 * Markdown reference of the CSV formats, rendered from the entity definitions so docs/data.md
 * cannot drift from the code (a test compares them).
 */
import { ENTITIES, csvFields } from './index.ts';
import type { FieldDef } from './types.ts';

const TYPE_LABEL: Record<FieldDef['type'], string> = {
  keyword: 'text',
  name: 'text (name)',
  text: 'text',
  keywords: 'list, `;`-separated',
  integer: 'integer',
  long: 'integer',
  double: 'number',
  boolean: 'true/false',
  date: 'ISO-8601 date',
};

function rule(f: FieldDef): string {
  const parts: string[] = [];
  if (f.source.kind === 'csv' && f.source.required) parts.push('**required**');
  if (f.enum) parts.push(`one of: ${f.enum.map((e) => `\`${e}\``).join(', ')}`);
  if (f.format) parts.push(`format: ${f.format}`);
  if (f.min !== undefined || f.max !== undefined) parts.push(`range: ${f.min ?? '…'} to ${f.max ?? '…'}`);
  return parts.join('; ');
}

/** The CSV columns of every entity, as markdown sections. */
export function csvReference(): string {
  const out: string[] = [];
  for (const def of ENTITIES) {
    out.push(`### ${def.name}.csv\n`);
    out.push('| column | type | rules | meaning |');
    out.push('|---|---|---|---|');
    for (const f of csvFields(def)) {
      const enumHeavy = f.enum && f.enum.length > 12;
      const r = enumHeavy ? `${rule({ ...f, enum: undefined })}; see \`mappings/\`` : rule(f);
      out.push(`| \`${f.name}\` | ${TYPE_LABEL[f.type]} | ${r.replace(/\|/g, '\\|')} | ${f.description} |`);
    }
    const joined = def.fields.filter((f) => f.source.kind !== 'csv').map((f) => `\`${f.name}\``);
    if (joined.length) out.push(`\nComputed at ingest (derived or copied from parents): ${joined.join(', ')}.`);
    out.push('');
  }
  return out.join('\n');
}

/**
 * The columns of a CSV export (and of `format=flat` rows) per entity, in order: the default
 * (mode=basic) columns, what mode=full adds (advanced tier), then lead_source and the per-caller
 * members. `fields=` picks a subset in the same order (id always first).
 */
export function exportColumnsReference(): string {
  const out: string[] = ['| resource | columns (mode=basic) | mode=full also has (advanced; each in its definition place) | then |', '|---|---|---|---|'];
  for (const def of ENTITIES) {
    const shown = def.fields.filter((f) => f.output !== false);
    const basic = shown.filter((f) => f.tier !== 'advanced').map((f) => `\`${f.name}\``);
    const advanced = shown.filter((f) => f.tier === 'advanced').map((f) => `\`${f.name}\``);
    const members = def.callerMembers ?? [];
    const then = ['`lead_source`', '`lead_source_retrieved_at`', ...(members.includes('crm_status') ? ['`crm_status`'] : []), ...(members.includes('tags') ? ['`tags` (mode=full)'] : [])];
    out.push(`| ${def.name} | ${basic.join(', ')} | ${advanced.join(', ') || '(none)'} | ${then.join(', ')} |`);
  }
  return out.join('\n');
}

/** The files that hold the generated sections, relative to the repository root. */
export const GENERATED_DOCS = ['docs/data.md', 'docs/api.md'] as const;

/** Each generated section: its marker name and its content. */
export const GENERATED_SECTIONS: Record<string, () => string> = {
  'csv-reference': csvReference,
  'export-columns': exportColumnsReference,
};

/**
 * Rewrites every generated section `doc` holds; `sections` names them (none: `doc` unchanged).
 * `from`: the sections to look for (default: those rendered from the entity definitions alone;
 * `bintel docs` adds the consumer's reference, server/openapi/reference.ts).
 */
export function regenerateSections(doc: string, from: Record<string, () => string> = GENERATED_SECTIONS): { text: string; sections: string[] } {
  let text = doc;
  const sections: string[] = [];
  for (const [name, render] of Object.entries(from)) {
    if (!text.includes(`<!-- ${name}:start -->`)) continue;
    text = replaceSection(text, name, render());
    sections.push(name);
  }
  return { text, sections };
}

/** Replaces the text between `<!-- name:start -->` and `<!-- name:end -->` in a document. */
export function replaceSection(doc: string, name: string, body: string): string {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const i = doc.indexOf(start);
  const j = doc.indexOf(end);
  if (i === -1 || j < i) throw new Error(`no ${start} … ${end} section`);
  return `${doc.slice(0, i + start.length)}\n${body.trim()}\n${doc.slice(j)}`;
}
