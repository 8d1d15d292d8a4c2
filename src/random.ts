import { createHash, randomBytes } from 'node:crypto';

/** Where the app gets randomness for aliases and slugs; the fake backend injects a seeded one. */
export interface RandomSource {
  bytes(n: number): Uint8Array;
}

// Bytes are drawn from the system a pool at a time: a bulk request makes a thousand aliases, and a
// randomBytes call each cost more than the rest of making them. Each byte is handed out once.
const POOL_BYTES = 4096;
let pool = randomBytes(POOL_BYTES);
let used = 0;

/** Cryptographically random bytes (views of a pool drawn from the system's generator; never handed out twice). */
export const cryptoRandom: RandomSource = {
  bytes: (n) => {
    if (n > POOL_BYTES) return randomBytes(n);
    if (used + n > POOL_BYTES) {
      pool = randomBytes(POOL_BYTES);
      used = 0;
    }
    return pool.subarray(used, (used += n));
  },
};

/** A deterministic source: SHA-256 of the seed and a counter, so the same seed gives the same aliases. */
export function seededRandom(seed: string | number): RandomSource {
  let counter = 0;
  let pool = Buffer.alloc(0);
  return {
    bytes(n) {
      while (pool.length < n) {
        const block = createHash('sha256').update(`${seed}:${counter++}`).digest();
        pool = Buffer.concat([pool, block]);
      }
      const out = pool.subarray(0, n);
      pool = pool.subarray(n);
      return new Uint8Array(out);
    },
  };
}

/** The characters of randomToken (no l, I, O, 0 or 1), in the order a random byte picks them. */
export const TOKEN_ALPHABET = 'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** A random URL-safe token of `length` characters from an unambiguous alphabet. */
export function randomToken(random: RandomSource, length: number): string {
  // Rejection sampling keeps every character equally likely.
  const limit = 256 - (256 % TOKEN_ALPHABET.length);
  let out = '';
  while (out.length < length) {
    for (const b of random.bytes(length * 2)) {
      if (b < limit && out.length < length) out += TOKEN_ALPHABET[b % TOKEN_ALPHABET.length];
    }
  }
  return out;
}
