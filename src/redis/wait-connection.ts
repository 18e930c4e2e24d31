// A connection of its own for one blocking wait at a time (src/fetch/waiting-fetch.ts):
//  - used only once ready with its client id known, and with no offline queue, so nothing sent on
//    it waits to be sent later (a wait sent late could run its fetch after the node's claim);
//  - ended early by CLIENT UNBLOCK sent on the main connection, only while both reach the same
//    server: the same address, and the main connection's socket the one it had when the id was
//    read (after a failover or a restart behind one address the id could name another client);
//  - dropped, never reconnected, once it closes or ioredis ends it, and what it still owes is
//    answered at once as lost (`orLost`); its owner is told a second later, and the next `ready`
//    opens a new one. Redis refusing CLIENT ID (an ACL, a proxy) is told once, and nothing reopens.
//    Shut (`shut`, the node stopping), it never opens again.
import Redis, { ReplyError } from 'ioredis';
import { duplicateClient, RedisClient } from './client';
import { watchEnd } from './ended';
import { defineScriptsLike, ScriptedRedis } from './scripts';
import { confirmWritesLike } from './wait-replicas';

/** After a dropped connection, the next one is opened this much later at the soonest, ms. */
const REOPEN_AFTER_MS = 1000;

/** What CLIENT UNBLOCK did: sent, refused (an ACL without it), or not sent (no wait, or not the same server). */
export type Unblocked = 'sent' | 'refused' | 'not-sent';

/** What the owner hears of the connection. */
export interface WaitConnectionEvents {
  /** A connection is ready for a wait, or may be opened again (a poll then asks `ready`). */
  ready(): void;
  /** Redis refused what the connection needs (CLIENT ID): it will not be opened again. */
  refused(message: string): void;
}

/** Where a client's socket leads, or undefined when it has none. */
function socketOf(client: RedisClient | undefined): { remoteAddress?: string; remotePort?: number } | undefined {
  return (client as unknown as { stream?: { remoteAddress?: string; remotePort?: number } } | undefined)?.stream;
}

function peer(client: RedisClient | undefined): string | undefined {
  const socket = socketOf(client);
  return socket?.remoteAddress === undefined ? undefined : `${socket.remoteAddress}:${socket.remotePort}`;
}

export class WaitConnection {
  private connection?: ScriptedRedis;
  private id?: number;
  /** The main connection's socket when the id was read: UNBLOCK only while it is still that one. */
  private mainSocket?: object;
  private unwatch?: () => void;
  private onDrop: Array<() => void> = [];
  private reopenAt = 0;
  private reopenTimer?: NodeJS.Timeout;
  private shutDown = false;

  /** `main` gives the node's main client (read at each use). */
  constructor(
    private readonly main: () => RedisClient,
    private readonly events: WaitConnectionEvents,
  ) {}

  /** The connection, when ready for a wait; else undefined, and one is being opened if it may be. */
  ready(): ScriptedRedis | undefined {
    if (this.connection)
      return this.connection.status === 'ready' && this.id !== undefined ? this.connection : undefined;
    if (!this.shutDown && Date.now() >= this.reopenAt) this.open();
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
    const same = own !== undefined && own === peer(main) && socketOf(main) === this.mainSocket;
    if (this.id === undefined || !same) return 'not-sent';
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
        if (!this.shutDown) this.events.ready();
      }, REOPEN_AFTER_MS);
    }
    connection.disconnect();
  }

  /** Closes the connection on purpose: what it owes is answered as lost; none opens until `ready` asks. */
  close(): void {
    clearTimeout(this.reopenTimer);
    this.reopenTimer = undefined;
    const connection = this.connection;
    this.forget();
    connection?.disconnect();
  }

  /** Closes it for good: the node stops. */
  shut(): void {
    this.shutDown = true;
    this.close();
  }

  private forget(): void {
    this.connection = undefined;
    this.id = undefined;
    this.mainSocket = undefined;
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
      const mainSocket = socketOf(this.main());
      copy.client('ID').then(
        (id) => {
          if (this.connection !== connection) return;
          this.id = id;
          this.mainSocket = mainSocket;
          this.events.ready();
        },
        (err: unknown) => {
          if (err instanceof ReplyError) {
            this.shut();
            this.events.refused(`Redis refused CLIENT ID (${(err as Error).message})`);
          } else this.drop(connection);
        },
      );
    });
    if (copy.status === 'wait') copy.connect().catch(() => {}); // its failure comes as 'close'
  }
}
