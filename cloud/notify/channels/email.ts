/**
 * E-mail over SMTP (nodemailer), to NOTIFY_SMTP_URL from NOTIFY_EMAIL_FROM or the tenant's override.
 * Each notification keeps one Message-ID across its attempts, so a mail server or mailbox that
 * received an attempt cut off before its answer can recognise the repeat.
 */
import nodemailer from 'nodemailer';
import { labelled } from '../templates.ts';
import { ANSWER_MAX, type ChannelAdapter, type SendResult, skipped } from './channel.ts';

interface SmtpError extends Error {
  responseCode?: number;
  response?: string;
  code?: string;
}

function domainOf(from: string) {
  const match = /@([^>\s]+)>?\s*$/.exec(from);
  return match?.[1] ?? 'localhost';
}

/** 5xx replies are permanent (no such mailbox, refused); 4xx and connection trouble pass. */
function fromError(error: SmtpError): SendResult {
  const status = error.responseCode;
  const answer = error.response?.slice(0, ANSWER_MAX);
  const permanent = status !== undefined && status >= 500;
  return {
    outcome: permanent ? 'failed' : 'retry',
    error: `${error.code ?? 'SMTP'}: ${error.message}`.slice(0, ANSWER_MAX),
    providerStatus: status,
    providerAnswer: answer,
  };
}

export function createEmailChannel(options: {
  smtpUrl: string | undefined;
  from: string;
  timeoutMs: number;
}): ChannelAdapter {
  const transport = options.smtpUrl
    ? nodemailer.createTransport({
        url: options.smtpUrl,
        connectionTimeout: options.timeoutMs,
        greetingTimeout: options.timeoutMs,
        socketTimeout: options.timeoutMs,
      })
    : undefined;
  return {
    channel: 'email',
    async send(notification, context) {
      if (!transport) return skipped('the email channel is not configured (NOTIFY_SMTP_URL)');
      const to = notification.recipient?.email;
      if (!to) return skipped('the recipient has no e-mail address');
      const from = context.emailFrom ?? options.from;
      try {
        const info = await transport.sendMail({
          from,
          to: notification.recipient?.name ? { name: notification.recipient.name, address: to } : to,
          subject: labelled(notification.subject, notification.severity),
          text: notification.text,
          messageId: `<${notification.id}@${domainOf(from)}>`,
          headers: { 'X-Notification-Id': notification.id, 'X-Alert-Severity': notification.severity },
        });
        const reply = String(info.response ?? '');
        const code = Number(/^(\d{3})/.exec(reply)?.[1]);
        return {
          outcome: 'delivered',
          providerStatus: Number.isInteger(code) ? code : undefined,
          providerAnswer: reply.slice(0, ANSWER_MAX),
          providerRef: info.messageId,
        };
      } catch (error) {
        return fromError(error as SmtpError);
      }
    },
    close: async () => transport?.close(),
  };
}
