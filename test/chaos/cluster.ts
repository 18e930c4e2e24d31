// Several nexq node processes against one Redis, for the chaos tests.
import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import type { NexqStartOptions } from '../../src/nexq';
import { expect } from 'chai';
import { waitFor } from '../support/node';
import { fixturesJobs } from '../support/paths';
import Redis from 'ioredis';
import { Keys } from '../../src/redis/keys';
import { freshNamespace } from '../support/global-hooks';
import { RedisServer } from '../support/redis-server';

export interface NodeProcess {
  nodeId: string;
  child: ChildProcess;
  output: () => string;
  /** What it printed on stdout ("ready ...", "enqueued <jid>" per job sent on its stdin). */
  stdout: () => string;
}

/** `env`: more environment for the child (the clock-skew test's libfaketime). */
export async function startNodeProcess(options: NexqStartOptions, env: NodeJS.ProcessEnv = {}): Promise<NodeProcess> {
  const child = spawn(process.execPath, [path.join(__dirname, 'node-process.js')], {
    env: { ...process.env, ...env, NEXQ_CHAOS_OPTIONS: JSON.stringify(options) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  let stdout = '';
  child.stderr.on('data', (d) => (output += String(d)));
  const nodeId = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      stdout += String(d);
      const match = /ready (\S+)/.exec(stdout);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`node process exited with ${code} before it was ready: ${output}`)));
  });
  return { nodeId, child, output: () => output, stdout: () => stdout };
}

/**
 * Fails unless every one of `nodes` is still running: a node process that exited by itself (an
 * unhandled rejection ends one) is named with its output, which says why.
 */
export function expectAlive(nodes: NodeProcess[]): void {
  for (const node of nodes) {
    const { exitCode, signalCode } = node.child;
    if (exitCode !== null || signalCode !== null)
      throw new Error(`node process ${node.nodeId} exited (code ${exitCode}, signal ${signalCode}):\n${node.output()}`);
  }
}

export async function kill9(node: NodeProcess): Promise<void> {
  if (node.child.exitCode !== null || node.child.signalCode !== null) return;
  const exited = new Promise((resolve) => node.child.once('exit', resolve));
  node.child.kill('SIGKILL');
  await exited;
}

export async function stopGracefully(node: NodeProcess): Promise<number | null> {
  if (node.child.exitCode !== null || node.child.signalCode !== null) return node.child.exitCode;
  const exited = new Promise<number | null>((resolve) => node.child.once('exit', resolve));
  node.child.kill('SIGTERM');
  return exited;
}

/** The queue an apart node (below) serves alone. */
export const APART_QUEUE = 'apart';

/**
 * A node in a process of its own beside a test's in-process nodes, with the same Redis option, on
 * a queue of its own (so the test's counts are its nodes' alone): a rejection nothing handles ends
 * this process as it ends a node in production, where in the test's own process the global hooks
 * fail the test instead. Its connections (main, wake subscriber, cancel subscriber) live through it all.
 */
export function startApartNode(options: NexqStartOptions): Promise<NodeProcess> {
  return startNodeProcess({
    jobsDir: fixturesJobs,
    logLevel: 'warn',
    heartbeatInterval: 1,
    pollTimeout: 20,
    threads: 1,
    ...options,
    queues: [{ name: APART_QUEUE, concurrency: 2 }],
  });
}

/**
 * At a test's end: the apart node still runs and still works (a job `enqueue` sends to its queue
 * runs, which `ran` tells), then stops cleanly.
 */
export async function expectApartWorking(
  apart: NodeProcess,
  enqueue: (queue: string) => Promise<unknown>,
  ran: () => Promise<boolean>,
): Promise<void> {
  expectAlive([apart]);
  await enqueue(APART_QUEUE);
  await waitFor(ran, 30_000, 'a job on the apart node to run');
  expectAlive([apart]);
  expect(await stopGracefully(apart), apart.output()).to.equal(0);
}

export interface ChaosRedis {
  server: RedisServer;
  redis: Redis;
  ns: string;
  keys: Keys;
  /** Node processes started for the test: killed with -9 after it. */
  nodes: NodeProcess[];
}

/**
 * Each test of the suite gets a redis-server of its own (appendfsync always: a write Redis
 * acknowledged survives its kill -9, as in a durable deployment), a client and a fresh namespace;
 * after it, its node processes are killed and the server stops.
 */
export function useChaosRedis(): ChaosRedis {
  const t = { nodes: [] } as unknown as ChaosRedis;
  beforeEach(async () => {
    t.server = await RedisServer.start({ args: ['--appendfsync', 'always'] });
    t.redis = new Redis(t.server.url);
    t.ns = freshNamespace('chaos');
    t.keys = new Keys(t.ns);
  });
  afterEach(async () => {
    await Promise.all(t.nodes.map((n) => kill9(n)));
    t.nodes = [];
    t.redis.disconnect();
    await t.server.stop();
  });
  return t;
}
