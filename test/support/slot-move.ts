// Moving one slot of the test cluster to another master the way `redis-cli --cluster reshard`
// does, in steps a test can hold apart: open it (IMPORTING on the target, then MIGRATING on the
// source), MIGRATE its keys (some, or all), and close it (SETSLOT NODE on the target, the source,
// then every other master). While it is open, Redis answers ASK and TRYAGAIN for the slot's keys.
import { sleep, waitFor } from './node';
import { clusterNodes, RedisClusterSetup } from './redis-cluster';
import { askRedis } from './redis-server';

export class SlotMove {
  private constructor(
    private readonly setup: RedisClusterSetup,
    readonly slot: number,
    readonly source: { port: number; id: string },
    readonly target: { port: number; id: string },
  ) {}

  /** Opens the move of `key`'s slot from its master to another master (the first other one). */
  static async open(setup: RedisClusterSetup, key: string): Promise<SlotMove> {
    const sourcePort = await setup.masterOf(key);
    const slot = (await askRedis(sourcePort, (c) => c.call('CLUSTER', 'KEYSLOT', key))) as number;
    const nodes = await clusterNodes(sourcePort);
    const source = nodes.find((n) => n.port === sourcePort)!;
    const target = nodes.find((n) => n.role === 'master' && !n.failed && n.slots.length > 0 && n.id !== source.id)!;
    const move = new SlotMove(setup, slot, source, target);
    await askRedis(target.port, (c) => c.call('CLUSTER', 'SETSLOT', slot, 'IMPORTING', source.id));
    await askRedis(source.port, (c) => c.call('CLUSTER', 'SETSLOT', slot, 'MIGRATING', target.id));
    return move;
  }

  /** The keys of the slot still on the source. */
  async keysOnSource(): Promise<string[]> {
    return (await askRedis(this.source.port, (c) => c.call('CLUSTER', 'GETKEYSINSLOT', this.slot, 1000))) as string[];
  }

  /** MIGRATEs up to `count` of the keys still on the source to the target; how many it moved. */
  async migrate(count = Infinity): Promise<number> {
    const keys = (await this.keysOnSource()).slice(0, count);
    if (keys.length === 0) return 0;
    await askRedis(this.source.port, (c) =>
      c.call('MIGRATE', '127.0.0.1', this.target.port, '', 0, 5000, 'KEYS', ...keys),
    );
    return keys.length;
  }

  /**
   * Moves every key left, one MIGRATE of a key each `stepMs` (0: all in one), then gives the slot
   * to the target on every master and waits until each node sees it there.
   */
  async close(stepMs = 0): Promise<void> {
    if (stepMs > 0) while ((await this.migrate(1)) > 0) await sleep(stepMs);
    while ((await this.migrate()) > 0);
    await askRedis(this.target.port, (c) => c.call('CLUSTER', 'SETSLOT', this.slot, 'NODE', this.target.id));
    await askRedis(this.source.port, (c) => c.call('CLUSTER', 'SETSLOT', this.slot, 'NODE', this.target.id));
    const others = (await clusterNodes(this.source.port)).filter(
      (n) => n.role === 'master' && !n.failed && n.id !== this.source.id && n.id !== this.target.id,
    );
    for (const n of others)
      await askRedis(n.port, (c) => c.call('CLUSTER', 'SETSLOT', this.slot, 'NODE', this.target.id));
    await waitFor(
      async () => {
        for (const server of this.setup.servers.filter((s) => s.running)) {
          const owner = (await clusterNodes(server.port)).find((n) =>
            n.slots.some(([a, b]) => this.slot >= a && this.slot <= b),
          );
          if (owner?.id !== this.target.id) return false;
        }
        return true;
      },
      30_000,
      `every node to see slot ${this.slot} on port ${this.target.port}`,
    );
  }
}
