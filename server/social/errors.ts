/** Error details in the shape Mastodon uses for 422 responses: field → [{error: "ERR_…", description}]. */
export type ErrorDetails = Record<string, { error: string; description: string }[]>;

/**
 * What went wrong, in the social server's own terms. Domain code throws these (never HTTP statuses); the
 * error handler in social/http/errors.ts is the one place that turns each kind into Mastodon's answer.
 */
export type DomainErrorKind = 'bad_request' | 'forbidden' | 'not_found' | 'conflict' | 'invalid';

export class DomainError extends Error {
  readonly kind: DomainErrorKind;
  readonly extra: Record<string, unknown>;

  constructor(kind: DomainErrorKind, message: string, extra: Record<string, unknown> = {}) {
    super(message);
    this.name = 'DomainError';
    this.kind = kind;
    this.extra = extra;
  }

  body(): Record<string, unknown> {
    return { error: this.message, ...this.extra };
  }
}

/**
 * An error of the HTTP layer itself (token checks with their WWW-Authenticate header, body sizes, rate
 * limits): answered with `{"error": message, ...extra}` and the given status. Domain code throws DomainError.
 */
export class ApiError extends Error {
  readonly statusCode: number;
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    statusCode: number,
    message: string,
    extra: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.statusCode = statusCode;
    this.extra = extra;
    this.headers = headers;
  }

  body(): Record<string, unknown> {
    return { error: this.message, ...this.extra };
  }
}

const ATTRIBUTE_NAMES: Record<string, string> = {
  agreement: 'Agreement',
  email: 'Email',
  password: 'Password',
  username: 'Username',
  locale: 'Locale',
  reason: 'Reason',
  date_of_birth: 'Date of birth',
  display_name: 'Display name',
  note: 'Note',
  fields: 'Fields',
  avatar: 'Avatar',
  header: 'Header',
};

function humanize(field: string): string {
  const known = ATTRIBUTE_NAMES[field];
  if (known) return known;
  const words = field
    .replace(/\[\]|\]/g, '')
    .replace(/[_.[]+/g, ' ')
    .trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** "Validation failed: …" with per-field details (answered 422, every one carrying details, as clients expect). */
export class ValidationFailure extends DomainError {
  readonly details: ErrorDetails;
  constructor(details: ErrorDetails) {
    const parts = Object.entries(details).flatMap(([field, errors]) =>
      errors.map((e) => `${humanize(field)} ${e.description}`),
    );
    super('invalid', `Validation failed: ${parts.join(', ')}`, { details });
    this.details = details;
  }

  static single(field: string, code: string, description: string): ValidationFailure {
    return new ValidationFailure({ [field]: [{ error: code, description }] });
  }
}

/** Collects field errors; `throwIfAny` raises one ValidationFailure with all of them. */
export class DetailsCollector {
  readonly details: ErrorDetails = {};
  add(field: string, code: string, description: string): void {
    (this.details[field] ??= []).push({ error: code, description });
  }
  has(field?: string): boolean {
    return field ? (this.details[field]?.length ?? 0) > 0 : Object.keys(this.details).length > 0;
  }
  throwIfAny(): void {
    if (this.has()) throw new ValidationFailure(this.details);
  }
}

export const notFound = (message = 'Record not found') => new DomainError('not_found', message);
export const forbidden = (message = 'This action is not allowed') => new DomainError('forbidden', message);
export const paramMissing = (name: string) =>
  new DomainError('bad_request', `param is missing or the value is empty: ${name}`);
/** A request the domain refuses as a whole (no single field to blame): answered 422 without details. */
export const refused = (message: string) => new DomainError('invalid', `Validation failed: ${message}`);
