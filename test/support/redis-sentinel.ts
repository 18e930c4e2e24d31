// A Sentinel set-up for tests, on loopback ports in temp dirs: one master, one replica (or more)
// and three sentinels (`redis-server <conf> --sentinel`) with short timeouts, and a forced failover.
// Optionally the servers and the sentinels each require a password.
import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Redis from 'ioredis';
import type { HostPort, NexqRedisOptions } from '../../config/redis-options';
import { sleep, waitFor } from './node';
import { answersPing, askRedis, freePort, QUICK_SYNC, RedisServer } from './redis-server';

export const SENTINEL_MASTER_NAME = 'nexq-master';

export interface SentinelPasswords {
  /** requirepass (and masterauth) of the master and the replica. */
  password?: string;
  /** requirepass of the sentinels. */
  sentinelPassword?: string;
}

/** One `redis-server --sentinel` process. */
class SentinelProcess {
  private child?: ChildProcess;

  private constructor(
    readonly port: number,
    readonly dir: string,
  ) {}

  static async start(masterPort: number, auth: SentinelPasswords): Promise<SentinelProcess> {
    const sentinel = new SentinelProcess(await freePort(), mkdtempSync(path.join(os.tmpdir(), 'nexq-sentinel-')));
    const conf = path.join(sentinel.dir, 'sentinel.conf');
    writeFileSync(
      conf,
      [
        `port ${sentinel.port}`,
        'bind 127.0.0.1',
        `dir ${sentinel.dir}`,
        `logfile ${path.join(sentinel.dir, 'sentinel.log')}`,
        `sentinel monitor ${SENTINEL_MASTER_NAME} 127.0.0.1 ${masterPort} 2`,
        `sentinel down-after-milliseconds ${SENTINEL_MASTER_NAME} 1000`,
        `sentinel failover-timeout ${SENTINEL_MASTER_NAME} 2000`,
        `sentinel parallel-syncs ${SENTINEL_MASTER_NAME} 1`,
        ...(auth.password ? [`sentinel auth-pass ${SENTINEL_MASTER_NAME} ${auth.password}`] : []),
        ...(auth.sentinelPassword
          ? [`requirepass ${auth.sentinelPassword}`, `sentinel sentinel-pass ${auth.sentinelPassword}`]
          : []),
        '',
      ].join('\n'),
    );
    sentinel.child = spawn('redis-server', [conf, '--sentinel'], { stdio: 'ignore' });
    await waitFor(
      () => {
        if (sentinel.child!.exitCode !== null)
          throw new Error(`redis-sentinel exited at start (see ${sentinel.dir}/sentinel.log)`);
        return answersPing(sentinel.port);
      },
      10_000,
      `sentinel on port ${sentinel.port}`,
    );
    return sentinel;
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export class SentinelSetup {
  readonly name = SENTINEL_MASTER_NAME;

  private constructor(
    readonly servers: RedisServer[],
    private readonly sentinels: SentinelProcess[],
    readonly auth: SentinelPasswords,
  ) {}

  static async start(auth: SentinelPasswords = {}, replicaCount = 1): Promise<SentinelSetup> {
    const args = [
      ...QUICK_SYNC,
      ...(auth.password ? ['--requirepass', auth.password, '--masterauth', auth.password] : []),
    ];
    const master = await RedisServer.start({ args });
    const replicas: RedisServer[] = [];
    for (let i = 0; i < replicaCount; i++)
      replicas.push(await RedisServer.start({ args: [...args, '--replicaof', '127.0.0.1', String(master.port)] }));
    const setup = new SentinelSetup([master, ...replicas], [], auth);
    try {
      for (const replica of replicas)
        await waitFor(() => setup.replicaInSync(replica.port), 15_000, 'the replica to sync');
      for (let i = 0; i < 3; i++) setup.sentinels.push(await SentinelProcess.start(master.port, auth));
      // Sentinels find the replica in the master's INFO and each other through its hello channel.
      await waitFor(() => setup.sentinelsReady(), 30_000, 'the sentinels to see the replica and each other');
    } catch (err) {
      await setup.stop();
      throw err;
    }
    return setup;
  }

  get sentinelAddresses(): HostPort[] {
    return this.sentinels.map((s) => ({ host: '127.0.0.1', port: s.port }));
  }

  /** The `redis` option of a nexq node using these sentinels. */
  redisOption(extra: NexqRedisOptions = {}): NexqRedisOptions {
    return { sentinels: this.sentinelAddresses, name: this.name, ...this.auth, ...extra };
  }

  /** A client of the current master, found through the sentinels. */
  client(): Redis {
    return new Redis({ ...this.redisOption(), failoverDetector: true, reconnectOnError: () => 1 });
  }

  private askServer<T>(port: number, body: (client: Redis) => Promise<T>): Promise<T> {
    return askRedis(port, body, this.auth.password);
  }

  private askSentinel<T>(port: number, body: (client: Redis) => Promise<T>): Promise<T> {
    return askRedis(port, body, this.auth.sentinelPassword);
  }

  /** The master's port as the first sentinel reports it. */
  async masterPort(): Promise<number> {
    const [, port] = (await this.askSentinel(this.sentinels[0].port, (c) =>
      c.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', this.name),
    )) as string[];
    return Number(port);
  }

  /**
   * SENTINEL FAILOVER, then waits until every sentinel names the promoted replica, it answers as
   * master, and every other server (the old master too) has become its replica in sync.
   */
  async failover(): Promise<{ from: number; to: number }> {
    const from = await this.masterPort();
    await this.askSentinel(this.sentinels[0].port, (c) => c.call('SENTINEL', 'FAILOVER', this.name));
    return this.switched(from);
  }

  /**
   * kill -9 the master: the sentinels see it down and promote the replica. Then the killed server
   * comes back on its port with its data, and waits until Sentinel has made it the new master's
   * replica, in sync.
   */
  async killMaster(): Promise<{ from: number; to: number }> {
    const from = await this.masterPort();
    const killed = this.servers.find((s) => s.port === from)!;
    await killed.kill9();
    // These servers have no config file for Sentinel's CONFIG REWRITE: it comes back as a replica
    // of the new master, as Sentinel would make it (not of whichever server it first replicated,
    // which may be a replica now, nor as a master with its old data, which Sentinel once answered
    // by following it instead, on this loaded machine).
    return this.switched(from, (to) => killed.launch(['--replicaof', '127.0.0.1', String(to)]));
  }

  private async switched(
    from: number,
    beforeRejoin?: (to: number) => Promise<void>,
  ): Promise<{ from: number; to: number }> {
    let to = 0;
    await waitFor(
      async () => {
        await sleep(50);
        const named = new Set<number>();
        for (const s of this.sentinels) {
          const [, port] = (await this.askSentinel(s.port, (c) =>
            c.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', this.name),
          )) as string[];
          named.add(Number(port));
        }
        if (named.size !== 1 || named.has(from)) return false;
        to = [...named][0];
        const role = await this.askServer(to, async (c) => ((await c.call('ROLE')) as unknown[])[0]).catch(() => '');
        return role === 'master';
      },
      30_000,
      `the sentinels to promote a replica of port ${from}`,
    );
    await beforeRejoin?.(to);
    // Sentinel turns a restarted old master into a replica only after it has seen it report its
    // old role for a while (INFO rounds); on a loaded 2-core machine that took over 30 s once.
    await waitFor(
      async () => {
        await sleep(50);
        for (const s of this.servers) if (s.port !== to && !(await this.replicaInSync(s.port, to))) return false;
        return true;
      },
      90_000,
      `port ${from} (and every other replica) to rejoin as a replica of ${to}`,
    ).catch(async (err: unknown) => {
      const states = await Promise.all(
        this.servers.map(async (s) => {
          const info = await this.askServer(s.port, (c) => c.info('replication')).catch(() => '');
          return `${s.port}: ${/role:(\w+)/.exec(info)?.[1] ?? '?'} of ${/master_port:(\d+)/.exec(info)?.[1] ?? '-'}`;
        }),
      );
      throw new Error(`${(err as Error).message} (${states.join('; ')})`);
    });
    return { from, to };
  }

  private async replicaInSync(port: number, of?: number): Promise<boolean> {
    // Sentinel drops the clients of a master it turns into a replica (CLIENT KILL): a question
    // cut off that way is only "not yet".
    const info = await this.askServer(port, (c) => c.info('replication')).catch(() => '');
    return (
      /role:slave/.test(info) &&
      (of === undefined || new RegExp(`master_port:${of}\\b`).test(info)) &&
      /master_link_status:up/.test(info) &&
      !/master_sync_in_progress:1/.test(info)
    );
  }

  private async sentinelsReady(): Promise<boolean> {
    await sleep(100);
    for (const s of this.sentinels) {
      const ready = await this.askSentinel(s.port, async (c) => {
        const replicas = (await c.call('SENTINEL', 'REPLICAS', this.name)) as string[][];
        const others = (await c.call('SENTINEL', 'SENTINELS', this.name)) as string[][];
        const flags = (entry: string[]) => entry[entry.indexOf('flags') + 1];
        return (
          replicas.length === this.servers.length - 1 &&
          replicas.every((r) => flags(r) === 'slave') &&
          others.length === 2
        );
      });
      if (!ready) return false;
    }
    return true;
  }

  async stop(): Promise<void> {
    await Promise.all([...this.sentinels.map((s) => s.stop()), ...this.servers.map((s) => s.stop())]);
  }
}
