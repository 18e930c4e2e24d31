// Writes that count only once replicas hold them. Redis replicates asynchronously: a write the
// master acknowledged but had not yet sent to its replica is gone when that replica is promoted.
// With `waitReplicas`, a client holds back the reply of every write until a `WAIT` sent after it,
// on the same connection, says enough replicas have it (at least n, and every replica the master
// has had online: ./replica-mark.ts); otherwise the write fails with
// UnconfirmedWriteError, which callers already treat as an unknown outcome (retry or reclaim).
import { UnconfirmedWriteError } from './errors';
export { UnconfirmedWriteError };
import Redis, { Command } from 'ioredis';
import { knownNeed, parseReplication, replicasNeeded } from './replica-mark';

/**
 * The commands that change data. Anything else (reads, AUTH, SELECT, CLIENT, INFO, ROLE, the
 * connection's own set-up) is passed through untouched. EXEC covers a MULTI's commands.
 */
const WRITES = new Set([
  'eval',
  'evalsha',
  'fcall',
  'exec',
  'set',
  'setex',
  'psetex',
  'setnx',
  'getset',
  'getdel',
  'mset',
  'msetnx',
  'append',
  'incr',
  'incrby',
  'decr',
  'decrby',
  'incrbyfloat',
  'del',
  'unlink',
  'expire',
  'pexpire',
  'expireat',
  'pexpireat',
  'persist',
  'rename',
  'renamenx',
  'copy',
  'restore',
  'lpush',
  'rpush',
  'lpushx',
  'rpushx',
  'lpop',
  'rpop',
  'lrem',
  'lset',
  'ltrim',
  'linsert',
  'lmove',
  'rpoplpush',
  'blmove',
  'brpoplpush',
  'blpop',
  'brpop',
  'sadd',
  'srem',
  'spop',
  'smove',
  'zadd',
  'zrem',
  'zincrby',
  'zpopmin',
  'zpopmax',
  'zremrangebyscore',
  'zremrangebyrank',
  'zremrangebylex',
  'hset',
  'hsetnx',
  'hmset',
  'hdel',
  'hincrby',
  'hincrbyfloat',
  'xadd',
  'xdel',
  'xtrim',
  'flushdb',
  'flushall',
]);

interface HeldReply {
  value: unknown;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
  /** The socket that carried the write's reply. */
  socket: unknown;
}

type SendCommand = (command: Command, stream?: unknown) => unknown;

/** Where a client whose writes are confirmed keeps what it asks (for a copy of it: confirmWritesLike). */
const CONFIRMS = Symbol('nexq.confirmWrites');

/** `copy` (a duplicate of `source`) confirms its writes as `source` does, if it does. */
export function confirmWritesLike(source: Redis, copy: Redis): void {
  const asked = (source as unknown as Record<symbol, { replicas: number; timeoutMs: number } | undefined>)[CONFIRMS];
  if (asked) confirmWrites(copy, asked.replicas, asked.timeoutMs);
}

/**
 * From now on, `client`'s writes resolve only once at least `replicas` replicas, and every replica
 * the master has had online (./replica-mark.ts), acknowledged them within `timeoutMs`. WAIT counts
 * the writes of its own connection, so a write is vouched for only by a WAIT sent on the socket
 * that carried it; one whose socket is gone fails.
 * One WAIT at a time per socket: replies that arrive meanwhile wait for the next, which covers them.
 */
export function confirmWrites(client: Redis, replicas: number, timeoutMs: number): void {
  Object.defineProperty(client, CONFIRMS, { value: { replicas, timeoutMs }, configurable: true });
  const send = (client.sendCommand as SendCommand).bind(client);
  const socket = () => (client as unknown as { stream: unknown }).stream;
  let held: HeldReply[] = [];
  let waitingOn: unknown; // the socket a WAIT is in flight on
  let scheduled = false;
  let replid: string | undefined; // of the master this client last confirmed on

  /** INFO replication then WAIT, pipelined on one socket; a second WAIT when INFO asks for more. */
  const confirm = async (): Promise<Error | undefined> => {
    const asked = knownNeed(replid, replicas);
    // Both awaited together: should the WAIT fail first (a timeout, a closed connection, a demoted
    // master refusing it: "WAIT cannot be used with replica instances"), the INFO's failure is
    // handled too, not left to end the process as an unhandled rejection.
    const [text, first] = await Promise.all([
      send(new Command('info', ['replication'], { replyEncoding: 'utf8' })) as Promise<string>,
      send(new Command('wait', [asked, timeoutMs])),
    ]);
    let acked = Number(first);
    const state = parseReplication(text);
    replid = state.replid;
    const needed = replicasNeeded(state, replicas);
    if (acked < needed && asked < needed) acked = Number(await send(new Command('wait', [needed, timeoutMs])));
    if (acked >= needed) return undefined;
    const every = needed > replicas ? ` (every replica this master has had online, ${needed}, must hold it)` : '';
    return new UnconfirmedWriteError(
      `write confirmed by ${acked} of ${needed} replica(s) within ${timeoutMs} ms${every}; it may be lost in a failover`,
    );
  };

  const flush = () => {
    scheduled = false;
    const current = socket();
    const ready = client.status === 'ready';
    if (held.length === 0 || (ready && waitingOn === current)) return; // that WAIT flushes again when it answers
    const replies = held;
    held = [];
    const covered = replies.filter((r) => ready && r.socket === current);
    const dropped = new UnconfirmedWriteError('write not confirmed on replicas: the connection dropped');
    for (const r of replies) if (!covered.includes(r)) r.reject(dropped);
    if (covered.length === 0) return;
    waitingOn = current;
    let settled = false;
    const settle = (err?: Error) => {
      if (settled) return;
      settled = true;
      if (err) covered.forEach((r) => r.reject(err));
      else covered.forEach((r) => r.resolve(r.value));
      if (waitingOn !== current) return; // a WAIT on a newer socket took over
      waitingOn = undefined;
      flush();
    };
    // ioredis drops, without an answer, what was in flight on a closed connection: fail at once.
    const onClose = () => settle(dropped);
    client.once('close', onClose);
    confirm()
      .then(settle, (err: unknown) =>
        settle(new UnconfirmedWriteError(`write not confirmed on replicas: ${(err as Error).message}`)),
      )
      .finally(() => client.off('close', onClose));
  };

  (client as unknown as { sendCommand: SendCommand }).sendCommand = (command, stream) => {
    if (WRITES.has(command.name.toLowerCase())) {
      const { resolve, reject } = command;
      command.resolve = (value: unknown) => {
        held.push({ value, resolve, reject, socket: socket() });
        if (!scheduled) {
          scheduled = true;
          process.nextTick(flush);
        }
      };
    }
    return send(command, stream);
  };
}
