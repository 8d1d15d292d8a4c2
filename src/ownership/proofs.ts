import { resolveTxt } from 'node:dns/promises';
import { publicFetch } from '../qr/public-fetch.ts';
import type { LogoFetch } from '../qr/public-fetch.ts';
import type { Store } from '../store/store.ts';
import { ownershipSecret, ownershipToken, tokenFileOf, txtRecordOf } from './token.ts';
import type { TokenFile, TxtRecord } from './token.ts';
import { within } from './within.ts';

/** Resolves the TXT records of a name: each record as the strings it is made of. */
export type ResolveTxt = (name: string) => Promise<string[][]>;

/** A GET as publicFetch makes it: the URL, stopped when the signal aborts. */
export type ProofFetch = LogoFetch;

/** What a proof found: the token, no token (no record, another value, no file), or no answer (a failure, a timeout). */
export type ProofOutcome = 'proven' | 'absent' | 'unreachable';

/** How proofs are looked up; tests inject the resolver and the fetch. */
export interface ProofOptions {
  /** DNS TXT lookups: the system's resolver unless a test injects one. */
  resolveTxt?: ResolveTxt;
  /** The token file's GET: publicFetch over HTTPS only (public addresses, every redirect checked) unless a test injects one. */
  fetch?: ProofFetch;
  /** How long one lookup or fetch may take, redirects included, milliseconds. */
  timeoutMs?: number;
}

/** How long a proof's DNS lookup or file fetch may take unless told otherwise. */
export const PROOF_TIMEOUT_MS = 5000;

/** Largest token file read: a token is 32 characters, the rest is a mistake. */
export const TOKEN_FILE_MAX_BYTES = 1024;

// The resolver says the name has no such record (rather than that it could not ask).
const NO_RECORD = new Set(['ENODATA', 'ENOTFOUND', 'NXDOMAIN']);

const checkedFetch = publicFetch({ protocols: ['https:'], headers: { accept: 'text/plain', 'user-agent': 'shortlink-server (ownership proof)' } });

/**
 * Proofs that a user controls a host name: a DNS TXT record (branded domains and websites) or a
 * token file served over HTTPS (websites). Both carry the user's ownership token.
 */
export class OwnershipProofs {
  private secret: Promise<Buffer> | null = null;
  private readonly resolveTxt: ResolveTxt;
  private readonly fetch: ProofFetch;
  private readonly timeoutMs: number;

  constructor(
    private readonly store: Pick<Store, 'keptValue'>,
    options: ProofOptions = {},
  ) {
    this.resolveTxt = options.resolveTxt ?? resolveTxt;
    this.fetch = options.fetch ?? checkedFetch;
    this.timeoutMs = options.timeoutMs ?? PROOF_TIMEOUT_MS;
  }

  /** The user's ownership token. */
  async token(user: { id: number; registered?: unknown }): Promise<string> {
    // Read once; a failed read (the database away) is tried again by the next call.
    this.secret ??= ownershipSecret(this.store).catch((err: unknown) => {
      this.secret = null;
      throw err;
    });
    return ownershipToken(await this.secret, user);
  }

  /** The TXT record proving `host` for the user. */
  async txtRecord(host: string, user: { id: number; registered?: unknown }): Promise<TxtRecord> {
    return txtRecordOf(host, await this.token(user));
  }

  /** The token file proving the website domain `domain` for the user. */
  async tokenFile(domain: string, user: { id: number; registered?: unknown }): Promise<TokenFile> {
    return tokenFileOf(domain, await this.token(user));
  }

  /** Whether `record` is published: one of the name's TXT records is its value, exactly (spaces around it aside). */
  async checkTxt(record: TxtRecord): Promise<ProofOutcome> {
    let answers: string[][];
    try {
      answers = await within(this.resolveTxt(record.name), this.timeoutMs);
    } catch (err) {
      return NO_RECORD.has(String((err as NodeJS.ErrnoException).code)) ? 'absent' : 'unreachable';
    }
    // A long record comes as several strings of up to 255 bytes: they make one value.
    return answers.some((chunks) => chunks.join('').trim() === record.value) ? 'proven' : 'absent';
  }

  /** Whether `file` is served: a 200 whose body is the token (spaces and a newline around it aside). */
  async checkFile(file: TokenFile): Promise<ProofOutcome> {
    const controller = new AbortController();
    const read = (async (): Promise<ProofOutcome> => {
      const res = await this.fetch(new URL(file.url), { signal: controller.signal });
      if (res.status !== 200 || !res.body) {
        await res.body?.cancel();
        return 'absent';
      }
      const text = await textAtMost(res.body, TOKEN_FILE_MAX_BYTES);
      return text !== null && text.trim() === file.content ? 'proven' : 'absent';
    })();
    try {
      return await within(read, this.timeoutMs);
    } catch {
      return 'unreachable';
    } finally {
      controller.abort();
    }
  }
}

/** The body as text, or null when it is longer than `max` bytes (reading stops there). */
async function textAtMost(body: ReadableStream<Uint8Array>, max: number): Promise<string | null> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return Buffer.concat(chunks).toString('utf8');
      size += value.byteLength;
      if (size > max) return null;
      chunks.push(value);
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
