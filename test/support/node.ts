// Starting nexq nodes in tests: test-friendly defaults, a fresh namespace per test, a Redis client
// to inspect what the node wrote, and every node stopped after the test whatever happened.
import Redis from 'ioredis';
import winston from 'winston';
import { Nexq, NexqStartOptions } from '../../src/nexq';
import { KeyLayout, Keys } from '../../src/redis/keys';
import { freshNamespace, sharedRedis } from './global-hooks';
import { fixturesJobs } from './paths';

/** What a truthy value of T can be. */
export type Truthy<T> = Exclude<T, false | 0 | '' | null | undefined>;

/**
 * Polls `predicate` every 10 ms until it returns a truthy value, and resolves to that value;
 * rejects after `timeoutMs`. For waiting only: tests never assert on how long anything took.
 */
export async function waitFor<T>(
  predicate: () => T | Promise<T>,
  timeoutMs = 5000,
  what = 'condition',
): Promise<Truthy<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await predicate();
    if (value) return value as Truthy<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
}

/**
 * NEXQ_TEST_KEY_LAYOUT=per-queue runs the node tests in the per-queue key layout (the one a Redis
 * Cluster gets), on the one test server: every script call then checks that its keys share a slot.
 */
export const TEST_KEY_LAYOUT: KeyLayout = process.env.NEXQ_TEST_KEY_LAYOUT === 'per-queue' ? 'per-queue' : 'shared';

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface NodeTest {
  /** The Redis the nodes and the fixture handlers use. */
  readonly url: string;
  /** This test's namespace (fresh per test). */
  readonly ns: string;
  readonly keys: Keys;
  /** A client for the test itself, to read and write keys directly. */
  readonly redis: Redis;
  /** Starts a node with the test defaults under `options`; it is stopped after the test. */
  start(options?: NexqStartOptions): Promise<Nexq>;
  /** Stops a node started by `start` (safe to call once per node; afterEach skips it then). */
  stop(node: Nexq): Promise<void>;
  /** A key for fixture handlers to report into, inside this test's namespace. */
  out(name: string): string;
  /** Reads a list the Record-style fixtures push JSON into. */
  records(key: string): Promise<any[]>;
  /** Waits until `key` holds at least `count` records, and returns them all. */
  waitForRecords(key: string, count?: number, timeoutMs?: number): Promise<any[]>;
}

/**
 * Call inside a `describe`: registers beforeEach/afterEach hooks and returns the per-test state.
 * `url` overrides the shared server (e.g. a private RedisServer for namespace ''), and `flushFirst`
 * empties that server before each test, for tests that share one fixed namespace.
 */
export function useNodes(defaults: { url?: () => string; namespace?: string; flushFirst?: boolean } = {}): NodeTest {
  const live = new Set<Nexq>();
  let state: { url: string; ns: string; keys: Keys; redis: Redis } | undefined;
  const current = () => {
    if (!state) throw new Error('useNodes state is only available inside a test');
    return state;
  };

  beforeEach(async () => {
    const url = defaults.url ? defaults.url() : sharedRedis().url;
    const ns = defaults.namespace ?? freshNamespace();
    const layout = ns === '' || /[{}]/.test(ns) ? 'shared' : TEST_KEY_LAYOUT;
    state = { url, ns, keys: new Keys(ns, layout), redis: new Redis(url) };
    if (defaults.flushFirst) await state.redis.flushdb();
  });

  afterEach(async function () {
    this.timeout(30_000);
    const nodes = [...live];
    live.clear();
    await Promise.all(nodes.map((node) => node.stop().catch(() => {})));
    await state?.redis.quit().catch(() => state?.redis.disconnect());
    state = undefined;
  });

  return {
    get url() {
      return current().url;
    },
    get ns() {
      return current().ns;
    },
    get keys() {
      return current().keys;
    },
    get redis() {
      return current().redis;
    },
    async start(options: NexqStartOptions = {}) {
      const { url, ns } = current();
      const node = await Nexq.start({
        redis: url,
        namespace: ns,
        queues: ['default'],
        jobsDir: fixturesJobs,
        logLevel: (process.env.NEXQ_TEST_LOGLEVEL as 'error' | undefined) ?? 'error',
        pollTimeout: 20,
        schedulerPollTimeout: 50,
        threads: 2,
        ...(current().keys.perQueue ? { keyLayout: 'per-queue' as const } : {}),
        // The test's options alone: a NEXQ_ variable of the run (NEXQ_KEY_LAYOUT for the CLI's children) stays out.
        environment: false,
        // Nodes log bad input at error level on purpose; NEXQ_TEST_LOGS=1 shows it (and
        // NEXQ_TEST_LOGLEVEL=debug, say, shows more).
        ...(process.env.NEXQ_TEST_LOGS ? {} : { logger: winston.createLogger({ silent: true }) }),
        ...options,
      });
      live.add(node);
      return node;
    },
    async stop(node: Nexq) {
      if (!live.delete(node)) return;
      await node.stop();
    },
    out(name: string) {
      const { ns } = current();
      return `${ns === '' ? 'test' : ns}:out:${name}`;
    },
    async records(key: string) {
      return (await current().redis.lrange(key, 0, -1)).map((s) => JSON.parse(s));
    },
    async waitForRecords(key: string, count = 1, timeoutMs = 5000) {
      await waitFor(async () => (await current().redis.llen(key)) >= count, timeoutMs, `${count} record(s) in ${key}`);
      return this.records(key);
    },
  };
}
