import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { checkedAddresses, pinnedRequest, PublicFetchError, StaleConnectionError, systemResolve } from '../qr/public-fetch.ts';
import type { ResolvedAddress, Resolve } from '../qr/public-fetch.ts';
import { closeIdle, KeptConnections } from './kept-connections.ts';
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

/** webhookSender's sender, with the connections it keeps: close() ends them (the dispatcher's stop). */
export type WebhookSender = SendWebhook & { close(): void; readonly kept: KeptConnections };

/** Tries of a delivery whose kept connection was found closed: the second goes over a new connection. */
const STALE_TRIES = 2;

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
 * up to MAX_ANSWER_BYTES. Connections are kept between deliveries (kept-connections.ts): one the
 * receiver closed meanwhile is noticed as the request goes, and the delivery goes again over a new
 * one (a receiver that read it all and then reset the connection without answering may get it
 * twice: deliveries are at least once). Never throws: every outcome is an AttemptResult.
 */
export function webhookSender(options: SendOptions): WebhookSender {
  const resolve = options.resolve ?? systemResolve;
  const allow = options.allowPrivate ? (address: string) => isIP(address) !== 0 : isPublicAddress;
  const kept = new KeptConnections();
  const post = async (target: URL, addresses: readonly ResolvedAddress[], request: { signal: AbortSignal; body: string; headers: Record<string, string> }) => {
    const closings = kept.closings;
    for (let tries = 1; ; tries++) {
      const agent = kept.agentFor(target, addresses);
      try {
        return await pinnedRequest(target, addresses, { ...request, method: 'POST', agent });
      } catch (err) {
        if (!(err instanceof StaleConnectionError)) throw err;
        // Closed by close() (a stop), or closed twice: that is the outcome.
        if (tries >= STALE_TRIES || kept.closings !== closings) throw err.cause;
        // The pool's other idle connections are as old: the next try makes a new one.
        closeIdle(agent);
      }
    }
  };
  const send = async (url: string, body: string, headers: Record<string, string>): Promise<AttemptResult> => {
    const started = Date.now();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), options.timeoutMs);
    const done = (r: Omit<AttemptResult, 'ms'>): AttemptResult => ({ ...r, ms: Date.now() - started });
    try {
      const target = new URL(url);
      const addresses = await checkedAddresses(target, resolve, allow, controller.signal, ['http:', 'https:']);
      const res = await post(target, addresses, { signal: controller.signal, body, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } });
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
  return Object.assign(send, { close: () => kept.close(), kept });
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
