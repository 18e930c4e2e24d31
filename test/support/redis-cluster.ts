// A Redis Cluster for tests: 6 redis-server processes on loopback ports (3 masters, 3 replicas,
// short cluster-node-timeout), joined with `redis-cli --cluster create`; can kill -9 a master,
// wait for its replica's promotion, and start the killed one again to rejoin as a replica.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { HostPort, NexqRedisOptions } from '../../config/redis-options';
import { sleep, waitFor } from './node';
import { askRedis, freePort, QUICK_SYNC, RedisServer } from './redis-server';

const NODE_TIMEOUT_MS = 1000;

export interface ClusterNodeEntry {
  id: string;
  port: number;
  role: 'master' | 'replica';
  /** The master's id, for a replica. */
  masterId?: string;
  failed: boolean;
  slots: Array<[number, number]>;
}

/** CLUSTER NODES as one node sees it. */
export async function clusterNodes(port: number): Promise<ClusterNodeEntry[]> {
  const text = (await askRedis(port, (c) => c.call('CLUSTER', 'NODES'))) as string;
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const [id, address, flags, master, , , , , ...slots] = line.split(' ');
      const flagSet = flags.split(',');
      return {
        id,
        port: Number(/:(\d+)@/.exec(address)![1]),
        role: flagSet.includes('master') ? 'master' : 'replica',
        masterId: master === '-' ? undefined : master,
        failed: flagSet.includes('fail') || flagSet.includes('fail?'),
        slots: slots
          .filter((s) => /^\d+(-\d+)?$/.test(s))
          .map((s) => {
            const [from, to = from] = s.split('-').map(Number);
            return [from, to] as [number, number];
          }),
      };
    });
}

export class RedisClusterSetup {
  private constructor(readonly servers: RedisServer[]) {}

  static async start(): Promise<RedisClusterSetup> {
    const args = [
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      'nodes.conf',
      '--cluster-node-timeout',
      String(NODE_TIMEOUT_MS),
      ...QUICK_SYNC,
    ];
    // The bus port is named: Redis' default (port + 10000) does not exist above port 55535. Six
    // servers pick their ports at once, each a port free when asked: two may pick the same one, and
    // the one that binds second exits; it starts again on other ports.
    const start = async (): Promise<RedisServer> => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await RedisServer.start({ args: [...args, '--cluster-port', String(await freePort())] });
        } catch (err) {
          if (attempt >= 3 || !/exited at start/.test((err as Error).message)) throw err;
        }
      }
    };
    const setup = new RedisClusterSetup(await Promise.all(Array.from({ length: 6 }, start)));
    try {
      const addresses = setup.servers.map((s) => `127.0.0.1:${s.port}`);
      await promisify(execFile)('redis-cli', [
        '--cluster',
        'create',
        ...addresses,
        '--cluster-replicas',
        '1',
        '--cluster-yes',
      ]);
      await waitFor(() => setup.healthy(), 30_000, 'the cluster to be ok with 3 masters and 3 replicas');
    } catch (err) {
      await setup.stop();
      throw err;
    }
    return setup;
  }

  get seeds(): HostPort[] {
    return this.servers.filter((s) => s.running).map((s) => ({ host: '127.0.0.1', port: s.port }));
  }

  /** The `redis` option of a nexq client of this cluster. */
  redisOption(extra: NexqRedisOptions = {}): NexqRedisOptions & { cluster: HostPort[] } {
    return { cluster: this.seeds, ...extra };
  }

  private live(): RedisServer[] {
    return this.servers.filter((s) => s.running);
  }

  /** Every live node reports cluster_state:ok and sees 3 live masters, each with a replica in sync. */
  async healthy(): Promise<boolean> {
    await sleep(50);
    for (const server of this.live()) {
      if (!/cluster_state:ok/.test((await askRedis(server.port, (c) => c.call('CLUSTER', 'INFO'))) as string))
        return false;
      const nodes = (await clusterNodes(server.port)).filter((n) => !n.failed);
      const masters = nodes.filter((n) => n.role === 'master' && n.slots.length > 0);
      if (masters.length !== 3 || !masters.every((m) => nodes.some((n) => n.masterId === m.id))) return false;
      const replication = await askRedis(server.port, (c) => c.info('replication'));
      if (/role:slave/.test(replication) && !/master_link_status:up/.test(replication)) return false;
    }
    return true;
  }

  /** The port of the master that serves `key` now. */
  async masterOf(key: string): Promise<number> {
    const port = this.live()[0].port;
    const slot = (await askRedis(port, (c) => c.call('CLUSTER', 'KEYSLOT', key))) as number;
    const master = (await clusterNodes(port)).find(
      (n) => n.role === 'master' && !n.failed && n.slots.some(([a, b]) => slot >= a && slot <= b),
    );
    return master!.port;
  }

  /** The port of the replica of the master on `port`. */
  async replicaOf(port: number): Promise<number> {
    const nodes = await clusterNodes(port);
    const master = nodes.find((n) => n.port === port)!;
    return nodes.find((n) => n.masterId === master.id)!.port;
  }

  server(port: number): RedisServer {
    return this.servers.find((s) => s.port === port)!;
  }

  /** kill -9 the master on `port`, then waits until its replica serves its slots. */
  async killMaster(port: number): Promise<{ promoted: number }> {
    const promoted = await this.replicaOf(port);
    await this.server(port).kill9();
    await waitFor(
      async () => {
        await sleep(50);
        const seen = await clusterNodes(promoted);
        const self = seen.find((n) => n.port === promoted)!;
        if (self.role !== 'master' || self.slots.length === 0) return false;
        for (const server of this.live()) {
          if (!/cluster_state:ok/.test((await askRedis(server.port, (c) => c.call('CLUSTER', 'INFO'))) as string))
            return false;
        }
        return true;
      },
      30_000,
      `the replica on port ${promoted} to take over from ${port}`,
    );
    return { promoted };
  }

  /** Starts the killed server on `port` again (its data and nodes.conf kept): it rejoins as a replica. */
  async rejoin(port: number): Promise<void> {
    await this.server(port).launch();
    await waitFor(() => this.healthy(), 30_000, `port ${port} to rejoin the cluster as a replica in sync`);
  }

  async stop(): Promise<void> {
    await Promise.all(this.servers.map((s) => s.stop()));
  }
}

/** Call inside a `describe`: a cluster of its own for each test, stopped after it; the getter gives it. */
export function clusterPerTest(): () => RedisClusterSetup {
  let setup: RedisClusterSetup | undefined;
  beforeEach(async function () {
    this.timeout(60_000);
    setup = await RedisClusterSetup.start();
  });
  afterEach(async function () {
    this.timeout(60_000);
    await setup?.stop(); // unset when beforeEach failed
    setup = undefined;
  });
  return () => {
    if (!setup) throw new Error('the cluster is only there inside a test');
    return setup;
  };
}
