import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { checkedAddresses, pinnedRequest, PublicFetchError, systemResolve } from '../qr/public-fetch.ts';
import type { Resolve } from '../qr/public-fetch.ts';
import { isPublicAddress } from '../qr/public-address.ts';
import { hostOf } from './targets.ts';

/** What one attempt came to, as the delivery log keeps it. */
export interface AttemptResult {
  ok: boolean;
  /** The receiver's HTTP status; null when none came (refused, unreachable, timed out). */
  status: number | null;
  /** Why it failed, in a line; null when it succeeded. */
  error: string | null;
  /** The start of the answer's body, as text. */
  body: string;
  ms: number;
}

/** Sends one delivery: a POST of `body` with `headers` to `url`. */
export type SendWebhook = (url: string, body: string, headers: Record<string, string>) => Promise<AttemptResult>;

/** Bytes of an answer read at most; the rest is not waited for. */
export const MAX_ANSWER_BYTES = 64 * 1024;

/** Characters of an answer's body the delivery log keeps. */
export const LOGGED_BODY_CHARS = 1024;

/** How deliveries reach receivers. */
export interface SendOptions {
  timeoutMs: number;
  /** WEBHOOK_PRIVATE_TARGETS: private and loopback addresses allowed. */
  allowPrivate: boolean;
  /** Name resolution (tests inject one); the system's by default. */
  resolve?: Resolve;
}

/**
 * Webhook POSTs checked as QR logo fetches are: the host resolved once, every address allowed (public
 * ones unless WEBHOOK_PRIVATE_TARGETS), the connection pinned to them (no DNS rebinding), redirects
 * never followed (a 3xx is a failure), the whole attempt bounded by the timeout and the answer read
 * up to MAX_ANSWER_BYTES. Never throws: every outcome is an AttemptResult.
 */
export function webhookSender(options: SendOptions): SendWebhook {
  const resolve = options.resolve ?? systemResolve;
  const allow = options.allowPrivate ? (address: string) => isIP(address) !== 0 : isPublicAddress;
  return async (url, body, headers) => {
    const started = Date.now();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), options.timeoutMs);
    const done = (r: Omit<AttemptResult, 'ms'>): AttemptResult => ({ ...r, ms: Date.now() - started });
    try {
      const target = new URL(url);
      const addresses = await checkedAddresses(target, resolve, allow, controller.signal, ['http:', 'https:']);
      const res = await pinnedRequest(target, addresses, {
        signal: controller.signal,
        method: 'POST',
        body,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      });
      const status = res.statusCode ?? 0;
      const text = await answerOf(res);
      const ok = status >= 200 && status <= 299;
      const error = ok ? null : status >= 300 && status <= 399 ? `HTTP ${status}: redirects are not followed` : `HTTP ${status}`;
      return done({ ok, status, error, body: text });
    } catch (err) {
      const why = controller.signal.aborted ? `no answer within ${options.timeoutMs / 1000} s` : reason(err, url);
      return done({ ok: false, status: null, error: why, body: '' });
    } finally {
      clearTimeout(timer);
    }
  };
}

/** The start of an answer's body as text; reading stops at MAX_ANSWER_BYTES. */
async function answerOf(res: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res) {
    const buf = chunk as Buffer;
    chunks.push(buf);
    size += buf.length;
    if (size >= MAX_ANSWER_BYTES) {
      res.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, MAX_ANSWER_BYTES).toString('utf8').slice(0, LOGGED_BODY_CHARS);
}

function reason(err: unknown, url: string): string {
  if (err instanceof PublicFetchError) {
    if (err.message.startsWith('Refused address')) return `refused: ${hostOf(new URL(url))} is not a public address (WEBHOOK_PRIVATE_TARGETS=on allows private ones)`;
    return err.message;
  }
  const code = (err as { code?: string }).code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `${hostOf(new URL(url))} does not resolve`;
  if (code === 'ECONNRESET') return 'connection reset';
  return err instanceof Error ? err.message.split('\n')[0]!.slice(0, 200) : 'failed';
}
