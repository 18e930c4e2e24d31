// Command line of `npm run bench -- [--quick] [--only W2[,W3]] [--json] [--profile] [--peers[=...]] [--w6-jobs N]`.
import { PEER_IDS, PeerId } from './peer-setup';

export const WORKLOADS = ['ceiling', 'W1', 'W2', 'W3', 'W4', 'W5', 'W6', 'W7', 'W8', 'W9'] as const;
export type Workload = (typeof WORKLOADS)[number];

export interface Options {
  quick: boolean;
  json: boolean;
  profile: boolean;
  /** The workloads to run; all of them unless --only. The ceiling runs only without --only. */
  only?: Set<Workload>;
  /** --peers: the peers to run beside nexq (W1, W2, W3), in this order; none without it. */
  peers?: PeerId[];
  /** --rate-limit LIMIT/PER: W2's queue gets this `rateLimit` (set it generous to measure its cost). */
  rateLimit?: { limit: number; per: number };
  /** --fair: W2's queue is `fair: true` (its jobs all in the default group): the fair fetch's cost. */
  fair?: boolean;
  /** --w6-jobs N: W6's job count instead of the run's size (20,000; --quick 2,000). */
  w6Jobs?: number;
}

export const USAGE = `usage: npm run bench -- [--quick] [--only ${WORKLOADS.join('|')}[,...]] [--json] [--profile] [--peers[=${PEER_IDS.join(',')}]] [--rate-limit LIMIT/PER] [--fair] [--w6-jobs N]
  --quick    small sizes for a smoke run (2,000 jobs; W4 10,000)
  --only     run only these workloads (comma separated; the redis-benchmark ceiling is "ceiling")
  --json     print the results as JSON instead of a table (progress still goes to stderr)
  --profile  run W2 at concurrency 50 with the node under --cpu-prof and print the top self time
  --peers    also run the peers (all, or those named) through W1, W2 c10/c50, W3 and W6, and print
             nexq beside the best of them as ratios; Sidekiq only when ruby-sidekiq is installed
             (and not in W6)
  --rate-limit W2's queue limited to LIMIT jobs per PER seconds across nodes (e.g. 1000000/1): the
             limiter's cost, against a run without it
  --fair     W2's queue configured fair: true (every job in the default group): the fair fetch's
             cost, against a run without it
  --w6-jobs  W6's CPU-bound jobs (~2 ms each) instead of 20,000 (--quick: 2,000), for a short trial`;

export class UsageError extends Error {}

export function parseOptions(argv: string[]): Options {
  const options: Options = { quick: false, json: false, profile: false };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split('=', 2) as [string, string | undefined];
    switch (flag) {
      case '--quick':
        options.quick = true;
        break;
      case '--json':
        options.json = true;
        break;
      case '--profile':
        options.profile = true;
        break;
      case '--only': {
        const value = inline ?? argv[++i];
        if (!value) throw new UsageError('--only needs a workload');
        options.only = new Set(value.split(',').map((name) => toWorkload(name.trim())));
        break;
      }
      case '--peers':
        options.peers = inline === undefined ? [...PEER_IDS] : inline.split(',').map((name) => toPeer(name.trim()));
        break;
      case '--rate-limit': {
        const value = inline ?? argv.at(++i) ?? '';
        const [limit, per] = value.split('/').map(Number);
        if (!(Number.isInteger(limit) && limit >= 1 && per > 0))
          throw new UsageError(`--rate-limit needs LIMIT/PER, e.g. 1000000/1 (got ${JSON.stringify(value)})`);
        options.rateLimit = { limit, per };
        break;
      }
      case '--fair':
        options.fair = true;
        break;
      case '--w6-jobs': {
        const value = inline ?? argv.at(++i) ?? '';
        const jobs = Number(value);
        if (!(Number.isInteger(jobs) && jobs >= 1))
          throw new UsageError(`--w6-jobs needs a whole number of jobs (got ${JSON.stringify(value)})`);
        options.w6Jobs = jobs;
        break;
      }
      case '--help':
      case '-h':
        throw new UsageError('');
      default:
        throw new UsageError(`unknown option ${argv[i]}`);
    }
  }
  if (options.peers && options.profile)
    throw new UsageError('--peers and --profile do not go together (--profile runs only nexq)');
  return options;
}

function toPeer(name: string): PeerId {
  const found = PEER_IDS.find((p) => p === name.toLowerCase());
  if (!found) throw new UsageError(`unknown peer ${JSON.stringify(name)} (one of ${PEER_IDS.join(', ')})`);
  return found;
}

function toWorkload(name: string): Workload {
  const found = WORKLOADS.find((w) => w.toLowerCase() === name.toLowerCase());
  if (!found) throw new UsageError(`unknown workload ${JSON.stringify(name)} (one of ${WORKLOADS.join(', ')})`);
  return found;
}

export function wants(options: Options, workload: Workload): boolean {
  return options.only ? options.only.has(workload) : true;
}
