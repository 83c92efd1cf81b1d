import { int, intOrNull, str, type StoreCore } from './store.ts';

export interface OutboxEmail {
  id: string;
  to: string;
  subject: string;
  text: string;
  html: string | null;
  transport: 'smtp' | 'local';
  status: 'pending' | 'sent' | 'failed' | 'stored';
  error: string | null;
  createdAt: number;
  sentAt: number | null;
}

function toEmail(r: Record<string, unknown>): OutboxEmail {
  return {
    id: str(r.id),
    to: r.to_address as string,
    subject: r.subject as string,
    text: r.text_body as string,
    html: (r.html_body as string | null) ?? null,
    transport: r.transport as OutboxEmail['transport'],
    status: r.status as OutboxEmail['status'],
    error: (r.error as string | null) ?? null,
    createdAt: int(r.created_at),
    sentAt: intOrNull(r.sent_at),
  };
}

/** Every e-mail the server wrote, newest first; local ones are what the owner's UI shows. */
export class MailOutboxRepository {
  private readonly core: StoreCore;
  constructor(core: StoreCore) {
    this.core = core;
  }

  insert(input: {
    to: string;
    subject: string;
    text: string;
    html: string | null;
    transport: 'smtp' | 'local';
  }): string {
    const id = this.core.ids.next();
    this.core
      .sql(
        'INSERT INTO email_outbox (id, to_address, subject, text_body, html_body, transport, status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        id,
        input.to,
        input.subject,
        input.text,
        input.html,
        input.transport,
        input.transport === 'smtp' ? 'pending' : 'stored',
        this.core.now(),
      );
    return id;
  }

  markSent(id: string): void {
    this.core
      .sql(`UPDATE email_outbox SET status = 'sent', sent_at = ?, error = NULL WHERE id = ?`)
      .run(this.core.now(), id);
  }

  markFailed(id: string, error: string): void {
    this.core.sql(`UPDATE email_outbox SET status = 'failed', error = ? WHERE id = ?`).run(error.slice(0, 1000), id);
  }

  list(options: { limit?: number; to?: string } = {}): OutboxEmail[] {
    const rows = this.core
      .sql(
        'SELECT * FROM email_outbox WHERE (@to IS NULL OR lower(to_address) = lower(@to)) ORDER BY id DESC LIMIT @limit',
      )
      .all({ to: options.to ?? null, limit: options.limit ?? 100 }) as Record<string, unknown>[];
    return rows.map(toEmail);
  }
}
