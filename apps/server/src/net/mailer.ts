import type { Transporter } from 'nodemailer';
import { lazyModule } from '../lazy-module.js';

/*
 * Outgoing mail through the operator's SMTP server (QUIRE_SMTP_URL), with nodemailer: one transport per
 * process, used by the jobs that send mail (never by a request, whose answer must not wait on a mail server).
 * nodemailer is loaded by the first message, not at start-up: most installs send none.
 */

const nodemailer = lazyModule<typeof import('nodemailer')>('nodemailer', { warm: false });

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

export function createMailer(settings: { url: string; from: string }): Mailer {
  let transport: Transporter | undefined;
  return {
    async send(message) {
      transport ??= nodemailer().createTransport(settings.url);
      await transport.sendMail({ from: settings.from, ...message });
    },
    close() {
      transport?.close();
    },
  };
}
