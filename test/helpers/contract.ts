/**
 * The response checker: every response a test receives from the server is held against the
 * OpenAPI document. The status must be one the operation documents (its success statuses, its
 * own error statuses and, for keyed operations, 401/403/429/500/503), the content type one of
 * that response's media types, and a JSON body must validate against that response's schema
 * (the success envelope with its data and meta, or the error envelope with a catalogue code).
 *
 * The document is built once per process (`sharedDocument`); a validator is compiled the first
 * time an operation answers with a status, and kept.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { sharedDocument } from '../../server/openapi/document.ts';

/** One response as a test saw it. */
export interface Observed {
  method: string;
  /** The request path, with or without its query string. */
  path: string;
  status: number;
  contentType: string | null;
  /** The body, parsed when it was JSON; ignored for HEAD. */
  body: unknown;
}

/** A documented operation with the regular expression its path template matches. */
interface Route {
  method: string;
  template: string;
  re: RegExp;
  /** Template parameters: fewer wins when two templates match (`/companies/lookup` over `/companies/{id}`). */
  params: number;
}

type Doc = { paths: Record<string, Record<string, { responses: Record<string, any> }>>; components: { responses: Record<string, any> } };

/** JSON pointer escaping of one segment. */
const esc = (s: string): string => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** `/v1/companies/{id}` → /^\/v1\/companies\/[^/]+$/ */
function routeOf(method: string, template: string): Route {
  const parts = template.split(/(\{[^}]+\})/).map((p) => (p.startsWith('{') ? '[^/]+' : p.replace(/[.*+?^$()|[\]\\]/g, '\\$&')));
  return { method, template, re: new RegExp(`^${parts.join('')}$`), params: (template.match(/\{/g) ?? []).length };
}

/** The media type without parameters: `text/csv; charset=utf-8` → `text/csv`. */
const mediaOf = (contentType: string | null): string => (contentType ?? '').split(';')[0].trim().toLowerCase();

/** A checker bound to one document (the shared one by default; a unit test hands in a broken copy). */
export class ContractChecker {
  private readonly routes: Route[];
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly doc: Doc = sharedDocument() as unknown as Doc) {
    this.routes = Object.entries(doc.paths)
      .flatMap(([template, item]) => Object.keys(item).map((m) => routeOf(m, template)))
      .sort((a, b) => a.params - b.params);
    this.ajv = new Ajv2020({ strict: false, allErrors: false });
    (addFormats as unknown as (a: Ajv2020) => void)(this.ajv);
    this.ajv.addSchema(doc as object, 'doc');
  }

  /**
   * The documented operation of a request, or undefined when there is none: the path is no
   * operation's (a test of unknown routes), or its most specific template has no operation of
   * this method (GET /v1/companies/batch is POST /v1/companies/batch's path, answered 405, not a
   * detail read).
   */
  route(method: string, path: string): Route | undefined {
    const m = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
    const bare = path.split('?')[0];
    const best = this.routes.find((r) => r.re.test(bare));
    return best && this.routes.find((r) => r.template === best.template && r.method === m);
  }

  /** Null when the response is as documented; otherwise what differs, naming operation and status. */
  check(obs: Observed): string | null {
    const route = this.route(obs.method, obs.path);
    if (!route) return null;
    // Node's HTTP parser answers oversized headers (431) before the application: no operation ran.
    if (obs.status === 431) return null;
    const op = `${route.method.toUpperCase()} ${route.template}`;
    const where = `${op} answered ${obs.status}`;
    const responses = this.doc.paths[route.template][route.method].responses;
    let pointer = ['paths', route.template, route.method, 'responses', String(obs.status)];
    let response = responses[String(obs.status)];
    if (!response) return `${where}: status not documented (documented: ${Object.keys(responses).join(', ')})`;
    if (response.$ref) {
      const name = String(response.$ref).split('/').pop() as string;
      pointer = ['components', 'responses', name];
      response = this.doc.components.responses[name];
    }
    const content: Record<string, { schema?: unknown }> | undefined = response.content;
    if (!content) return null;
    const media = mediaOf(obs.contentType);
    const key = media in content ? media : '*/*' in content ? '*/*' : undefined;
    if (!key) return `${where}: content type ${obs.contentType ?? '(none)'} not documented (documented: ${Object.keys(content).join(', ')})`;
    if (obs.method.toLowerCase() === 'head' || key !== 'application/json' || !content[key].schema) return null;
    const validate = this.validator([...pointer, 'content', key, 'schema']);
    if (validate(obs.body)) return null;
    const e = validate.errors?.[0];
    const detail = e ? `${e.instancePath || '(body)'} ${e.message}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''}` : 'invalid';
    return `${where}: body does not match the document: ${detail}; body ${JSON.stringify(obs.body).slice(0, 300)}`;
  }

  /** Throws the mismatch, if any. */
  assert(obs: Observed): void {
    const problem = this.check(obs);
    if (problem) throw new Error(`Response contract: ${problem}`);
  }

  private validator(pointer: string[]): ValidateFunction {
    const ref = `doc#/${pointer.map(esc).join('/')}`;
    let v = this.validators.get(ref);
    if (!v) this.validators.set(ref, (v = this.ajv.compile({ $ref: ref })));
    return v;
  }
}

let shared: ContractChecker | undefined;

/** The checker of the shared document, made on first use. */
export function contract(): ContractChecker {
  shared ??= new ContractChecker();
  return shared;
}

/**
 * A fetch that checks the response against the document before handing it back: the body is
 * read once and the Response rebuilt, so the caller reads it as usual.
 */
export async function checkedFetch(input: string, init?: RequestInit): Promise<Response> {
  const res = await fetch(input, init);
  const bytes = Buffer.from(await res.arrayBuffer());
  let body: unknown = bytes;
  try {
    body = JSON.parse(bytes.toString('utf8'));
  } catch {
    /* not JSON */
  }
  const url = new URL(input);
  contract().assert({ method: init?.method ?? 'GET', path: url.pathname, status: res.status, contentType: res.headers.get('content-type'), body });
  const empty = res.status === 204 || res.status === 304 || (init?.method ?? 'GET').toUpperCase() === 'HEAD';
  return new Response(empty ? null : bytes, { status: res.status, statusText: res.statusText, headers: res.headers });
}
