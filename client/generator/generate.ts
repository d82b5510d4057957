/**
 * The typed client's generated module (client/src/generated.ts) from the OpenAPI document: one
 * type per component schema and per error response, the parameter and body types of each
 * operation, the `Operations` interface (arguments and results of every operationId) and the
 * `OPERATIONS` table the runtime calls with. Pure: a document in, source text out, the same text
 * for the same document (the test compares it with the committed file).
 */
import { doc, memberName, refName, tsType, union, type JsonSchema } from './schema-to-ts.ts';

interface Parameter {
  name: string;
  in: 'query' | 'path' | 'header';
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
  style?: string;
  explode?: boolean;
}

interface Operation {
  operationId: string;
  summary?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, JsonSchema>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

const pascal = (id: string): string => id[0].toUpperCase() + id.slice(1);

/** `{ name?: T; ... }` of some parameters, one per line with its description. */
function parameterMembers(params: Parameter[], indent: string): string {
  const inner = `${indent}  `;
  const lines = params.map((p) => `${doc(p.description, inner)}${inner}${memberName(p.name)}${p.required ? '' : '?'}: ${tsType(p.schema ?? { type: 'string' }, inner)};\n`);
  return `{\n${lines.join('')}${indent}}`;
}

/** An array query parameter sent once per value: OpenAPI's form style explodes unless told not to. */
const repeats = (p: Parameter): boolean => p.in === 'query' && p.style !== 'deepObject' && p.explode !== false && ([] as unknown[]).concat(p.schema?.type ?? []).includes('array');

/** What a success is read as, and its result type. */
function successOf(statuses: string[], responses: Record<string, JsonSchema>): { kind: 'envelope' | 'stream' | 'json'; type: string } {
  const status = union(statuses);
  const content = (responses[statuses[0]].content ?? {}) as Record<string, { schema?: JsonSchema }>;
  const json = content['application/json']?.schema;
  if (!json) return { kind: 'stream', type: `StreamSuccess<${status}>` };
  const props = json.properties as Record<string, JsonSchema> | undefined;
  if (!props?.ok) return { kind: 'json', type: `JsonSuccess<${status}, ${tsType(json, '    ')}>` };
  return { kind: 'envelope', type: `EnvelopeSuccess<${status}, ${tsType(props.data, '    ')}, ${tsType(props.meta, '    ')}>` };
}

/** The declarations of one operation and its entries in `Operations` and `OPERATIONS`. */
function operationParts(method: string, path: string, op: Operation): { decls: string; member: string; entry: string } {
  const params = op.parameters ?? [];
  const name = pascal(op.operationId);
  const of = (where: Parameter['in']) => params.filter((p) => p.in === where);
  const decls: string[] = [];
  const args: string[] = [];
  if (of('path').length) args.push(`path: ${parameterMembers(of('path'), '    ')}`);
  if (of('query').length) {
    decls.push(`${doc(`Query parameters of ${op.operationId}.`, '')}export interface ${name}Query ${parameterMembers(of('query'), '')}\n`);
    args.push(`query${of('query').some((p) => p.required) ? '' : '?'}: ${name}Query`);
  }
  const body = op.requestBody?.content['application/json']?.schema;
  if (body) {
    decls.push(`${doc(`Request body of ${op.operationId}.`, '')}export type ${name}Body = ${tsType(body, '')};\n`);
    args.push(`body${op.requestBody?.required ? '' : '?'}: ${name}Body`);
  }
  if (of('header').length) args.push(`headers?: ${parameterMembers(of('header'), '    ')}`);
  const statuses = Object.keys(op.responses);
  const success = successOf(statuses.filter((s) => s.startsWith('2')), op.responses);
  // Errors are 4xx and 5xx envelopes (components/responses); a 3xx (304 to If-None-Match) has no body to type.
  const failures = statuses.filter((s) => /^[45]/.test(s)).map((s) => `Failure<${s}, ${refName(op.responses[s].$ref as string)}>`);
  const argsType = args.length ? `{\n${args.map((a) => `    ${a};\n`).join('')}  }` : 'Record<string, never>';
  const member = `${doc(op.summary, '  ')}  ${op.operationId}: OperationTypes<\n    ${argsType.replace(/\n/g, '\n  ')},\n    ${[success.type, ...failures].join('\n    | ')}\n  >;\n`;
  const repeat = params.filter(repeats).map((p) => JSON.stringify(p.name));
  const entry = `  ${op.operationId}: { method: '${method.toUpperCase()}', path: '${path}', kind: '${success.kind}'${repeat.length ? `, repeat: [${repeat.join(', ')}]` : ''} },\n`;
  return { decls: decls.join('\n'), member, entry };
}

/** The source of client/src/generated.ts for a document. */
export function generateClient(document: JsonSchema): string {
  const info = document.info as { title: string; version: string };
  const components = document.components as { schemas: Record<string, JsonSchema>; responses: Record<string, { description?: string; content: Record<string, { schema: JsonSchema }> }> };
  const out: string[] = [
    `// Generated by \`npm run client:generate\` from the OpenAPI document of ${info.title} ${info.version}. Do not edit:\n`,
    '// change the server, then regenerate (test/client/generated.test.ts fails while they differ).\n',
    "import type { EnvelopeSuccess, Failure, JsonSuccess, OperationSpec, OperationTypes, StreamSuccess } from './result.ts';\n\n",
    `/** The API version the client was generated from. */\nexport const API_VERSION = ${JSON.stringify(info.version)};\n\n`,
  ];
  for (const [name, schema] of Object.entries(components.schemas)) out.push(`${doc(schema.description, '')}export type ${name} = ${tsType(schema, '')};\n\n`);
  for (const [name, response] of Object.entries(components.responses)) {
    out.push(`${doc(`The error envelope of ${name.replace(/^Error/, 'HTTP ')}: ${response.description ?? ''}`, '')}export type ${name} = ${tsType(response.content['application/json'].schema, '')};\n\n`);
  }
  const members: string[] = [];
  const entries: string[] = [];
  for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, Operation>>)) {
    for (const method of METHODS) {
      if (!item[method]) continue;
      const parts = operationParts(method, path, item[method]);
      if (parts.decls) out.push(`${parts.decls}\n`);
      members.push(parts.member);
      entries.push(parts.entry);
    }
  }
  out.push(`/** Every operation by operationId: its arguments and the results it resolves to. */\nexport interface Operations {\n${members.join('')}}\n\n`);
  out.push(`/** How the runtime calls each operation. */\nexport const OPERATIONS = {\n${entries.join('')}} as const satisfies Record<keyof Operations, OperationSpec>;\n`);
  return out.join('');
}
