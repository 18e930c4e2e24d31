// Command line of `npm run soak -- [--jobs N] [--nodes N] [--concurrency N] [--backlog N]`.

export interface SoakOptions {
  jobs: number;
  nodes: number;
  concurrency: number;
  /** The producer waits while the queue holds more than this many jobs. */
  backlog: number;
  /** Jobs of the same mix run first and not counted, so the start is read on warm nodes and Redis. */
  warmup: number;
}

export const SOAK_USAGE = `usage: npm run soak -- [--jobs N] [--warmup N] [--nodes N] [--concurrency N] [--backlog N]
  --jobs         jobs to run and count (default 1000000; .ci/run uses 100000)
  --warmup       jobs run before, not counted (default 10000; .ci/run uses 100000)
  --nodes        node processes (default 2)
  --concurrency  concurrency of each node (default 50)
  --backlog      most jobs the producer lets wait in the queue (default 20000)`;

export function parseSoakOptions(argv: string[]): SoakOptions {
  const options: SoakOptions = { jobs: 1_000_000, warmup: 10_000, nodes: 2, concurrency: 50, backlog: 20_000 };
  for (let i = 0; i < argv.length; i++) {
    const [flag, ...rest] = argv[i].split('=');
    const name = flag.replace(/^--/, '');
    if (!flag.startsWith('--') || !(name in options)) throw new Error(`unknown argument ${argv[i]}\n${SOAK_USAGE}`);
    const text = rest.length > 0 ? rest.join('=') : argv[++i];
    const value = Number(text);
    if (!Number.isInteger(value) || value < 1)
      throw new Error(`--${name} needs a positive whole number, got ${text}\n${SOAK_USAGE}`);
    options[name as keyof SoakOptions] = value;
  }
  return options;
}
