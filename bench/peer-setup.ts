// The peers `--peers` runs beside nexq (code in bench/peers/, its own package): how to start each
// one's enqueue and work sides, where its jobs sit in Redis afterwards, and whether it can run
// here (bench/peers/node_modules installed on first use; Sidekiq only when Ruby has it).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

/** bench/peers in the source tree (this file runs from dist/bench). */
export const PEERS_DIR = path.resolve(__dirname, '..', '..', 'bench', 'peers');

export const PEER_IDS = ['bee-queue', 'bullmq', 'bullmq-threads', 'sidekiq'] as const;
export type PeerId = (typeof PEER_IDS)[number];

type KeyType = 'list' | 'set' | 'zset' | 'hash';

export interface Peer {
  id: PeerId;
  /** The list a fresh job waits in (W1 counts it after enqueueing). */
  queuedKey: string;
  /** Where a job may be left after a drain: every one must be empty. */
  leftKeys: [key: string, type: KeyType][];
  /** A counter of processed jobs kept in Redis, checked after the work side stopped. */
  processedKey?: string;
  /** Whether it has its own W1 (BullMQ's worker threads enqueue with the same client as BullMQ). */
  enqueues: boolean;
  /** Lines it prints that are not problems (Sidekiq's boot line, logged before its log level applies). */
  ignore?: RegExp;
  /** The command for a role; the configuration goes in NEXQ_BENCH_PEER. */
  command(role: 'enqueue' | 'work', concurrency: number): { command: string; args: string[] };
}

/** The JavaScript peers are one script; NEXQ_BENCH_PEER names the peer. */
const nodePeer: Peer['command'] = () => ({ command: process.execPath, args: [path.join(PEERS_DIR, 'peer.js')] });

export const PEERS: Record<PeerId, Peer> = {
  'bee-queue': {
    id: 'bee-queue',
    enqueues: true,
    queuedKey: 'bq:default:waiting',
    leftKeys: [
      ['bq:default:waiting', 'list'],
      ['bq:default:active', 'list'],
      ['bq:default:failed', 'set'],
      ['bq:default:delayed', 'zset'],
      ['bq:default:jobs', 'hash'],
    ],
    command: nodePeer,
  },
  bullmq: {
    id: 'bullmq',
    enqueues: true,
    queuedKey: 'bull:default:wait',
    leftKeys: [
      ['bull:default:wait', 'list'],
      ['bull:default:active', 'list'],
      ['bull:default:failed', 'zset'],
      ['bull:default:delayed', 'zset'],
      ['bull:default:completed', 'zset'],
    ],
    command: nodePeer,
  },
  'bullmq-threads': {
    id: 'bullmq-threads',
    enqueues: false,
    queuedKey: 'bull:default:wait',
    leftKeys: [
      ['bull:default:wait', 'list'],
      ['bull:default:active', 'list'],
      ['bull:default:failed', 'zset'],
      ['bull:default:delayed', 'zset'],
      ['bull:default:completed', 'zset'],
    ],
    command: nodePeer,
  },
  sidekiq: {
    id: 'sidekiq',
    enqueues: true,
    queuedKey: 'queue:default',
    leftKeys: [
      ['queue:default', 'list'],
      ['retry', 'zset'],
      ['dead', 'zset'],
      ['schedule', 'zset'],
    ],
    processedKey: 'stat:processed',
    ignore: / INFO: Booting Sidekiq /,
    command: (role, concurrency) =>
      role === 'enqueue'
        ? { command: 'ruby', args: [path.join(PEERS_DIR, 'sidekiq', 'client.rb')] }
        : {
            command: 'sidekiq',
            args: [
              '-e',
              'production',
              '-c',
              String(concurrency),
              '-q',
              'default',
              '-r',
              path.join(PEERS_DIR, 'sidekiq', 'worker.rb'),
            ],
          },
  },
};

function sidekiqWorks(): boolean {
  const ruby = spawnSync('ruby', ['-e', 'require "sidekiq"'], { stdio: 'ignore' });
  const cli = spawnSync('sidekiq', ['--help'], { stdio: 'ignore' });
  return ruby.status === 0 && !cli.error;
}

/**
 * The peers to run (all, or `wanted`), installing bench/peers' packages first when they are
 * missing. Says on stderr (`log`) what it installs and what it skips.
 */
export function preparePeers(log: (line: string) => void, wanted: readonly PeerId[] = PEER_IDS): Peer[] {
  const peers: Peer[] = [];
  const js = wanted.filter((id) => id !== 'sidekiq');
  if (js.length && !existsSync(path.join(PEERS_DIR, 'node_modules'))) {
    log(
      `peers: installing bee-queue and BullMQ (npm ci --prefix ${path.relative(process.cwd(), PEERS_DIR) || PEERS_DIR})`,
    );
    execFileSync('npm', ['ci', '--prefix', PEERS_DIR, '--no-audit', '--no-fund'], {
      stdio: ['ignore', process.stderr, process.stderr],
    });
  }
  for (const id of wanted) {
    if (id === 'sidekiq' && !sidekiqWorks()) log('Sidekiq skipped: apt-get install ruby-sidekiq');
    else peers.push(PEERS[id]);
  }
  return peers;
}
