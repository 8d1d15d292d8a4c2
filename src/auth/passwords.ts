import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { awayFromStore } from '../store/deadline.ts';
import { Semaphore } from './semaphore.ts';

const scryptAsync = promisify(scrypt) as (pw: string, salt: Buffer, len: number, opts: { N: number; r: number; p: number; maxmem: number }) => Promise<Buffer>;

const N = 16384;
const R = 8;
const P = 1;
const LEN = 32;

/**
 * Every scrypt of the process goes through here, at most 2 at once. scrypt runs on libuv's thread
 * pool (4 threads unless UV_THREADPOOL_SIZE says otherwise), which the journal's fdatasync, file
 * reads and DNS lookups also need: unbounded, 32 password guessers held all 4 threads and a durable
 * create waited about a second. Per process, like the pool it protects. Checks of a password
 * (anyone can ask for one) are refused once 64 wait, which bounds their wait to about 2 s;
 * hashing (authenticated, rate-limited API calls and imports) always waits its turn. Neither wait
 * counts against a request's DATABASE_TIMEOUT (awayFromStore).
 */
export const passwordWork = new Semaphore(2, 64);

/** An scrypt hash of a password, as `scrypt$N$r$p$salt$hash` (base64url parts). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await awayFromStore(passwordWork.run(() => scryptAsync(password, salt, LEN, { N, r: R, p: P, maxmem: 64 * 1024 * 1024 })));
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

/** Whether `password` matches a hash made by hashPassword, compared in constant time; BusyError when too many checks wait. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const params = { N: Number(n), r: Number(r), p: Number(p), maxmem: 64 * 1024 * 1024 };
  const actual = await awayFromStore(passwordWork.run(() => scryptAsync(password, Buffer.from(salt, 'base64url'), expected.length, params), true));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
