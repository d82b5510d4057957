/**
 * JSON Schema (the 2020-12 subset the bintel document uses) to a TypeScript type expression.
 * Pure: a schema in, source text out. `$ref`s name the generated component types; keywords that
 * only constrain values (minimum, pattern, maxLength ...) have no type and are left to the server.
 *
 *     { type: ['string', 'null'], enum: ['a', null] }      →  'a' | null
 *     { type: 'object', required: ['id'], properties: { id: { type: 'string' }, n: { type: 'integer' } } }
 *                                                          →  { id: string; n?: number }
 */

/** A JSON Schema object. */
export type JsonSchema = Record<string, unknown>;

const PRIMITIVE: Record<string, string> = { string: 'string', integer: 'number', number: 'number', boolean: 'boolean', null: 'null' };

/** A member name as written in a type: bare when it is an identifier, quoted otherwise. */
export const memberName = (name: string): string => (/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name));

/** A type name from a `$ref` (`#/components/schemas/CompaniesRow` → `CompaniesRow`). */
export const refName = (ref: string): string => ref.split('/').pop()!;

/** A union of distinct members, `never` when empty. */
export const union = (members: string[]): string => {
  const distinct = [...new Set(members)];
  if (distinct.length === 0) return 'never';
  return distinct.map((m) => (m.includes(' | ') && distinct.length > 1 ? `(${m})` : m)).join(' | ');
};

/** A literal of a `const` or `enum` value. */
const literal = (value: unknown): string => (value === null ? 'null' : typeof value === 'object' ? 'unknown' : JSON.stringify(value));

/** A JSDoc block for a description (one line per line of text), or nothing. */
export function doc(description: unknown, indent: string): string {
  if (typeof description !== 'string' || !description.trim()) return '';
  const lines = description.trim().replace(/\*\//g, '*\\/').split('\n');
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((l) => `${indent} *${l ? ` ${l}` : ''}`).join('\n')}\n${indent} */\n`;
}

/** The members of an object schema, one per line, with their descriptions. */
function objectType(schema: JsonSchema, indent: string): string {
  const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const inner = `${indent}  `;
  const lines = Object.entries(props).map(([name, s]) => `${doc(s.description, inner)}${inner}${memberName(name)}${required.has(name) ? '' : '?'}: ${tsType(s, inner)};\n`);
  const extra = schema.additionalProperties;
  // An index signature must admit the declared members too (`max_rows: number` beside `[key]: string`).
  const indexed = () => union([tsType(extra as JsonSchema, inner), ...Object.values(props).map((s) => tsType(s, inner)), ...(lines.length ? ['undefined'] : [])]);
  if (extra && typeof extra === 'object' && Object.keys(extra).length) lines.push(`${inner}[key: string]: ${indexed()};\n`);
  else if (!lines.length && extra !== false) return 'Record<string, unknown>';
  if (!lines.length) return 'Record<string, never>';
  return `{\n${lines.join('')}${indent}}`;
}

/** The type of one `type` name of a schema (the schema's other keywords apply to it). */
function typeOf(name: string, schema: JsonSchema, indent: string): string {
  if (name === 'object') return objectType(schema, indent);
  if (name === 'array') {
    const items = schema.items as JsonSchema | undefined;
    const item = items ? tsType(items, indent) : 'unknown';
    return /[ |&]/.test(item) && !item.startsWith('{') ? `Array<${item}>` : `${item}[]`;
  }
  return PRIMITIVE[name] ?? 'unknown';
}

/** The TypeScript type of a schema; `indent` is the indentation of the line the type starts on. */
export function tsType(schema: JsonSchema | boolean | undefined, indent = ''): string {
  if (schema === undefined || schema === true) return 'unknown';
  if (schema === false) return 'never';
  if (typeof schema.$ref === 'string') return refName(schema.$ref);
  if ('const' in schema) return literal(schema.const);
  if (Array.isArray(schema.enum)) return union((schema.enum as unknown[]).map(literal));
  const alternatives = (schema.oneOf ?? schema.anyOf) as JsonSchema[] | undefined;
  if (alternatives) return union(alternatives.map((a) => tsType(a, indent)));
  if (Array.isArray(schema.allOf)) return (schema.allOf as JsonSchema[]).map((a) => tsType(a, indent)).join(' & ');
  const types = ([] as string[]).concat((schema.type as string | string[] | undefined) ?? (schema.properties ? 'object' : []));
  if (!types.length) return 'unknown';
  return union(types.map((t) => typeOf(t, schema, indent)));
}
