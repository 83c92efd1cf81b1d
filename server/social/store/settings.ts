import { z } from 'zod';
import type { StoreCore } from './store.ts';

export const REGISTRATION_MODES = ['open', 'approval', 'closed'] as const;
export type RegistrationMode = (typeof REGISTRATION_MODES)[number];

/**
 * Settings the owner may change (`homeport settings set KEY VALUE`), with their validation and default.
 * The running server reads them on every use, so a change made by the CLI applies at once.
 */
export const OWNER_SETTINGS = {
  registrations: {
    description: 'who may sign up: open, approval (staff approves each sign-up) or closed',
    schema: z.enum(REGISTRATION_MODES),
    default: 'approval',
  },
  title: { description: 'server name shown to apps', schema: z.string().trim().min(1).max(200), default: 'Homeport' },
  description: {
    description: 'one-paragraph description of the server',
    schema: z.string().max(2000),
    default: 'A personal social server run with Homeport.',
  },
  extended_description: { description: 'longer "about" text (plain text)', schema: z.string().max(20000), default: '' },
  privacy_policy: {
    description: 'privacy policy (plain text); empty shows a short default',
    schema: z.string().max(50000),
    default: '',
  },
  featured_accounts: {
    description: 'comma-separated local usernames suggested to new users who follow no one yet (staff picks)',
    schema: z
      .string()
      .regex(/^([A-Za-z0-9_]+(,[A-Za-z0-9_]+)*)?$/, 'must be comma-separated usernames like "alice,bob"'),
    default: '',
  },
  terms_of_service: {
    description:
      'terms of service (plain text); each change is published as the version of that day, earlier versions stay readable',
    schema: z.string().max(50000),
    default: '',
  },
  federation_mode: {
    description:
      'open (federate with every server not blocked) or limited (only with servers on the domain allow list)',
    schema: z.enum(['open', 'limited']),
    default: 'open',
  },
  registrations_message: {
    description: 'message shown when registrations are closed',
    schema: z.string().max(2000),
    default: '',
  },
  contact_email: {
    description: "contact e-mail address (defaults to the owner's)",
    schema: z.union([z.literal(''), z.email()]),
    default: '',
  },
  contact_username: {
    description: 'local username shown as the contact account (defaults to the owner)',
    schema: z.string().max(30),
    default: '',
  },
  languages: {
    description: "comma-separated ISO 639-1 codes of the server's languages",
    schema: z.string().regex(/^[a-z]{2,3}(,[a-z]{2,3})*$/, 'must be comma-separated ISO 639-1 codes like "en,de"'),
    default: 'en',
  },
  smtp_url: {
    description:
      'SMTP server for outgoing e-mail, e.g. smtps://user:password@mail.example.org:465; empty keeps mail in the local outbox',
    schema: z.union([z.literal(''), z.string().regex(/^smtps?:\/\/[^\s]+$/, 'must be an smtp:// or smtps:// URL')]),
    default: '',
  },
  smtp_from: {
    description: 'sender address of outgoing e-mail (default notifications@<domain>)',
    schema: z.string().max(320),
    default: '',
  },
} as const;

export type OwnerSettingKey = keyof typeof OWNER_SETTINGS;

export function isOwnerSettingKey(key: string): key is OwnerSettingKey {
  return Object.hasOwn(OWNER_SETTINGS, key);
}

/** Key/value settings of the social server (owner settings plus internal ones such as the VAPID keys). */
export class SettingsRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  get(key: string): string | null {
    const row = this.core.sql('SELECT value FROM settings WHERE key = ?').get(key) as { value: string } | undefined;
    return row ? row.value : null;
  }

  set(key: string, value: string): void {
    this.core
      .sql('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value')
      .run(key, value);
  }

  /** Sets a key only if it has no value yet (INSERT OR IGNORE: a concurrently starting process cannot replace it). */
  setIfAbsent(key: string, value: string): void {
    this.core.sql('INSERT OR IGNORE INTO settings (key, value) VALUES (?, ?)').run(key, value);
  }

  delete(key: string): void {
    this.core.sql('DELETE FROM settings WHERE key = ?').run(key);
  }

  /** An owner setting, or its default. */
  owner<K extends OwnerSettingKey>(key: K): string {
    return this.get(key) ?? OWNER_SETTINGS[key].default;
  }

  /** Validates and stores an owner setting; throws a readable error for a bad value. */
  setOwner(key: string, raw: string): string {
    if (!isOwnerSettingKey(key))
      throw new Error(`unknown setting "${key}"; known: ${Object.keys(OWNER_SETTINGS).join(', ')}`);
    const parsed = (OWNER_SETTINGS[key].schema as z.ZodType<string>).safeParse(raw);
    if (!parsed.success)
      throw new Error(`invalid value for ${key}: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
    this.set(key, parsed.data);
    return parsed.data;
  }

  registrationMode(): RegistrationMode {
    const v = this.owner('registrations');
    return (REGISTRATION_MODES as readonly string[]).includes(v) ? (v as RegistrationMode) : 'approval';
  }

  languages(): string[] {
    return this.owner('languages').split(',').filter(Boolean);
  }
}
