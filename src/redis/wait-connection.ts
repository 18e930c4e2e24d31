// A connection of its own for one blocking wait at a time (src/fetch/waiting-fetch.ts):
//  - used only once ready with its client id known, and with no offline queue, so nothing sent on
//    it waits to be sent later (a wait sent late could run its fetch after the node's claim);
//  - ended early by CLIENT UNBLOCK sent on the main connection, only while both reach the same
//    server (after a failover one may still point at the old master, where the id names no one,
//    or someone else);
//  - dropped, never reconnected, once it closes or ioredis ends it, and what it still owes is
//    answered at once as lost (`orLost`); a new one is opened a second later, and its owner told
//    when it is ready. Closed on purpose (`close`), none is opened until asked for (`ready`).
import Redis from 'ioredis';
import { duplicateClient, RedisClient } from './client';
import { watchEnd } from './ended';
import { defineScriptsLike, ScriptedRedis } from './scripts';
import { confirmWritesLike } from './wait-replicas';

/** After a dropped connection, the next one is opened this much later at the soonest, ms. */
const REOPEN_AFTER_MS = 1000;

/** What CLIENT UNBLOCK did: sent, refused (an ACL without it), or not sent (no wait, or not the same server). */
export type Unblocked = 'sent' | 'refused' | 'not-sent';

/** Where a client's socket leads, or undefined when it has none. */
function peer(client: RedisClient | undefined): string | undefined {
  const stream = (client as unknown as { stream?: { remoteAddress?: string; remotePort?: number } } | undefined)
    ?.stream;
  return stream?.remoteAddress === undefined ? undefined : `${stream.remoteAddress}:${stream.remotePort}`;
}

export class WaitConnection {
  private connection?: ScriptedRedis;
  private id?: number;
  private unwatch?: () => void;
  private onDrop: Array<() => void> = [];
  private reopenAt = 0;
  private reopenTimer?: NodeJS.Timeout;

  /** `main` gives the node's main client (read at each use); `onReady` hears a new connection ready for a wait. */
  constructor(
    private readonly main: () => RedisClient,
    private readonly onReady: () => void,
  ) {}

  /** The connection, when ready for a wait; else undefined, and one is being opened. */
  ready(): ScriptedRedis | undefined {
    if (this.connection)
      return this.connection.status === 'ready' && this.id !== undefined ? this.connection : undefined;
    if (Date.now() >= this.reopenAt) this.open();
    return undefined;
  }

  /** `answer`, or `lost()` as soon as the connection it was sent on is dropped, whichever comes first. */
  orLost<T>(answer: Promise<T>, lost: () => T): Promise<T> {
    answer.catch(() => undefined); // handled below, or no longer awaited once lost
    return new Promise<T>((resolve, reject) => {
      const cutOff = () => resolve(lost());
      this.onDrop.push(cutOff);
      answer.then(resolve, reject).finally(() => {
        this.onDrop = this.onDrop.filter((f) => f !== cutOff);
      });
    });
  }

  /** Ends a wait on the connection now (CLIENT UNBLOCK from the main connection: the wait returns nil). */
  async unblock(): Promise<Unblocked> {
    const main = this.main();
    const own = peer(this.connection);
    if (this.id === undefined || own === undefined || own !== peer(main)) return 'not-sent';
    return main.client('UNBLOCK', this.id).then(
      () => 'sent' as const,
      (err: unknown) => (/^NOPERM/.test((err as Error).message) ? ('refused' as const) : ('not-sent' as const)),
    );
  }

  /** Drops `connection` (closed, ended, found silent): what it owes is answered as lost; a new one opens later. */
  drop(connection: ScriptedRedis | undefined): void {
    if (!connection) return;
    if (this.connection === connection) {
      this.forget();
      this.reopenAt = Date.now() + REOPEN_AFTER_MS;
      this.reopenTimer ??= setTimeout(() => {
        this.reopenTimer = undefined;
        if (!this.connection) this.open();
      }, REOPEN_AFTER_MS);
      this.reopenTimer.unref();
    }
    connection.disconnect();
  }

  /** Closes the connection on purpose: what it owes is answered as lost; none is opened until `ready` asks. */
  close(): void {
    clearTimeout(this.reopenTimer);
    this.reopenTimer = undefined;
    const connection = this.connection;
    this.forget();
    connection?.disconnect();
  }

  private forget(): void {
    this.connection = undefined;
    this.id = undefined;
    this.unwatch?.();
    this.unwatch = undefined;
    const owed = this.onDrop;
    this.onDrop = [];
    for (const cutOff of owed) cutOff();
  }

  private open(): void {
    const main = this.main();
    const copy = duplicateClient(main, {
      commandTimeout: undefined,
      enableAutoPipelining: false,
      enableOfflineQueue: false,
    });
    // With redis.waitReplicas its writes count once replicas hold them, as the main connection's.
    if (main instanceof Redis && copy instanceof Redis) confirmWritesLike(main, copy);
    copy.on('error', () => {}); // the shared connection's errors are logged already
    const connection = defineScriptsLike(main, copy);
    this.connection = connection;
    copy.once('close', () => this.drop(connection));
    this.unwatch = watchEnd(copy, 'the waiting fetch connection', () => this.drop(connection));
    copy.once('ready', () => {
      copy.client('ID').then(
        (id) => {
          if (this.connection !== connection) return;
          this.id = id;
          this.onReady();
        },
        () => this.drop(connection),
      );
    });
    if (copy.status === 'wait') copy.connect().catch(() => {}); // its failure comes as 'close'
  }
}
