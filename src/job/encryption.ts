// Job arguments encrypted at rest: a job's `args` stored as one AES-256-GCM envelope, while its
// class, jid, queue and every other field stay readable (so it routes, retries and shows as any
// job). The envelope is bound to its job: the class name and jid are the cipher's additional data,
// so an envelope copied into another job does not open. Keys come as a list (the first encrypts,
// every one decrypts) and each envelope names its key by a short id, a digest of the key, never by
// position, so keys rotate without a flag day. Nothing here logs, and no error carries a key.
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import { NexqError } from '../../config/nexq-error';
import { rewriteMembers } from './json-members';

/** The member that labels an envelope, for any consumer that reads the job (docs/compatibility.md). */
export const ENVELOPE_MARK = 'nexq-encrypted';
const ENVELOPE_VERSION = 1;
const KEY_BYTES = 32;
/** GCM's recommended IV: 12 random bytes per job (2^32 jobs per key keep the collision chance negligible). */
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Hex digits of SHA-256(key) that name a key: 8 (32 bits) tell a handful of live keys apart. */
const KID_HEX = 8;

/**
 * `[{ "nexq-encrypted": 1, kid, iv, tag, data }]`: what an encrypted job's `args` hold (strings when
 * nexq wrote it; read as unknown, since anyone can write a job).
 */
export interface ArgsEnvelope {
  [ENVELOPE_MARK]: unknown;
  kid: unknown;
  iv: unknown;
  tag: unknown;
  data: unknown;
}

/** An encrypted job whose args no configured key opens (or whose envelope was altered): filed in dead. */
export class EncryptedArgsError extends NexqError {
  static override readonly code = 'JOB_ENCRYPTED';
  override readonly name = 'EncryptedArgsError';
}

/** A key of the ring: its id and its bytes. */
interface RingKey {
  kid: string;
  key: Buffer;
}

/** The configured keys. Its `toJSON` and inspection show only key ids, so a logged ring leaks nothing. */
export class KeyRing {
  private readonly keys: RingKey[];

  private constructor(keys: RingKey[]) {
    this.keys = keys;
  }

  /**
   * The ring of a comma-separated list of base64 32-byte keys; throws a message naming the bad
   * entry by its position (never its text). Undefined for an empty or absent list.
   */
  static parse(text: string | undefined): KeyRing | undefined {
    if (text === undefined || text.trim() === '') return undefined;
    const keys = text.split(',').map((entry, i) => {
      const trimmed = entry.trim();
      const key = Buffer.from(trimmed, 'base64');
      if (!/^[A-Za-z0-9+/]+={0,2}$/.test(trimmed) || key.length !== KEY_BYTES)
        throw new Error(
          `key ${i + 1} of the list is not ${KEY_BYTES} bytes in base64 (openssl rand -base64 32 makes one)`,
        );
      return { kid: keyIdOf(key), key };
    });
    return new KeyRing(keys);
  }

  /** The id of the key that encrypts (the first). */
  get currentKid(): string {
    return this.keys[0].kid;
  }

  /** The ids of every key, in order. */
  get kids(): string[] {
    return this.keys.map((k) => k.kid);
  }

  /** The envelope of `argsJson` for the job `className`/`jid`, as the JSON of a one-element args array. */
  seal(argsJson: string, className: string, jid: string): string {
    return JSON.stringify([this.envelope(argsJson, additionalData(className, jid))]);
  }

  /** The envelope of a kept result (`keepResult`) of the job `jid`, as JSON: bound to that jid. */
  sealResult(json: string, jid: string): string {
    return JSON.stringify(this.envelope(json, resultData(jid)));
  }

  /** The result JSON inside `envelope` of the job `jid`; throws EncryptedArgsError saying why not. */
  openResult(envelope: ArgsEnvelope, jid: string): string {
    return this.openWith(envelope, resultData(jid));
  }

  private envelope(text: string, aad: Buffer): ArgsEnvelope {
    const { kid, key } = this.keys[0];
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(aad);
    const data = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return {
      [ENVELOPE_MARK]: ENVELOPE_VERSION,
      kid,
      iv: iv.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
      data: data.toString('base64'),
    };
  }

  /** The args JSON inside `envelope` of the job `className`/`jid`; throws EncryptedArgsError saying why not. */
  open(envelope: ArgsEnvelope, className: string, jid: string): string {
    return this.openWith(envelope, additionalData(className, jid));
  }

  private openWith(envelope: ArgsEnvelope, aad: Buffer): string {
    const found = this.keys.find((k) => k.kid === envelope.kid);
    if (!found)
      throw new EncryptedArgsError(
        `encrypted args: no configured key has id ${JSON.stringify(String(envelope.kid).slice(0, 20))} (this node has ${this.kids.join(', ')})`,
      );
    const iv = Buffer.from(String(envelope.iv), 'base64');
    const tag = Buffer.from(String(envelope.tag), 'base64');
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES)
      throw new EncryptedArgsError('encrypted args: the envelope is damaged (bad iv or tag)');
    try {
      const decipher = createDecipheriv('aes-256-gcm', found.key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(aad);
      decipher.setAuthTag(tag);
      const plain = Buffer.concat([decipher.update(Buffer.from(String(envelope.data), 'base64')), decipher.final()]);
      return plain.toString('utf8');
    } catch {
      throw new EncryptedArgsError(
        `encrypted args: the envelope does not authenticate with key ${found.kid} (altered, or copied from another job)`,
      );
    }
  }

  /**
   * A keyed digest of `text` (HMAC-SHA-256 with the encrypting key): what an encrypted job's unique
   * key is made of, so the lock's name in Redis says nothing of the arguments.
   */
  digest(text: string): string {
    return createHmac('sha256', this.keys[0].key).update(text).digest('hex');
  }

  toJSON(): string {
    return `KeyRing(${this.kids.join(', ')})`;
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return this.toJSON();
  }
}

/** A key's id: the first hex digits of its SHA-256. */
export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, KID_HEX);
}

function additionalData(className: string, jid: string): Buffer {
  return Buffer.from(`nexq-args\0${className}\0${jid}`, 'utf8');
}

function resultData(jid: string): Buffer {
  return Buffer.from(`nexq-result\0${jid}`, 'utf8');
}

/** The envelope when `value` is one (an encrypted result); undefined otherwise. */
export function isEnvelope(value: unknown): value is ArgsEnvelope {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && ENVELOPE_MARK in value;
}

/** The envelope when `args` is an encrypted job's (one labelled object); undefined otherwise. */
export function envelopeOf(args: unknown): ArgsEnvelope | undefined {
  if (!Array.isArray(args) || args.length !== 1) return undefined;
  const first: unknown = args[0];
  return isEnvelope(first) ? first : undefined;
}

/** The args JSON inside the job's envelope; throws EncryptedArgsError when no key of `ring` opens it (or no ring). */
function openedArgsJson(envelope: ArgsEnvelope, job: SealedJob, ring: KeyRing | undefined): string {
  if (!ring) throw new EncryptedArgsError('encrypted args: this node has no encryptionKeys (NEXQ_ENCRYPTION_KEYS)');
  return ring.open(envelope, job.class, job.jid);
}

/** The fields of a job its envelope is bound to. */
interface SealedJob {
  args: unknown;
  class: string;
  jid: string;
}

/**
 * The payload as its handler sees it: `raw` with the envelope of its args opened (every other
 * byte kept), or `raw` itself when its args are not encrypted. Throws EncryptedArgsError.
 */
export function openedPayload(raw: string, job: SealedJob, ring: KeyRing | undefined): string {
  const envelope = envelopeOf(job.args);
  return envelope ? rewriteMembers(raw, { args: openedArgsJson(envelope, job, ring) }) : raw;
}

/**
 * The job's args for a reader (the dashboard, `nexq show`): opened when `ring` opens them, the
 * string "encrypted" when it does not, `args` itself when they are not encrypted.
 */
export function readableArgs(job: SealedJob, ring: KeyRing | undefined): unknown {
  const envelope = envelopeOf(job.args);
  if (!envelope) return job.args;
  try {
    return JSON.parse(openedArgsJson(envelope, job, ring)) as unknown;
  } catch {
    return 'encrypted';
  }
}

/** What decides which jobs a producer encrypts: the ring, and the queues and classes that ask for it. */
export interface Encryption {
  ring?: KeyRing;
  /** Queues whose spec says `encrypt: true`. */
  queues: ReadonlySet<string>;
  /** Classes whose handler module exports `encrypt = true`. */
  classes: ReadonlySet<string>;
  /** Jobs that ask are kept in the clear: nexq/testing, whose jobs live in memory, never at rest. */
  inMemory?: boolean;
}

/** nexq/testing's: jobs that ask for encryption are kept in the clear, in memory, and run as any other. */
export const IN_MEMORY: Encryption = Object.freeze({
  queues: new Set<string>(),
  classes: new Set<string>(),
  inMemory: true,
});

/** Whether a job of `queue`/`className` with `options` is to be stored encrypted (any of the three asks). */
export function wantsEncryption(
  encryption: Encryption | undefined,
  queue: string,
  className: string,
  options: { encrypt?: boolean } | undefined,
): boolean {
  return (
    options?.encrypt === true ||
    (encryption !== undefined && (encryption.queues.has(queue) || encryption.classes.has(className)))
  );
}
