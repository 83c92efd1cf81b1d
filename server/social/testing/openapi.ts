import fs from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { AxiosError, AxiosInstance, AxiosResponse } from 'axios';
import { fixturePath } from './fixtures.ts';
import { DEVIATIONS } from './openapi-deviations.ts';
import type { OpenApiDocument } from './openapi-document.ts';

export { DEVIATIONS };

/*
 * Validates JSON bodies of the social API against the Mastodon OpenAPI document (abraham/mastodon-openapi,
 * pinned in shared/fixtures). Tests wrap their clients' transport with it, so every body a real client
 * receives is checked: `findResponseSchema(method, path, status)` finds the documented schema,
 * `validateResponse` checks a body against it.
 */

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** Where the pinned document lives (an external fixture, see fixtures.ts). */
export const OPENAPI_FILE = fixturePath('mastodon-openapi', 'schema.json');

/**
 * Responses the document leaves without a schema (or paths it lacks) that we still check, against one of
 * its own component schemas. Keyed by "METHOD template status".
 */
export const SUPPLEMENTS: Record<string, string> = {
  'GET /api/v1/preferences 200': '#/components/schemas/Preferences',
  // The legacy remote follow (removed from the document) answers with the followed Account.
  'POST /api/v1/follows 200': '#/components/schemas/Account',
  // An attachment still being processed is answered with 206 and the attachment (url null).
  'GET /api/v1/media/{id} 206': '#/components/schemas/MediaAttachment',
  // Collections (Mastodon 4.6) wrap their entities; the document names the wrappers but gives no schema.
  'POST /api/v1/collections 200': '#/components/schemas/WrappedCollection',
  'PATCH /api/v1/collections/{id} 200': '#/components/schemas/WrappedCollection',
  'POST /api/v1/collections/{collection_id}/items 200': '#/components/schemas/WrappedCollectionItem',
  'GET /api/v1/accounts/{account_id}/collections 200': '#/components/schemas/Collections',
  'GET /api/v1/accounts/{account_id}/in_collections 200': '#/components/schemas/Collections',
  // Routed by Mastodon beside /read, left out of its documentation: the Conversation as /read answers it.
  'POST /api/v1/conversations/{id}/unread 200': '#/components/schemas/Conversation',
};

const UPDATE_TWIN: Record<string, string> = { PUT: 'PATCH', PATCH: 'PUT' };

const ERROR_POINTER = 'mastodon-openapi#/components/schemas/Error';

interface PathTemplate {
  template: string;
  pattern: RegExp;
  params: number;
}

interface Loaded {
  doc: OpenApiDocument;
  ajv: Ajv2020;
  templates: PathTemplate[];
  compiled: Map<string, ValidateFunction>;
}

let loaded: Loaded | null = null;

function load(): Loaded {
  if (loaded) return loaded;
  const doc = JSON.parse(fs.readFileSync(OPENAPI_FILE, 'utf8')) as OpenApiDocument;
  for (const d of DEVIATIONS) d.apply(doc);
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addFormat('iso-639-1', /^[a-z]{2,3}$/);
  ajv.addSchema(doc as unknown as object, 'mastodon-openapi');
  // Supplemented paths the document lacks are matched as templates too.
  const supplemented = Object.keys(SUPPLEMENTS).map((key) => key.split(' ')[1]);
  const templates = [...new Set([...Object.keys(doc.paths), ...supplemented])].map((template) => {
    const params = (template.match(/\{[^}]+\}/g) ?? []).length;
    const source = template
      .split(/(\{[^}]+\})/)
      .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('');
    return { template, pattern: new RegExp(`^${source}$`), params };
  });
  // Static paths win over templated ones (/api/v1/accounts/lookup before /api/v1/accounts/{id}).
  templates.sort((a, b) => a.params - b.params);
  loaded = { doc, ajv, templates, compiled: new Map() };
  return loaded;
}

function pointerPart(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

export interface SchemaLookup {
  /** The documented path template, e.g. /api/v1/accounts/{id} */
  template: string;
  status: string;
  /** JSON pointer into the document, usable as an Ajv reference. */
  pointer: string;
}

/**
 * The JSON schema the document gives for a response, or the reason there is none: the path or method is
 * not documented, or the status carries no JSON schema. Undocumented error statuses fall back to Error.
 */
export function findResponseSchema(
  method: string,
  urlPath: string,
  status: number,
): SchemaLookup | { missing: string } {
  const { doc, templates } = load();
  const pathname = urlPath.split('?')[0].replace(/\/+$/, '') || '/';
  const match = templates.find((t) => t.pattern.test(pathname));
  const template = match?.template ?? pathname;
  // An update answers the same on PUT and PATCH (Mastodon routes both); the document names one of them.
  const twin = UPDATE_TWIN[method.toUpperCase()];
  const documentedMethod =
    match &&
    twin &&
    !doc.paths[match.template]?.[method.toLowerCase()] &&
    doc.paths[match.template]?.[twin.toLowerCase()]
      ? twin
      : method.toUpperCase();
  const supplement =
    SUPPLEMENTS[`${method.toUpperCase()} ${template} ${status}`] ??
    SUPPLEMENTS[`${documentedMethod} ${template} ${status}`];
  if (supplement) return { template, status: String(status), pointer: `mastodon-openapi${supplement}` };
  method = documentedMethod;
  const op = match ? doc.paths[match.template]?.[method.toLowerCase()] : undefined;
  if (!match || !op) {
    // Undocumented routes still answer errors as Error entities.
    if (status >= 400) return { template, status: String(status), pointer: ERROR_POINTER };
    return {
      missing: match
        ? `${method.toUpperCase()} ${match.template} is not in the OpenAPI document`
        : `path ${pathname} is not in the OpenAPI document`,
    };
  }
  const responses = op.responses ?? {};
  const key = String(status);
  const base = `mastodon-openapi#/paths/${pointerPart(match.template)}/${method.toLowerCase()}/responses`;
  const response = responses[key];
  if (response) {
    if (response.content?.['application/json']?.schema)
      return { template: match.template, status: key, pointer: `${base}/${key}/content/application~1json/schema` };
    if (status < 400) return { missing: `${method.toUpperCase()} ${match.template} ${key} has no JSON schema` };
  } else if (status < 400) {
    return { missing: `${method.toUpperCase()} ${match.template} does not document status ${key}` };
  }
  // An error status the operation does not list (or lists without a schema): every error is an Error.
  return { template: match.template, status: key, pointer: ERROR_POINTER };
}

export class OpenApiViolation extends Error {
  readonly errors: unknown[];
  constructor(message: string, errors: unknown[]) {
    super(message);
    this.name = 'OpenApiViolation';
    this.errors = errors;
  }
}

export interface ValidationOutcome {
  checked: boolean;
  template?: string;
  /** Why nothing was checked (undocumented path, status without schema). */
  reason?: string;
}

/** Validates one response body; throws OpenApiViolation listing every mismatch. */
export function validateResponse(method: string, urlPath: string, status: number, body: unknown): ValidationOutcome {
  const state = load();
  const found = findResponseSchema(method, urlPath, status);
  if ('missing' in found) return { checked: false, reason: found.missing };
  let validate = state.compiled.get(found.pointer);
  if (!validate) {
    validate = state.ajv.getSchema(found.pointer);
    if (!validate) throw new Error(`cannot compile ${found.pointer}`);
    state.compiled.set(found.pointer, validate);
  }
  if (!validate(body)) {
    const errors = validate.errors ?? [];
    const summary = errors
      .slice(0, 8)
      .map((e) => `${e.instancePath || '(root)'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`)
      .join('; ');
    throw new OpenApiViolation(
      `${method.toUpperCase()} ${urlPath} → ${status} does not match ${found.template} ${found.status}: ${summary}`,
      errors,
    );
  }
  return { checked: true, template: found.template };
}

/**
 * Responses the tests meet that the document gives no schema for (empty `{}` bodies, paths it lacks), each
 * known and accepted. A response outside this list with no schema fails the test file that met it: a new
 * endpoint must bring its schema (in SUPPLEMENTS) or be added here knowingly.
 */
export const KNOWN_UNCHECKED: ReadonlySet<string> = new Set([
  // Homeport's account migration (Mastodon has it only as web settings, so the document has no schema).
  'GET /api/v1/homeport/account_migration 200',
  'POST /api/v1/homeport/account_migration 200',
  'DELETE /api/v1/homeport/account_migration 200',
  'POST /api/v1/homeport/account_migration/aliases 200',
  'DELETE /api/v1/homeport/account_migration/aliases 200',
  // …and its CSV exports and imports (Settings → Import and export in Mastodon's web interface).
  'POST /api/v1/homeport/imports 202',
  'GET /api/v1/homeport/imports 200',
  'GET /api/v1/homeport/imports/:id 200',
  'DELETE /api/v1/collections/:id 200',
  'DELETE /api/v1/collections/:id/items/:id 200',
  'DELETE /api/v1/conversations/:id 200',
  'DELETE /api/v1/domain_blocks 200',
  'DELETE /api/v1/featured_tags/:id 200',
  'DELETE /api/v1/filters/:id 200',
  'DELETE /api/v1/lists/:id 200',
  'DELETE /api/v1/lists/:id/accounts 200',
  'DELETE /api/v1/media/:id 200',
  'DELETE /api/v1/push/subscription 200',
  'DELETE /api/v1/scheduled_statuses/:id 200',
  'DELETE /api/v1/suggestions/:id 200',
  'DELETE /api/v2/filters/:id 200',
  'DELETE /api/v2/filters/keywords/:id 200',
  'GET /.well-known/nodeinfo 200',
  'GET /api/v1/instance/languages 200',
  'GET /api/v1/instance/translation_languages 200',
  'GET /nodeinfo/2.0 200',
  'GET /nodeinfo/2.1 200',
  'GET /oauth/userinfo 200',
  'POST /api/v1/announcements/:id/dismiss 200',
  'POST /api/v1/collections/:id/items/:id/revoke 200',
  'POST /api/v1/domain_blocks 200',
  'POST /api/v1/lists/:id/accounts 200',
  'POST /api/v1/emails/confirmations 200',
  'POST /api/v1/notifications/:id/dismiss 200',
  'POST /api/v1/notifications/clear 200',
  'POST /api/v1/notifications/requests/:id/accept 200',
  'POST /api/v1/notifications/requests/:id/dismiss 200',
  'POST /api/v1/notifications/requests/accept 200',
  'POST /api/v1/notifications/requests/dismiss 200',
  'POST /api/v2/notifications/:group_key/dismiss 200',
  'POST /oauth/revoke 200',
  'PUT /api/v1/announcements/:id/reactions/:name 200',
  'POST /oauth/userinfo 200',
  // Routed by Mastodon, left out of its documentation: {} and an array of domain names.
  'DELETE /api/v1/notifications/destroy_multiple 200',
  'GET /api/v1/peers/search 200',
]);

/** Counts what a test run validated, and which responses had no schema to check against. */
export class OpenApiRecorder {
  checked = 0;
  readonly unchecked = new Map<string, string>();
  readonly violations: OpenApiViolation[] = [];

  record(method: string, url: string, status: number, body: unknown): void {
    const pathname = new URL(url, 'http://x').pathname;
    try {
      const outcome = validateResponse(method, pathname, status, body);
      if (outcome.checked) this.checked++;
      else {
        // A documented path without a schema for this status names its template in the reason: key by it.
        const documented = /^\S+ (\/\S+) \d+ has no JSON schema/.exec(outcome.reason ?? '');
        const path = documented
          ? documented[1].replace(/\{(\w+)\}/g, (_, name: string) => (name.endsWith('id') ? ':id' : `:${name}`))
          : pathname.replace(/\/\d+(?=\/|$)/g, '/:id');
        this.unchecked.set(`${method.toUpperCase()} ${path} ${status}`, outcome.reason ?? '');
      }
    } catch (err) {
      if (err instanceof OpenApiViolation) this.violations.push(err);
      throw err;
    }
  }

  /** Unchecked responses that are not on the KNOWN_UNCHECKED list, with the reason each had no schema. */
  unexpectedUnchecked(): string[] {
    return [...this.unchecked.entries()]
      .filter(([key]) => !KNOWN_UNCHECKED.has(key))
      .map(([key, reason]) => `${key} (${reason})`);
  }
}

function isJson(contentType: string | null | undefined): boolean {
  return typeof contentType === 'string' && /^application\/([\w.+-]*\+)?json\b/i.test(contentType);
}

/**
 * A fetch that validates every JSON response against the document before handing it on (masto.js and
 * direct calls in tests use it). A mismatch rejects the call with the OpenApiViolation.
 */
export function validatingFetch(recorder: OpenApiRecorder, base: typeof fetch = globalThis.fetch): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const response = await base(request);
    if (isJson(response.headers.get('content-type'))) {
      const text = await response.clone().text();
      if (text !== '') recorder.record(request.method, request.url, response.status, JSON.parse(text));
    }
    return response;
  };
}

type AxiosResponseLike = Pick<AxiosResponse, 'status' | 'data' | 'headers' | 'config'>;

function axiosHeader(r: AxiosResponseLike, name: string): string | undefined {
  const v = (r.headers as Record<string, unknown>)[name.toLowerCase()];
  return typeof v === 'string' ? v : undefined;
}

/** Adds the same validation to an axios instance (megalodon accepts one). */
export function validateAxios(instance: AxiosInstance, recorder: OpenApiRecorder): void {
  const check = (r: AxiosResponseLike) => {
    if (!isJson(axiosHeader(r, 'content-type'))) return;
    const url = new URL(r.config.url ?? '', r.config.baseURL ?? 'http://localhost').toString();
    const body = typeof r.data === 'string' ? (r.data === '' ? undefined : JSON.parse(r.data)) : r.data;
    if (body !== undefined) recorder.record(r.config.method ?? 'get', url, r.status, body);
  };
  instance.interceptors.response.use(
    (r: AxiosResponse) => {
      check(r);
      return r;
    },
    (e: AxiosError) => {
      if (e.response) check(e.response);
      throw e;
    },
  );
}
