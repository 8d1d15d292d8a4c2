import { createHash, randomBytes } from 'node:crypto';

/** Where the app gets randomness for aliases and slugs; the fake backend injects a seeded one. */
export interface RandomSource {
  bytes(n: number): Uint8Array;
}

/** Cryptographically random bytes. */
export const cryptoRandom: RandomSource = { bytes: (n) => randomBytes(n) };

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

const ALPHABET = 'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** A random URL-safe token of `length` characters from an unambiguous alphabet. */
export function randomToken(random: RandomSource, length: number): string {
  // Rejection sampling keeps every character equally likely.
  const limit = 256 - (256 % ALPHABET.length);
  let out = '';
  while (out.length < length) {
    for (const b of random.bytes(length * 2)) {
      if (b < limit && out.length < length) out += ALPHABET[b % ALPHABET.length];
    }
  }
  return out;
}
