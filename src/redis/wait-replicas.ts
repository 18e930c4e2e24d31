// Writes that count only once replicas hold them. Redis replicates asynchronously: a write the
// master acknowledged but had not yet sent to its replica is gone when that replica is promoted.
// With `waitReplicas`, a client holds back the reply of every write until a `WAIT n timeout` sent
// after it, on the same connection, says n replicas have it; otherwise the write fails with
// UnconfirmedWriteError, which callers already treat as an unknown outcome (retry or reclaim).
import Redis, { Command } from 'ioredis';

export class UnconfirmedWriteError extends Error {
  override readonly name = 'UnconfirmedWriteError';
}

/**
 * The commands that change data. Anything else (reads, AUTH, SELECT, CLIENT, INFO, ROLE, the
 * connection's own set-up) is passed through untouched. EXEC covers a MULTI's commands.
 */
const WRITES = new Set([
  'eval', 'evalsha', 'fcall', 'exec',
  'set', 'setex', 'psetex', 'setnx', 'getset', 'getdel', 'mset', 'msetnx', 'append', 'incr', 'incrby', 'decr', 'decrby', 'incrbyfloat',
  'del', 'unlink', 'expire', 'pexpire', 'expireat', 'pexpireat', 'persist', 'rename', 'renamenx', 'copy', 'restore',
  'lpush', 'rpush', 'lpushx', 'rpushx', 'lpop', 'rpop', 'lrem', 'lset', 'ltrim', 'linsert', 'lmove', 'rpoplpush', 'blmove', 'brpoplpush', 'blpop', 'brpop',
  'sadd', 'srem', 'spop', 'smove',
  'zadd', 'zrem', 'zincrby', 'zpopmin', 'zpopmax', 'zremrangebyscore', 'zremrangebyrank', 'zremrangebylex',
  'hset', 'hsetnx', 'hmset', 'hdel', 'hincrby', 'hincrbyfloat',
  'xadd', 'xdel', 'xtrim', 'flushdb', 'flushall',
]);

interface HeldReply {
  value: unknown;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

type SendCommand = (command: Command, stream?: unknown) => unknown;

/**
 * From now on, `client`'s writes resolve only once `replicas` replicas acknowledged them within
 * `timeoutMs`. The replies of one I/O turn share one WAIT, sent before the connection can change:
 * a WAIT on a new connection would vouch for nothing (WAIT counts this connection's writes).
 */
export function confirmWrites(client: Redis, replicas: number, timeoutMs: number): void {
  const send = (client.sendCommand as SendCommand).bind(client);
  let held: HeldReply[] | undefined;

  const flush = () => {
    const replies = held!;
    held = undefined;
    const fail = (err: Error) => replies.forEach((r) => r.reject(err));
    if (client.status !== 'ready') return fail(new UnconfirmedWriteError('write not confirmed on replicas: the connection dropped'));
    const wait = new Command('wait', [replicas, timeoutMs]);
    (send(wait) as Promise<unknown>).then(
      (acked) => {
        if (Number(acked) >= replicas) replies.forEach((r) => r.resolve(r.value));
        else fail(new UnconfirmedWriteError(`write confirmed by ${acked} of ${replicas} replica(s) within ${timeoutMs} ms; it may be lost in a failover`));
      },
      (err: Error) => fail(new UnconfirmedWriteError(`write not confirmed on replicas: ${err.message}`)),
    );
  };

  (client as unknown as { sendCommand: SendCommand }).sendCommand = (command, stream) => {
    if (WRITES.has(command.name.toLowerCase())) {
      const { resolve, reject } = command;
      command.resolve = (value: unknown) => {
        if (!held) {
          held = [];
          process.nextTick(flush);
        }
        held.push({ value, resolve, reject });
      };
    }
    return send(command, stream);
  };
}
