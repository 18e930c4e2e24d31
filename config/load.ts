// Gathers options from a config file (JSON) and the environment; flags are laid over by the CLI.
// Precedence, weakest first: defaults < file < environment < command-line flags.
import { readFileSync } from 'node:fs';
import type { NexqConfig, QueueSpec } from './defaults';
import { ConfigError } from './config-error';
import type { RedisTarget } from './redis-options';
import { layRedisParts, REDIS_ENV } from './redis-sources';

export function readConfigFile(file: string): NexqConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError('--config', 'a readable JSON file', `${file} (${(err as NodeJS.ErrnoException).code})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ConfigError('--config', 'valid JSON', `${file}: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError('--config', 'a JSON object of options', file);
  }
  return value as NexqConfig;
}

/** The options before the command line's flags: defaults < file < environment. */
export function configFromFileAndEnv(file: string | undefined, env: NodeJS.ProcessEnv = process.env): NexqConfig {
  const fromFile = file ? readConfigFile(file) : {};
  return { ...fromFile, ...configFromEnv(env, fromFile) };
}

/** "default:10,mail:5,low" -> queue specs (a queue without :N takes the default concurrency). */
export function parseQueueList(text: string, key: string): QueueSpec[] {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const match = /^([^:\s]+)(?::(\d+))?$/.exec(part);
      if (!match) throw new ConfigError(key, 'a list like default:10,mail:5', text);
      return match[2] === undefined ? { name: match[1] } : { name: match[1], concurrency: Number(match[2]) };
    });
}

function integerFrom(value: string, key: string): number {
  if (!/^\d+$/.test(value)) throw new ConfigError(key, 'a whole number', value);
  return Number(value);
}

const INTEGER_VARS: Array<[string, keyof NexqConfig]> = [
  ['NEXQ_CONCURRENCY', 'concurrency'],
  ['NEXQ_POLL_TIMEOUT', 'pollTimeout'],
  ['NEXQ_SCHEDULER_POLL_TIMEOUT', 'schedulerPollTimeout'],
  ['NEXQ_SHUTDOWN_TIMEOUT', 'shutdownTimeout'],
  ['NEXQ_MAX_RETRIES', 'maxRetries'],
  ['NEXQ_JOB_TIMEOUT', 'jobTimeout'],
  ['NEXQ_THREADS', 'threads'],
];

const STRING_VARS: Array<[string, keyof NexqConfig]> = [
  ['REDIS_URL', 'redis'],
  ['NEXQ_REDIS_URL', 'redis'],
  ['NEXQ_NAMESPACE', 'namespace'],
  ['NEXQ_JOBS_DIR', 'jobsDir'],
  ['NEXQ_NODE_ID', 'nodeId'],
  ['NEXQ_MODE', 'mode'],
  ['NEXQ_DIALECT', 'dialect'],
  ['NEXQ_LOG_LEVEL', 'logLevel'],
  ['NEXQ_LOG_FORMAT', 'logFormat'],
];

/**
 * Options named by REDIS_URL and NEXQ_* variables. `under`: the weaker options (the config file)
 * whose `redis` the NEXQ_REDIS_* variables complete rather than replace.
 */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env, under: NexqConfig = {}): NexqConfig {
  const config: Record<string, unknown> = {};
  for (const [name, key] of STRING_VARS) if (env[name] !== undefined) config[key] = env[name];
  for (const [name, key] of INTEGER_VARS) if (env[name] !== undefined) config[key] = integerFrom(env[name]!, name);
  if (env.NEXQ_QUEUES !== undefined) config.queues = parseQueueList(env.NEXQ_QUEUES, 'NEXQ_QUEUES');
  // Sentinel or cluster variables take the place of REDIS_URL; passwords and WAIT lie over either.
  const redis = layRedisParts((config.redis ?? under.redis) as RedisTarget | undefined, {
    sentinels: env[REDIS_ENV.sentinels],
    sentinelName: env[REDIS_ENV.sentinelName],
    cluster: env[REDIS_ENV.cluster],
    waitReplicas: env[REDIS_ENV.waitReplicas],
    password: env[REDIS_ENV.password],
    sentinelPassword: env[REDIS_ENV.sentinelPassword],
  }, REDIS_ENV);
  if (redis !== undefined) config.redis = redis;
  return config as NexqConfig;
}
