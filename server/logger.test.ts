import { describe, expect, it } from 'vitest';
import { createLogger, LogRing, redactUrl } from './logger.ts';

describe('logger', () => {
  it('redacts credentials in query strings', () => {
    expect(redactUrl('/auth/confirmation?confirmation_token=abc123&x=1')).toBe(
      '/auth/confirmation?confirmation_token=[Redacted]&x=1',
    );
    expect(redactUrl('/api/v1/streaming?access_token=t0k3n')).toBe('/api/v1/streaming?access_token=[Redacted]');
    expect(redactUrl('/oauth/authorize?client_id=c&code=xyz')).toBe('/oauth/authorize?client_id=c&code=[Redacted]');
    expect(redactUrl('/api/v1/timelines/home?limit=20')).toBe('/api/v1/timelines/home?limit=20');
  });

  it('keeps secrets out of the lines it writes', () => {
    const ring = new LogRing();
    const log = createLogger({ level: 'info', toConsole: false, ring });
    log.info({ req: { method: 'GET', url: '/x?access_token=SECRET1' } }, 'request');
    log.info({ body: { password: 'SECRET2' }, req: { headers: { authorization: 'Bearer SECRET3' } } }, 'sign in');
    const text = ring.entries.map((e) => e.line).join('\n');
    expect(text).toContain('request');
    for (const secret of ['SECRET1', 'SECRET2', 'SECRET3']) expect(text).not.toContain(secret);
  });
});
