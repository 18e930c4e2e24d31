// Gathers options from a config file (JSON or YAML) and the environment; flags are laid over by
// the CLI. Precedence, weakest first: defaults < file < environment < command-line flags. Each
// layer remembers which options it set, so a bad value is reported with where it came from.
import { closestName } from './closest-name';
import { ConfigError } from './config-error';
import { defaults, NexqConfig, NexqOptions, QueueSpec, WebOptions } from './defaults';
import { layRedisParts, REDIS_ENV } from './redis-sources';
import { resolveConfig } from './validate';
import { readConfigFile } from './config-file';

/** Option name -> where its value came from: the file, an environment variable or a flag. */
export type ConfigSources = Record<string, string>;

export interface LayeredConfig {
  config: NexqConfig;
  sources: ConfigSources;
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
      const [, name, concurrency] = match;
      return concurrency ? { name, concurrency: Number(concurrency) } : { name };
    });
}

function integerFrom(value: string, key: string): number {
  if (!/^\d+$/.test(value)) throw new ConfigError(key, 'a whole number', value);
  return Number(value);
}

function jsonFrom(value: string, key: string, expected: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    throw new ConfigError(key, `${expected} in JSON`, value);
  }
}

/** NEXQ_ and the option's name in upper snake case: shutdownTimeout -> NEXQ_SHUTDOWN_TIMEOUT. */
export function envName(option: string): string {
  return `NEXQ_${option.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;
}

/** NEXQ_ variables of nexq's own tests, benchmarks and chaos runs, which no node reads. */
const TOOLING_ENV = /^NEXQ_(TEST|BENCH|CHAOS|SOAK)_|^NEXQ_CHROMIUM$/;

/**
 * The environment variables that set each option, as layerFromEnv reads them (docs/configuration.md
 * lists them): NEXQ_ and the option's name, except `redis` (REDIS_URL and the NEXQ_REDIS_* parts),
 * `metrics` (also its port and host) and `web` (its fields).
 */
export function envVariables(): Record<keyof NexqOptions, string[]> {
  const names = Object.fromEntries(Object.keys(defaults()).map((key) => [key, [envName(key)]]));
  return {
    ...names,
    redis: ['REDIS_URL', ...Object.values(REDIS_ENV)],
    metrics: ['NEXQ_METRICS', 'NEXQ_METRICS_PORT', 'NEXQ_METRICS_HOST'],
    web: WEB_VARS,
  } as Record<keyof NexqOptions, string[]>;
}

/** Every NEXQ_ variable layerFromEnv reads. */
function knownEnvNames(): string[] {
  return Object.values(envVariables())
    .flat()
    .filter((name) => name.startsWith('NEXQ_'));
}

/** One warning per NEXQ_ variable no option reads: a misspelt one would be ignored silently. */
export function unknownEnvWarnings(env: NodeJS.ProcessEnv = process.env): string[] {
  const known = knownEnvNames();
  const unknown = Object.keys(env).filter(
    (name) => name.startsWith('NEXQ_') && !known.includes(name) && !TOOLING_ENV.test(name),
  );
  return unknown.sort().map((name) => {
    const guess = closestName(
      name.slice('NEXQ_'.length),
      known.map((k) => k.slice('NEXQ_'.length)),
    );
    return `${name} is not a nexq setting and is ignored${guess ? `; did you mean NEXQ_${guess}?` : ''}`;
  });
}

/** Options read by a rule of their own rather than by their default's type. */
const SPECIAL: Array<keyof NexqOptions> = [
  'redis',
  'queues',
  'jobs',
  'periodic',
  'metrics',
  'web',
  'classConcurrency',
  'classRateLimits',
];

/** Options named by REDIS_URL and NEXQ_* variables, with the variable that set each. */
export function layerFromEnv(env: NodeJS.ProcessEnv = process.env, under: NexqConfig = {}): LayeredConfig {
  const config: Record<string, unknown> = {};
  const sources: ConfigSources = {};
  const set = (key: string, value: unknown, name: string) => {
    config[key] = value;
    sources[key] = name;
  };
  for (const [key, fallback] of Object.entries(defaults())) {
    const name = envName(key);
    const value = env[name];
    if (SPECIAL.includes(key as keyof NexqOptions) || value === undefined) continue;
    set(key, typeof fallback === 'number' ? integerFrom(value, name) : value, name);
  }
  for (const name of ['REDIS_URL', 'NEXQ_REDIS_URL']) if (env[name] !== undefined) set('redis', env[name], name);
  // Sentinel or cluster variables take the place of REDIS_URL; passwords and WAIT lie over either,
  // completing the file's `redis` (`under`) rather than replacing it.
  const redisVars = Object.values(REDIS_ENV).filter((name) => name !== REDIS_ENV.url && env[name] !== undefined);
  if (redisVars.length > 0) {
    const redis = layRedisParts(
      config.redis ?? under.redis,
      {
        sentinels: env[REDIS_ENV.sentinels],
        sentinelName: env[REDIS_ENV.sentinelName],
        cluster: env[REDIS_ENV.cluster],
        waitReplicas: env[REDIS_ENV.waitReplicas],
        password: env[REDIS_ENV.password],
        sentinelPassword: env[REDIS_ENV.sentinelPassword],
      },
      REDIS_ENV,
    );
    if (redis !== undefined) set('redis', redis, redisVars.join(' and '));
  }
  if (env.NEXQ_QUEUES !== undefined) set('queues', parseQueueList(env.NEXQ_QUEUES, 'NEXQ_QUEUES'), 'NEXQ_QUEUES');
  if (env.NEXQ_JOBS !== undefined)
    set('jobs', jsonFrom(env.NEXQ_JOBS, 'NEXQ_JOBS', 'an object of class name -> module path'), 'NEXQ_JOBS');
  if (env.NEXQ_PERIODIC !== undefined)
    set(
      'periodic',
      jsonFrom(env.NEXQ_PERIODIC, 'NEXQ_PERIODIC', 'an array of { cron, queue, class, args?, name? }'),
      'NEXQ_PERIODIC',
    );
  if (env.NEXQ_CLASS_CONCURRENCY !== undefined) {
    set(
      'classConcurrency',
      jsonFrom(env.NEXQ_CLASS_CONCURRENCY, 'NEXQ_CLASS_CONCURRENCY', 'an object of class name -> limit'),
      'NEXQ_CLASS_CONCURRENCY',
    );
  }
  if (env.NEXQ_CLASS_RATE_LIMITS !== undefined) {
    set(
      'classRateLimits',
      jsonFrom(env.NEXQ_CLASS_RATE_LIMITS, 'NEXQ_CLASS_RATE_LIMITS', 'an object of class name -> { limit, per }'),
      'NEXQ_CLASS_RATE_LIMITS',
    );
  }
  const metrics = metricsFromEnv(env);
  if (metrics) set('metrics', metrics.value, metrics.name);
  const web = webFromEnv(env);
  if (web) set('web', web, WEB_VARS.filter((name) => env[name] !== undefined).join(' and '));
  return { config: config, sources };
}

/** NEXQ_METRICS=true|false, or NEXQ_METRICS_PORT (and NEXQ_METRICS_HOST) for the HTTP endpoint. */
function metricsFromEnv(env: NodeJS.ProcessEnv): { value: NexqOptions['metrics']; name: string } | undefined {
  const { NEXQ_METRICS: on, NEXQ_METRICS_PORT: port, NEXQ_METRICS_HOST: host } = env;
  if (port !== undefined) {
    const value = { port: integerFrom(port, 'NEXQ_METRICS_PORT'), ...(host !== undefined ? { host } : {}) };
    return { value, name: host === undefined ? 'NEXQ_METRICS_PORT' : 'NEXQ_METRICS_PORT and NEXQ_METRICS_HOST' };
  }
  if (host !== undefined) throw new ConfigError('NEXQ_METRICS_HOST', 'set together with NEXQ_METRICS_PORT', host);
  if (on === undefined) return undefined;
  if (on !== 'true' && on !== 'false') throw new ConfigError('NEXQ_METRICS', 'true or false', on);
  return { value: on === 'true', name: 'NEXQ_METRICS' };
}

/** `over` laid over `base`, key by key; `web` merges field by field (a file's port, the environment's password). */
export function layerConfig(base: NexqConfig, over: NexqConfig): NexqConfig {
  const merged = { ...base, ...over };
  if (base.web && over.web) merged.web = { ...base.web, ...over.web };
  return merged;
}

/** Options named by REDIS_URL and NEXQ_* variables. */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env, under: NexqConfig = {}): NexqConfig {
  return layerFromEnv(env, under).config;
}

/** The file's options (when there is one) with the environment's laid over them. */
export function fileAndEnv(file: string | undefined, env: NodeJS.ProcessEnv = process.env): LayeredConfig {
  const fromFile = file ? readConfigFile(file) : {};
  const fromEnv = layerFromEnv(env, fromFile);
  const sources: ConfigSources = file ? Object.fromEntries(Object.keys(fromFile).map((key) => [key, file])) : {};
  return { config: layerConfig(fromFile, fromEnv.config), sources: { ...sources, ...fromEnv.sources } };
}

/** What `sources` says of an option `Nexq.start` was given. */
export const API_SOURCE = 'Nexq.start options';

/**
 * `Nexq.start`'s options with the environment laid under them, as `nexq start` reads it (minus the
 * file and the flags): defaults < environment < the options given, option by option (`web` field
 * by field). The environment's sources name its variables; the options given are API_SOURCE.
 */
export function optionsOverEnv(options: NexqConfig, env: NodeJS.ProcessEnv = process.env): LayeredConfig {
  const fromEnv = layerFromEnv(env);
  // An option given as undefined is not given: the environment's value stays.
  const given = Object.fromEntries(
    Object.entries(options).filter(([, value]) => (value as unknown) !== undefined),
  ) as NexqConfig;
  const sources: ConfigSources = { ...fromEnv.sources };
  for (const key of Object.keys(given)) if (key !== 'web' || !fromEnv.config.web) sources[key] = API_SOURCE;
  return { config: layerConfig(fromEnv.config, given), sources };
}

/** Where the `redis` option came from, for the node's log: a variable, a file, a flag, the options, or the default. */
export function redisSource(sources: ConfigSources): string {
  return sources.redis ? `from ${sources.redis}` : 'the default: no redis option, REDIS_URL or NEXQ_REDIS_* set';
}

/** Sets an option from a command-line flag, remembering the flag. */
export function setFromFlag(layers: LayeredConfig, key: keyof NexqOptions, value: unknown, flag: string): void {
  if (value === undefined) return;
  (layers.config as Record<string, unknown>)[key] = value;
  layers.sources[key] = flag;
}

/**
 * Checks the merged options at start, as the node will; a bad one throws one ConfigError that names
 * the option, where its value came from (file, variable or flag) and what it expects.
 */
export function validateLayers({ config, sources }: LayeredConfig): void {
  try {
    resolveConfig(config);
  } catch (err) {
    throw err instanceof ConfigError ? namingSource(err, sources) : err;
  }
}

/** The error, saying which file, variable or flag set its option (when the layers know). */
export function namingSource(err: ConfigError, sources: ConfigSources): ConfigError {
  const source = sources[err.key.split(/[.[]/)[0]];
  return source && source !== err.key && !err.source ? err.from(source) : err;
}

const WEB_VARS = ['NEXQ_WEB_PORT', 'NEXQ_WEB_HOST', 'NEXQ_WEB_USERNAME', 'NEXQ_WEB_PASSWORD'];

/**
 * The dashboard from NEXQ_WEB_PORT (which turns it on), NEXQ_WEB_HOST, NEXQ_WEB_USERNAME and
 * NEXQ_WEB_PASSWORD; undefined when none is set. Validation (config/http-options.ts) names the
 * variable's key.
 */
function webFromEnv(env: NodeJS.ProcessEnv): Partial<WebOptions> | undefined {
  const web: Partial<WebOptions> = {};
  if (env.NEXQ_WEB_PORT !== undefined) web.port = integerFrom(env.NEXQ_WEB_PORT, 'NEXQ_WEB_PORT');
  if (env.NEXQ_WEB_HOST !== undefined) web.host = env.NEXQ_WEB_HOST;
  if (env.NEXQ_WEB_USERNAME !== undefined) web.username = env.NEXQ_WEB_USERNAME;
  if (env.NEXQ_WEB_PASSWORD !== undefined) web.password = env.NEXQ_WEB_PASSWORD;
  return Object.keys(web).length > 0 ? web : undefined;
}
