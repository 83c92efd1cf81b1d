import { escapeHtml } from '../text/index.ts';
import type { MailMessage } from './mailer.ts';

export function confirmationEmail(input: {
  to: string;
  username: string;
  serverTitle: string;
  domain: string;
  link: string;
}): MailMessage {
  const text = [
    `Hello ${input.username},`,
    '',
    `you signed up on ${input.serverTitle} (${input.domain}). Confirm your e-mail address by opening this link:`,
    '',
    input.link,
    '',
    'If you did not sign up, ignore this message.',
  ].join('\n');
  const html = `<p>Hello ${escapeHtml(input.username)},</p>
<p>you signed up on ${escapeHtml(input.serverTitle)} (${escapeHtml(input.domain)}). Confirm your e-mail address:</p>
<p><a href="${escapeHtml(input.link)}">Confirm my e-mail address</a></p>
<p>If you did not sign up, ignore this message.</p>`;
  return { to: input.to, subject: `${input.serverTitle}: confirm your e-mail address`, text, html };
}
