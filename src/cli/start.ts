// `nexq start`: runs a node in the foreground until SIGTERM or SIGINT, then stops it gracefully.
import path from 'node:path';
import type { NexqConfig } from '../../config/defaults';
import {
  fileAndEnv,
  LayeredConfig,
  namingSource,
  parseQueueList,
  setFromFlag,
  unknownEnvWarnings,
  validateLayers,
} from '../../config/load';
import { ConfigError } from '../../config/validate';
import { HandlerCheckError } from '../handlers/check';
import { Nexq } from '../nexq';
import { checkFlags, ParsedArgs, UsageError } from './args';
import { forceStop } from './forced-stop';
import { handleProcessFaults } from './process-faults';
import { LocalRedis, redisAnswers, startLocalRedis } from './local-redis';
import { wrapHelp } from './wrap';
import { layRedisFlagsOver, REDIS_FLAG_NAMES, REDIS_FLAGS_HELP } from './redis-flags';

export const START_HELP = `Usage: nexq start [options]

Runs a nexq node in the foreground until SIGTERM or SIGINT, then stops gracefully.

Options:
${REDIS_FLAGS_HELP}
  --namespace NS              key prefix (default exq; '' for Sidekiq's layout)
  --queues LIST               queues and concurrency, e.g. default:10,mail:5
  --concurrency N             default concurrency of a queue
  --jobs DIR                  folder of job handlers (Foo.js handles class Foo)
  --node-id ID                names this node's backup lists (default: hostname-pid-random, new
                              each start; a fixed id leaves unfinished jobs for its next boot)
  --config FILE               JSON or YAML (.yaml, .yml) file of options
  --shutdown-timeout MS       how long running jobs get to finish on stop
  --metrics PORT              serve Prometheus metrics on http://127.0.0.1:PORT/metrics
  --web PORT                  serve the web dashboard on PORT (off by default)
  --web-host HOST             address the dashboard binds (default 127.0.0.1)
  --local-redis               start redis-server (data in ./var/) when none answers locally
  --help                      this text

Environment: REDIS_URL, and NEXQ_ + any option in upper snake case (NEXQ_QUEUES=default:10,mail:5,
NEXQ_SHUTDOWN_TIMEOUT, NEXQ_LOG_LEVEL, ...; NEXQ_JOBS, NEXQ_PERIODIC, NEXQ_CLASS_CONCURRENCY and
NEXQ_CLASS_RATE_LIMITS in JSON; NEXQ_METRICS_PORT and NEXQ_METRICS_HOST; NEXQ_WEB_PORT, NEXQ_WEB_HOST,
NEXQ_WEB_USERNAME and NEXQ_WEB_PASSWORD for the dashboard; NEXQ_REDIS_SENTINELS,
NEXQ_REDIS_SENTINEL_NAME, NEXQ_REDIS_CLUSTER, NEXQ_REDIS_WAIT_REPLICAS, NEXQ_REDIS_PASSWORD,
NEXQ_REDIS_SENTINEL_PASSWORD for Redis). Precedence: defaults < --config file < environment < flags.`;

const FLAGS = [
  ...REDIS_FLAG_NAMES,
  'namespace',
  'queues',
  'concurrency',
  'jobs',
  'node-id',
  'config',
  'shutdown-timeout',
  'metrics',
  'web',
  'web-host',
  'local-redis',
  'help',
];

function wholeNumber(value: string | true | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^\d+$/.test(value)) throw new UsageError(`--${flag} must be a whole number`);
  return Number(value);
}

function text(value: string | true | undefined, flag: string): string | undefined {
  if (value === true) throw new UsageError(`--${flag} needs a value`);
  return value;
}

/** The node's options: defaults < --config file < environment < flags, checked before anything starts. */
export function startConfig(args: ParsedArgs, env: NodeJS.ProcessEnv = process.env): NexqConfig {
  return startLayers(args, env).config;
}

/** The same, with where each option came from (for errors found later, at start). */
function startLayers(args: ParsedArgs, env: NodeJS.ProcessEnv = process.env): LayeredConfig {
  checkFlags(args, FLAGS);
  for (const warning of unknownEnvWarnings(env)) process.stderr.write(`nexq: ${warning}\n`);
  const f = args.flags;
  const layers = fileAndEnv(text(f.get('config'), 'config'), env);
  layRedisFlagsOver(layers, (name) => text(f.get(name), name));
  setFromFlag(layers, 'namespace', text(f.get('namespace'), 'namespace'), '--namespace');
  const queues = text(f.get('queues'), 'queues');
  setFromFlag(layers, 'queues', queues === undefined ? undefined : parseQueueList(queues, '--queues'), '--queues');
  setFromFlag(layers, 'concurrency', wholeNumber(f.get('concurrency'), 'concurrency'), '--concurrency');
  setFromFlag(layers, 'jobsDir', text(f.get('jobs'), 'jobs'), '--jobs');
  setFromFlag(layers, 'nodeId', text(f.get('node-id'), 'node-id'), '--node-id');
  setFromFlag(
    layers,
    'shutdownTimeout',
    wholeNumber(f.get('shutdown-timeout'), 'shutdown-timeout'),
    '--shutdown-timeout',
  );
  const metricsPort = wholeNumber(f.get('metrics'), 'metrics');
  if (metricsPort !== undefined) {
    // The port from the flag; a host from the file or the environment stays.
    const before = layers.config.metrics;
    setFromFlag(layers, 'metrics', { ...(typeof before === 'object' ? before : {}), port: metricsPort }, '--metrics');
  }
  const webPort = wholeNumber(f.get('web'), 'web');
  const webHost = text(f.get('web-host'), 'web-host');
  if (webPort !== undefined || webHost !== undefined) {
    // Field by field: a port from the flag keeps the host and credentials of the file or environment.
    const web = {
      ...layers.config.web,
      ...(webPort !== undefined ? { port: webPort } : {}),
      ...(webHost !== undefined ? { host: webHost } : {}),
    };
    setFromFlag(layers, 'web', web, webPort !== undefined ? '--web' : '--web-host');
  }
  const { config } = layers;
  if (typeof config.jobsDir === 'string' && config.jobsDir !== '') config.jobsDir = path.resolve(config.jobsDir);
  validateLayers(layers);
  return layers;
}

/** With --local-redis: when the configured local Redis does not answer, start one. */
async function ensureLocalRedis(config: NexqConfig): Promise<LocalRedis | undefined> {
  const url = new URL(typeof config.redis === 'string' ? config.redis : 'redis://127.0.0.1:6379');
  const port = Number(url.port || 6379);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) return undefined;
  if (await redisAnswers('127.0.0.1', port)) return undefined;
  const local = await startLocalRedis(port);
  process.stderr.write(`nexq: no Redis answered on port ${port}; started redis-server with its data in ./var/\n`);
  // It stands in for the configured server: the same database number (REDIS_URL=.../3).
  config.redis = `${local.url}${url.pathname}`;
  return local;
}

export async function runStart(args: ParsedArgs): Promise<number> {
  if (args.flags.has('help')) {
    process.stdout.write(`${wrapHelp(START_HELP)}\n`);
    return 0;
  }
  const { config, sources } = startLayers(args);
  const local =
    args.flags.has('local-redis') && typeof (config.redis ?? '') === 'string'
      ? await ensureLocalRedis(config)
      : undefined;
  if (local) sources.redis = '--local-redis (redis-server started with its data in ./var/)';
  let nexq: Nexq;
  try {
    nexq = await Nexq.startLayered(config, sources);
  } catch (err) {
    await local?.stop();
    // Mistakes in the set-up found while starting: one line, exit 2, like a bad flag.
    if (err instanceof ConfigError) throw new UsageError(namingSource(err, sources).message);
    if (err instanceof HandlerCheckError) throw new UsageError(err.message);
    throw err;
  }
  let uninstallFaultPolicy = () => {};
  const stopped = new Promise<number>((resolve) => {
    let stopping = false;
    /** Stops gracefully, then exits `code`; called again while it stops, exits `forced` at once. */
    const stop = (code: number, forced: number) => {
      if (stopping) {
        forceStop(nexq.node, forced);
        return;
      }
      stopping = true;
      nexq.stop().then(
        () => resolve(code),
        () => resolve(1),
      );
    };
    const onSignal = (signal: 'SIGINT' | 'SIGTERM') => {
      if (!stopping) process.stderr.write(`nexq: ${signal} received, stopping (again to stop at once)\n`);
      stop(0, signal === 'SIGINT' ? 130 : 143);
    };
    process.on('SIGTERM', () => onSignal('SIGTERM'));
    process.on('SIGINT', () => onSignal('SIGINT'));
    uninstallFaultPolicy = handleProcessFaults({ logger: nexq.node.ctx.logger, stop: (code) => stop(code, code) });
    // Stopped another way: TERM through Redis (exit 0), or the tree gave up (exit 1).
    // Neither promise rejects (an exit is a reason, not an error); should one, exit 1.
    nexq.node.stopped.then(
      () => {
        if (!stopping) resolve(0);
      },
      () => resolve(1),
    );
    nexq.node.exited.then(
      (reason) => {
        if (!stopping && reason !== 'shutdown') resolve(1);
      },
      () => resolve(1),
    );
  });
  const code = await stopped;
  uninstallFaultPolicy();
  await local?.stop();
  return code;
}
