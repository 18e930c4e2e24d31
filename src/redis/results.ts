// Kept results (keepResult): written before the job's ack, so a crash between the two re-runs the
// job and writes its result again, never acks a job whose result is lost; read by jid; and waited
// for through one pub/sub channel, `<ns>:nexq:results`, on one subscriber connection per waiting
// process (opened at the first `waitFor`), so a waiter wakes when the result lands, not by polling.
import type { RedisClient } from './client';
import { duplicateClient } from './client';
import { NexqError } from '../../config/nexq-error';
import type { Keys } from './keys';
import { EncryptedArgsError, isEnvelope, KeyRing } from '../job/encryption';

export class ResultTimeoutError extends NexqError {
  static override readonly code = 'RESULT_TIMEOUT';
  override readonly name = 'ResultTimeoutError';
}

/** Keeps `json` as the result of `jid` for `ttl` seconds and tells the waiters, in one MULTI. */
export async function storeResult(
  redis: RedisClient,
  keys: Keys,
  jid: string,
  json: string,
  ttl: number,
): Promise<void> {
  await redis.multi().set(keys.result(jid), json, 'EX', ttl).publish(keys.resultChannel, jid).exec();
}

/**
 * The kept result of `jid`, parsed; `undefined` when none is kept (never asked, or expired). An
 * encrypted job's result (src/job/encryption.ts) is opened with `ring`; without a key that opens
 * it, EncryptedArgsError.
 */
export async function readResult(
  redis: RedisClient,
  keys: Keys,
  jid: string,
  ring?: KeyRing,
): Promise<{ value: unknown } | undefined> {
  const json = await redis.get(keys.result(jid));
  if (json === null) return undefined;
  const value = JSON.parse(json) as unknown;
  if (!isEnvelope(value)) return { value };
  if (!ring)
    throw new EncryptedArgsError(`the result of job ${jid} is encrypted and this process has no encryptionKeys`);
  return { value: JSON.parse(ring.openResult(value, jid)) as unknown };
}

type Waiter = (jid: string) => void;

/** Wakes `waitFor` callers when the result of the jid each waits for is kept. */
export class ResultWaiter {
  private subscriber?: RedisClient;
  private subscribed?: Promise<unknown>;
  private readonly waiters = new Map<string, Set<Waiter>>();

  /** `redis` is asked at each call: the node replaces a client ioredis ended. */
  constructor(
    private readonly redis: () => RedisClient,
    private readonly keys: Keys,
    private readonly ring?: KeyRing,
  ) {}

  /** The result of `jid`, as soon as it is kept; rejects with ResultTimeoutError after `timeoutMs`. */
  async waitFor(jid: string, timeoutMs: number): Promise<unknown> {
    let wakeNow: (() => void) | undefined;
    const wake: Waiter = () => wakeNow?.();
    this.add(jid, wake);
    let timer: NodeJS.Timeout | undefined;
    try {
      const timedOut = new Promise<never>((_, reject) => {
        const reason = `no result of job ${jid} within ${timeoutMs} ms (does it keep one? see keepResult)`;
        timer = setTimeout(() => reject(new ResultTimeoutError(reason)), timeoutMs);
      });
      // Subscribed first, then read: a result kept before the subscription is read, one kept after it is heard.
      await Promise.race([this.subscribe(), timedOut]);
      for (;;) {
        // Listening before the read: a message that arrives while it is on its way wakes the next one.
        const woken = new Promise<void>((resolve) => (wakeNow = resolve));
        const kept = await Promise.race([readResult(this.redis(), this.keys, jid, this.ring), timedOut]);
        if (kept) return kept.value;
        await Promise.race([woken, timedOut]);
      }
    } finally {
      clearTimeout(timer);
      this.remove(jid, wake);
    }
  }

  async close(): Promise<void> {
    const subscriber = this.subscriber;
    this.subscriber = this.subscribed = undefined;
    if (subscriber) await subscriber.quit().catch(() => subscriber.disconnect());
  }

  private subscribe(): Promise<unknown> {
    if (!this.subscribed) {
      const subscriber = duplicateClient(this.redis(), { commandTimeout: undefined, enableAutoPipelining: false });
      subscriber.on('error', () => {}); // the shared connection's errors are logged already
      subscriber.on('message', (channel: string, jid: string) => {
        if (channel === this.keys.resultChannel) for (const wake of this.waiters.get(jid) ?? []) wake(jid);
      });
      this.subscriber = subscriber;
      this.subscribed = subscriber.subscribe(this.keys.resultChannel);
      // A failed subscription is tried again by the next waitFor (close() never rejects).
      this.subscribed.catch(async () => {
        if (this.subscriber === subscriber) await this.close();
      });
    }
    return this.subscribed;
  }

  private add(jid: string, wake: Waiter): void {
    let set = this.waiters.get(jid);
    if (!set) this.waiters.set(jid, (set = new Set()));
    set.add(wake);
  }

  private remove(jid: string, wake: Waiter): void {
    const set = this.waiters.get(jid);
    set?.delete(wake);
    if (set?.size === 0) this.waiters.delete(jid);
  }
}
