/**
 * Mail helpers for the end-to-end suite (issue 15, docs/mail.md): a minimal SMTP client over node's `net`
 * that talks to the mail service (the agents' inbox, 127.0.0.1:2525) and reports every reply code, and
 * maildev's REST API (the local relay's mailbox, http://127.0.0.1:1080) where the agents' replies arrive.
 */
import { expect, type APIRequestContext } from '@playwright/test';
import { randomUUID } from 'node:crypto';
import { connect, type Socket } from 'node:net';

export const MAIL_SMTP_HOST = process.env.E2E_MAIL_SMTP_HOST ?? '127.0.0.1';
export const MAIL_SMTP_PORT = Number(process.env.E2E_MAIL_SMTP_PORT ?? 2525);
export const MAILDEV_URL = process.env.E2E_MAILDEV_URL ?? 'http://127.0.0.1:1080';

export interface SmtpReply {
  code: number;
  /** The reply's lines without their codes, joined with '\n' (e.g. '5.7.1 Sender not allowed'). */
  text: string;
}

/** One SMTP client session: commands are sent one at a time and each waits for its (multi-line) reply. */
export class SmtpSession {
  private buffer = '';
  private lines: string[] = [];
  private queued: SmtpReply[] = [];
  private waiting: { resolve: (r: SmtpReply) => void; reject: (e: Error) => void }[] = [];
  private failure: Error | null = null;
  /** Every command sent with its reply, for assertion messages. */
  readonly transcript: string[] = [];

  private constructor(private readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.onData(chunk));
    const fail = (error: Error) => {
      this.failure = error;
      for (const w of this.waiting.splice(0)) w.reject(error);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error(`SMTP connection closed\n${this.transcript.join('\n')}`)));
  }

  /** Connects and reads the greeting (220). */
  static async open(host = MAIL_SMTP_HOST, port = MAIL_SMTP_PORT, timeoutMs = 15_000): Promise<{ session: SmtpSession; greeting: SmtpReply }> {
    const socket = connect({ host, port });
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`SMTP ${host}:${port} timed out`)));
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    const session = new SmtpSession(socket);
    const greeting = await session.reply();
    session.transcript.push(`S: ${greeting.code} ${greeting.text}`);
    return { session, greeting };
  }

  private onData(chunk: string) {
    this.buffer += chunk;
    let end: number;
    while ((end = this.buffer.indexOf('\r\n')) >= 0) {
      const line = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      this.lines.push(line);
      // "250-…" continues a reply, "250 …" (or a bare "250") ends it.
      if (/^\d{3}(?: |$)/.test(line)) {
        const reply = {
          code: Number(line.slice(0, 3)),
          text: this.lines.map((l) => l.slice(4)).join('\n'),
        };
        this.lines = [];
        const waiter = this.waiting.shift();
        if (waiter) waiter.resolve(reply);
        else this.queued.push(reply);
      }
    }
  }

  private reply(): Promise<SmtpReply> {
    const queued = this.queued.shift();
    if (queued) return Promise.resolve(queued);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  /** Sends one command line and returns its reply. */
  async command(line: string): Promise<SmtpReply> {
    this.transcript.push(`C: ${line}`);
    this.socket.write(`${line}\r\n`);
    const reply = await this.reply();
    this.transcript.push(`S: ${reply.code} ${reply.text}`);
    return reply;
  }

  /** DATA, then the message (CRLF line ends, dot-stuffed) and the final '.'; returns the reply to the message. */
  async data(message: string): Promise<SmtpReply> {
    const go = await this.command('DATA');
    if (go.code !== 354) return go;
    const body = message
      .replace(/\r?\n/g, '\r\n')
      .split('\r\n')
      .map((l) => (l.startsWith('.') ? `.${l}` : l))
      .join('\r\n');
    this.transcript.push(`C: <message, ${body.length} bytes>`);
    this.socket.write(`${body}\r\n.\r\n`);
    const reply = await this.reply();
    this.transcript.push(`S: ${reply.code} ${reply.text}`);
    return reply;
  }

  async quit(): Promise<void> {
    try {
      await this.command('QUIT');
    } catch {
      // the server may close first
    }
    this.socket.destroy();
  }
}

export interface OutgoingMail {
  from: string;
  to: string;
  subject: string;
  text: string;
  /** Without angle brackets; a fresh one when not given. */
  messageId?: string;
  inReplyTo?: string;
  references?: string[];
}

/** A plain-text RFC 5322 message (UTF-8, 8bit). */
export function formatMessage(mail: OutgoingMail & { messageId: string }): string {
  const headers = [
    `From: <${mail.from}>`,
    `To: <${mail.to}>`,
    `Subject: ${mail.subject}`,
    `Date: ${new Date().toUTCString().replace('GMT', '+0000')}`,
    `Message-ID: <${mail.messageId}>`,
    ...(mail.inReplyTo ? [`In-Reply-To: <${mail.inReplyTo}>`] : []),
    ...(mail.references?.length ? [`References: ${mail.references.map((r) => `<${r}>`).join(' ')}`] : []),
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
  ];
  return `${headers.join('\r\n')}\r\n\r\n${mail.text}`;
}

export interface SmtpResult {
  messageId: string;
  greeting: SmtpReply;
  ehlo: SmtpReply;
  mailFrom: SmtpReply;
  rcptTo: SmtpReply;
  /** The reply to the message (after DATA), when RCPT TO was accepted. */
  data?: SmtpReply;
  transcript: string[];
}

/**
 * One SMTP transaction to the mail service: EHLO, MAIL FROM, RCPT TO and, when the recipient was
 * accepted, DATA. Never throws on a refusal: every reply code is returned for the test to assert.
 */
export async function smtpSend(mail: OutgoingMail): Promise<SmtpResult> {
  const messageId = mail.messageId ?? `${randomUUID()}@e2e.example.com`;
  const { session, greeting } = await SmtpSession.open();
  try {
    const ehlo = await session.command('EHLO e2e.example.com');
    const mailFrom = await session.command(`MAIL FROM:<${mail.from}>`);
    const rcptTo = await session.command(`RCPT TO:<${mail.to}>`);
    const result: SmtpResult = { messageId, greeting, ehlo, mailFrom, rcptTo, transcript: session.transcript };
    if (rcptTo.code === 250) result.data = await session.data(formatMessage({ ...mail, messageId }));
    else await session.command('RSET');
    return result;
  } finally {
    await session.quit();
  }
}

// --- maildev -------------------------------------------------------------------------------------

export interface MaildevAddress {
  address: string;
  name?: string;
}

/** The fields of a maildev 3 e-mail (`GET /api/email`) the tests read. */
export interface MaildevEmail {
  id: string;
  time: string;
  subject: string;
  from: MaildevAddress[];
  to: MaildevAddress[];
  text?: string;
  html?: string;
  headers: Record<string, string | string[]>;
  inReplyTo?: string;
  envelope?: { from?: MaildevAddress; to?: MaildevAddress[] };
}

/** '<id@host>' → 'id@host'. */
export const bareId = (id: string | undefined) => (id ?? '').trim().replace(/^<|>$/g, '');

function header(email: MaildevEmail, name: string): string {
  const value = Object.entries(email.headers ?? {}).find(([k]) => k.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value.join(' ') : (value ?? '');
}

/** The e-mail's In-Reply-To without angle brackets (maildev's parsed field, else the header). */
export const inReplyToOf = (email: MaildevEmail) => bareId(email.inReplyTo || header(email, 'in-reply-to'));

/** The e-mail's References as bare ids. */
export const referencesOf = (email: MaildevEmail) =>
  (header(email, 'references').match(/<[^>]+>/g) ?? []).map(bareId);

/** Every e-mail in maildev whose To (header or envelope) includes `address`. */
export async function mailsTo(request: APIRequestContext, address: string): Promise<MaildevEmail[]> {
  const res = await request.get(`${MAILDEV_URL}/api/email`);
  expect(res.ok(), `maildev at ${MAILDEV_URL}: ${res.status()}`).toBeTruthy();
  const all = (await res.json()) as MaildevEmail[];
  const wanted = address.toLowerCase();
  return all.filter((m) =>
    [...(m.to ?? []), ...(m.envelope?.to ?? [])].some((a) => a.address?.toLowerCase() === wanted),
  );
}

/** Waits until maildev holds the reply to `messageId` sent to `address`, and returns it. */
export async function waitForReply(
  request: APIRequestContext,
  address: string,
  messageId: string,
  timeout = 60_000,
): Promise<MaildevEmail> {
  let reply: MaildevEmail | undefined;
  await expect
    .poll(
      async () => {
        reply = (await mailsTo(request, address)).find((m) => inReplyToOf(m) === bareId(messageId));
        return !!reply;
      },
      { timeout, intervals: [500, 1_000, 2_000], message: `a reply to <${messageId}> for ${address} in maildev` },
    )
    .toBe(true);
  return reply!;
}
