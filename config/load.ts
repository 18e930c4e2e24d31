// Gathers options from a config file (JSON) and the environment; flags are laid over by the CLI.
// Precedence, weakest first: defaults < file < environment < command-line flags.
import { readFileSync } from 'node:fs';
import type { NexqConfig, QueueSpec, WebOptions } from './defaults';
import { ConfigError } from './validate';

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

/** `over` laid over `base`, key by key; `web` merges field by field (a file's port, the environment's password). */
export function layerConfig(base: NexqConfig, over: NexqConfig): NexqConfig {
  const merged = { ...base, ...over };
  if (base.web && over.web) merged.web = { ...base.web, ...over.web };
  return merged;
}

/** Options named by REDIS_URL and NEXQ_* variables. */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): NexqConfig {
  const config: Record<string, unknown> = {};
  for (const [name, key] of STRING_VARS) if (env[name] !== undefined) config[key] = env[name];
  for (const [name, key] of INTEGER_VARS) if (env[name] !== undefined) config[key] = integerFrom(env[name]!, name);
  if (env.NEXQ_QUEUES !== undefined) config.queues = parseQueueList(env.NEXQ_QUEUES, 'NEXQ_QUEUES');
  const web = webFromEnv(env);
  if (web) config.web = web;
  return config as NexqConfig;
}

/**
 * The dashboard from NEXQ_WEB_PORT (which turns it on), NEXQ_WEB_HOST, NEXQ_WEB_USERNAME and
 * NEXQ_WEB_PASSWORD; undefined when none is set. Validation (config/validate.ts) names the variable's key.
 */
function webFromEnv(env: NodeJS.ProcessEnv): Partial<WebOptions> | undefined {
  const web: Partial<WebOptions> = {};
  if (env.NEXQ_WEB_PORT !== undefined) web.port = integerFrom(env.NEXQ_WEB_PORT, 'NEXQ_WEB_PORT');
  if (env.NEXQ_WEB_HOST !== undefined) web.host = env.NEXQ_WEB_HOST;
  if (env.NEXQ_WEB_USERNAME !== undefined) web.username = env.NEXQ_WEB_USERNAME;
  if (env.NEXQ_WEB_PASSWORD !== undefined) web.password = env.NEXQ_WEB_PASSWORD;
  return Object.keys(web).length > 0 ? web : undefined;
}
