import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far from the receiver's clock a signature's time may be before it is taken for a replay, seconds (what the docs advise). */
export const REPLAY_WINDOW_SECONDS = 300;

/** `X-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, keyed with the webhook's secret, as Stripe signs. */
export function signatureHeader(secret: string, unixSeconds: number, body: string): string {
  return `t=${unixSeconds},v1=${hmac(secret, unixSeconds, body)}`;
}

function hmac(secret: string, t: number | string, body: string): string {
  return createHmac('sha256', secret).update(`${t}.${body}`, 'utf8').digest('hex');
}

/**
 * What a receiver checks (the docs' snippet does the same): the header's v1 is the HMAC of
 * "<t>.<body as received>", and t is within `toleranceSeconds` of now. False on anything else.
 */
export function verifySignature(header: string | undefined, body: string, secret: string, nowSeconds: number, toleranceSeconds = REPLAY_WINDOW_SECONDS): boolean {
  const parts = new Map((header ?? '').split(',').map((p) => [p.slice(0, p.indexOf('=')).trim(), p.slice(p.indexOf('=') + 1).trim()] as const));
  const t = parts.get('t') ?? '';
  const v1 = parts.get('v1') ?? '';
  if (!/^\d{1,12}$/.test(t) || !/^[0-9a-f]{64}$/.test(v1)) return false;
  if (Math.abs(nowSeconds - Number(t)) > toleranceSeconds) return false;
  return timingSafeEqual(Buffer.from(hmac(secret, t, body), 'hex'), Buffer.from(v1, 'hex'));
}
