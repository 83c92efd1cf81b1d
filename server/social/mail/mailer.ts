import type { Transporter } from 'nodemailer';
import type { Logger } from '../../logger.ts';
import type { SocialStore } from '../store/index.ts';
import type { SocialUrls } from '../urls.ts';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

/**
 * Outgoing e-mail. Every message is written to the outbox table first; with an SMTP server configured
 * (setting smtp_url) it is then sent in the background and its row marked sent or failed, otherwise it
 * stays in the local outbox, where the owner's UI shows it.
 */
export class Mailer {
  private readonly store: SocialStore;
  private readonly urls: SocialUrls;
  private readonly logger: Logger;
  private readonly inFlight = new Set<Promise<void>>();
  private transport: { url: string; transporter: Transporter } | null = null;

  constructor(store: SocialStore, urls: SocialUrls, logger: Logger) {
    this.store = store;
    this.urls = urls;
    this.logger = logger;
  }

  /** Records the message and starts delivery; returns the outbox id. */
  send(message: MailMessage): string {
    const smtpUrl = this.store.settings.owner('smtp_url');
    const id = this.store.mailOutbox.insert({
      to: message.to,
      subject: message.subject,
      text: message.text,
      html: message.html ?? null,
      transport: smtpUrl ? 'smtp' : 'local',
    });
    if (smtpUrl) {
      const delivery = this.deliver(id, smtpUrl, message).finally(() => this.inFlight.delete(delivery));
      this.inFlight.add(delivery);
    } else {
      this.logger.info(
        { outboxId: id, subject: message.subject },
        'e-mail kept in the local outbox (no SMTP server configured)',
      );
    }
    return id;
  }

  /**
   * Resolves when every delivery started so far has finished (tests), or after `maxWaitMs` (shutdown must
   * not hang on a slow mail server; unsent messages stay marked pending in the outbox).
   */
  async idle(maxWaitMs = Infinity): Promise<void> {
    const deadline = Date.now() + maxWaitMs;
    while (this.inFlight.size) {
      const left = deadline - Date.now();
      if (left <= 0) return;
      let timer: NodeJS.Timeout | undefined;
      const timeout = Number.isFinite(left)
        ? new Promise<void>((resolve) => (timer = setTimeout(resolve, left)))
        : null;
      await Promise.race([Promise.allSettled([...this.inFlight]), ...(timeout ? [timeout] : [])]);
      clearTimeout(timer);
    }
  }

  close(): void {
    this.transport?.transporter.close();
    this.transport = null;
  }

  private async transporter(url: string): Promise<Transporter> {
    if (this.transport?.url === url) return this.transport.transporter;
    // nodemailer (about 40 modules) loads with the first e-mail sent, not with every start of the server.
    const { default: nodemailer } = await import('nodemailer');
    if (this.transport?.url !== url) {
      this.transport?.transporter.close();
      // Bounded waits: a stalled mail server must not hold deliveries (or shutdown) for nodemailer's default 10 minutes.
      this.transport = {
        url,
        transporter: nodemailer.createTransport({
          url,
          connectionTimeout: 15_000,
          greetingTimeout: 15_000,
          socketTimeout: 30_000,
        }),
      };
    }
    return this.transport.transporter;
  }

  private async deliver(id: string, smtpUrl: string, message: MailMessage): Promise<void> {
    const from = this.store.settings.owner('smtp_from') || `Homeport <notifications@${this.urls.hostname}>`;
    try {
      await (await this.transporter(smtpUrl)).sendMail({
        from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html,
      });
      this.store.mailOutbox.markSent(id);
      this.logger.info({ outboxId: id }, 'e-mail sent');
    } catch (err) {
      // The SMTP URL may hold a password: log only the error message.
      const reason = err instanceof Error ? err.message : String(err);
      this.store.mailOutbox.markFailed(id, reason);
      this.logger.warn({ outboxId: id, reason }, 'e-mail could not be sent');
    }
  }
}
