import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, DomainError, type DomainErrorKind } from '../errors.ts';

/** Each domain error kind as Mastodon answers it. */
const STATUS_OF: Record<DomainErrorKind, number> = {
  bad_request: 400,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  invalid: 422,
};

/**
 * Every error leaves as JSON `{"error": …}`: domain errors with the status of their kind, our ApiErrors with theirs, fastify's own client errors
 * (bad JSON, unsupported media type, body too large) with theirs, anything unexpected as a logged 500
 * that reveals nothing internal.
 */
export function socialErrorHandler(
  err: FastifyError | ApiError | Error,
  req: FastifyRequest,
  reply: FastifyReply,
): void {
  if (err instanceof DomainError) {
    reply.code(STATUS_OF[err.kind]).send(err.body());
    return;
  }
  if (err instanceof ApiError) {
    reply.code(err.statusCode).headers(err.headers).send(err.body());
    return;
  }
  const status = (err as FastifyError).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const code = (err as FastifyError).code;
    let message = err.message;
    if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
      message = `Unsupported content type ${req.headers['content-type'] ?? ''}; send JSON, a form or multipart/form-data`;
    else if (code === 'FST_ERR_CTP_BODY_TOO_LARGE' || code === 'FST_REQ_FILE_TOO_LARGE')
      message = 'The request body is too large';
    else if (code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError)
      message = 'The request body is not valid JSON';
    reply.code(status).send({ error: message });
    return;
  }
  req.log.error({ err }, 'social API request failed');
  reply.code(500).send({ error: 'There was a temporary problem serving your request, please try again' });
}
