/** A whole Homeport for a test file of the event-log UI's HTTP API, signed in as a real administrator. */
import crypto from 'node:crypto';
import { beforeAll, expect } from 'vitest';
import { useTestHomeport } from '../../../http/testing/index.ts';
import { UI_API_PREFIX } from '../../../http/index.ts';
import type { Homeport } from '../../../index.ts';
import { ExpectedVersion, type NewEvent, type Principal } from '../../index.ts';

export const ADMIN: Principal = { name: 'admin', groups: ['$admins'] };

export interface EventLogUiApi {
  readonly hp: Homeport;
  /** The administrator's UI session token. */
  readonly token: string;
  /** A UI API request (`p` after the API prefix), as the administrator unless `auth` is false; the JSON answer. */
  call<T = unknown>(
    p: string,
    init?: { method?: string; body?: unknown; auth?: boolean },
  ): Promise<{ status: number; body: T }>;
  /** Appends to `stream` straight to the store, as an administrator. */
  append(stream: string, events: NewEvent[]): Promise<unknown>;
}

/** Started before the file's tests and stopped after; read its fields inside the tests. */
export function useEventLogUiApi(): EventLogUiApi {
  const server = useTestHomeport();
  let token = '';
  beforeAll(async () => {
    // A session signed in with the default password may only change it; these tests act as a real administrator.
    await server.hp.eventLog.users.changePassword('admin', 'admin-test-password');
    const res = await fetch(`${server.hp.httpUrl}${UI_API_PREFIX}/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: 'admin-test-password' }),
    });
    token = ((await res.json()) as { token: string }).token;
  });
  return {
    get hp() {
      return server.hp;
    },
    get token() {
      return token;
    },
    async call<T = unknown>(p: string, init: { method?: string; body?: unknown; auth?: boolean } = {}) {
      const headers: Record<string, string> = {};
      if (init.auth !== false) headers.authorization = `Bearer ${token}`;
      if (init.body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${server.hp.httpUrl}${UI_API_PREFIX}${p}`, {
        method: init.method ?? 'GET',
        headers,
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
      });
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
    },
    async append(stream, events) {
      const r = await server.hp.eventLog.store.appendToStream(stream, ExpectedVersion.Any, events, ADMIN);
      expect(r.result).toBe('Success');
      return r;
    },
  };
}

/** A JSON event with JSON metadata. */
export function event(type: string, data: unknown, metadata: unknown = {}): NewEvent {
  return {
    eventId: crypto.randomUUID(),
    eventType: type,
    isJson: true,
    data: Buffer.from(JSON.stringify(data)),
    metadata: Buffer.from(JSON.stringify(metadata)),
  };
}
