// Validates options once, at start, and says exactly which key is wrong and what it expects.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, UnknownOptionError } from './config-error';
import { defaults, NexqConfig, NexqOptions, QueueSpec } from './defaults';
import type { KeyLayout, PeriodicSpec, WebOptions } from './defaults';
import { CronError } from './cron';
import { cronIn } from './cron-zone';
import { PERIODIC_NAME, periodicId } from './periodic-id';
import { checkRedisTarget } from './redis-options';
import { resolveKeyLayout } from './key-layout';
import { checkClassRateLimits, checkRateLimit, type RateLimit } from './rate-limit';

export { ConfigError };

export interface ResolvedQueue {
  name: string;
  concurrency: number;
  globalConcurrency?: number;
  weight?: number;
  rateLimit?: RateLimit;
  encrypt?: boolean;
  fair?: boolean;
  groupConcurrency?: number;
  groupRateLimit?: RateLimit;
}

export interface ResolvedConfig extends Omit<NexqOptions, 'queues' | 'nodeId' | 'keyLayout'> {
  queues: ResolvedQueue[];
  keyLayout: KeyLayout;
  nodeId: string;
  /** True when the node id was configured, false when generated for this process. */
  fixedNodeId: boolean;
}

/** A node id unique to this process: hostname, pid and a random part. */
export function generateNodeId(): string {
  const host =
    os
      .hostname()
      .replace(/[^\w.-]/g, '_')
      .slice(0, 100) || 'node';
  return `${host}-${process.pid}-${randomBytes(4).toString('hex')}`;
}

const QUEUE_NAME = /^[^\s:]{1,200}$/;
const KNOWN_KEYS = new Set(Object.keys(defaults()));

export function isQueueName(name: unknown): name is string {
  return typeof name === 'string' && QUEUE_NAME.test(name);
}

function integer(config: NexqOptions, key: keyof NexqOptions, min: number): void {
  const value = config[key];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new ConfigError(key, `an integer >= ${min}`, value);
  }
}

// Options come from files, the environment and JavaScript callers: whatever the types say, any
// value can stand where an object is expected, so these checks take unknown.
function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null;
}

function isPlainObject(value: unknown): boolean {
  return isObject(value) && !Array.isArray(value);
}

function oneOf(config: NexqOptions, key: keyof NexqOptions, allowed: string[]): void {
  if (!allowed.includes(config[key] as string)) throw new ConfigError(key, `one of ${allowed.join(', ')}`, config[key]);
}

export function resolveQueue(entry: string | QueueSpec, fallbackConcurrency: number, key: string): ResolvedQueue {
  const spec = typeof entry === 'string' ? { name: entry } : entry;
  if (!isObject(spec) || !isQueueName(spec.name)) {
    throw new ConfigError(key, 'a queue name (no spaces or colons) or { name, concurrency }', entry);
  }
  const concurrency = spec.concurrency ?? fallbackConcurrency;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new ConfigError(`${key}.concurrency`, 'an integer >= 1', concurrency);
  }
  const resolved: ResolvedQueue = { name: spec.name, concurrency };
  if (spec.globalConcurrency !== undefined) {
    if (!Number.isInteger(spec.globalConcurrency) || spec.globalConcurrency < 1)
      throw new ConfigError(`${key}.globalConcurrency`, 'an integer >= 1', spec.globalConcurrency);
    resolved.globalConcurrency = spec.globalConcurrency;
  }
  if (spec.weight !== undefined) {
    if (typeof spec.weight !== 'number' || !Number.isFinite(spec.weight) || spec.weight <= 0)
      throw new ConfigError(`${key}.weight`, 'a number > 0', spec.weight);
    resolved.weight = spec.weight;
  }
  if (spec.rateLimit !== undefined) resolved.rateLimit = checkRateLimit(spec.rateLimit, `${key}.rateLimit`);
  if (spec.encrypt !== undefined) {
    if (typeof spec.encrypt !== 'boolean') throw new ConfigError(`${key}.encrypt`, 'true or false', spec.encrypt);
    if (spec.encrypt) resolved.encrypt = true;
  }
  if (spec.fair !== undefined) {
    if (typeof spec.fair !== 'boolean') throw new ConfigError(`${key}.fair`, 'true or false', spec.fair);
    if (spec.fair) resolved.fair = true;
  }
  if (spec.groupConcurrency !== undefined) {
    if (!Number.isInteger(spec.groupConcurrency) || spec.groupConcurrency < 1)
      throw new ConfigError(`${key}.groupConcurrency`, 'an integer >= 1', spec.groupConcurrency);
    if (!resolved.fair)
      throw new ConfigError(`${key}.groupConcurrency`, 'set only on a queue with fair: true', spec.groupConcurrency);
    resolved.groupConcurrency = spec.groupConcurrency;
  }
  if (spec.groupRateLimit !== undefined) {
    if (!resolved.fair)
      throw new ConfigError(`${key}.groupRateLimit`, 'set only on a queue with fair: true', spec.groupRateLimit);
    resolved.groupRateLimit = checkRateLimit(spec.groupRateLimit, `${key}.groupRateLimit`);
  }
  return resolved;
}

/** Merges `config` over the defaults and checks every key. Throws ConfigError on the first bad one. */
export function resolveConfig(config: NexqConfig = {}): ResolvedConfig {
  for (const key of Object.keys(config)) {
    if (!KNOWN_KEYS.has(key)) throw new UnknownOptionError(key, [...KNOWN_KEYS]);
  }
  const merged: NexqOptions = { ...defaults(), ...stripUndefined(config) };
  if (config.dialect === undefined && merged.namespace === '') merged.dialect = 'sidekiq';

  checkRedisTarget(merged.redis);
  if (typeof merged.namespace !== 'string' || /\s/.test(merged.namespace)) {
    throw new ConfigError('namespace', 'a string without spaces', merged.namespace);
  }
  integer(merged, 'concurrency', 1);
  integer(merged, 'totalConcurrency', 0);
  if (typeof merged.prefetch !== 'number' || !Number.isFinite(merged.prefetch) || merged.prefetch < 0)
    throw new ConfigError('prefetch', "a number >= 0 (a share of each queue's concurrency)", merged.prefetch);
  if (!Array.isArray(merged.queues))
    throw new ConfigError('queues', 'an array of queue names or { name, concurrency }', merged.queues);
  const queues = merged.queues.map((q, i) => resolveQueue(q, merged.concurrency, `queues[${i}]`));
  const names = new Set<string>();
  for (const q of queues) {
    if (names.has(q.name)) throw new ConfigError('queues', 'a list without repeated names', q.name);
    names.add(q.name);
  }
  if (!isPlainObject(merged.classConcurrency)) {
    throw new ConfigError('classConcurrency', 'an object of class name -> limit', merged.classConcurrency);
  }
  for (const [name, limit] of Object.entries(merged.classConcurrency)) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new ConfigError(`classConcurrency.${name}`, 'an integer >= 1', limit);
  }
  merged.classRateLimits = checkClassRateLimits(merged.classRateLimits);
  if (!isPlainObject(merged.jobs)) {
    throw new ConfigError('jobs', 'an object of class name -> module path', merged.jobs);
  }
  for (const [name, file] of Object.entries(merged.jobs)) {
    if (typeof file !== 'string' || file === '') throw new ConfigError(`jobs.${name}`, 'a module path', file);
  }
  if (merged.jobsDir !== undefined && (typeof merged.jobsDir !== 'string' || merged.jobsDir === '')) {
    throw new ConfigError('jobsDir', 'a folder path', merged.jobsDir);
  }
  if (merged.threadSetup !== undefined && (typeof merged.threadSetup !== 'string' || merged.threadSetup === '')) {
    throw new ConfigError('threadSetup', 'a module path', merged.threadSetup);
  }
  if (
    merged.nodeId !== undefined &&
    (typeof merged.nodeId !== 'string' || !/^[^\s:*?[\]]{1,200}$/.test(merged.nodeId))
  ) {
    throw new ConfigError('nodeId', 'a non-empty string without spaces, colons or glob characters', merged.nodeId);
  }
  oneOf(merged, 'mode', ['default', 'enqueuer']);
  oneOf(merged, 'dialect', ['exq', 'sidekiq']);
  oneOf(merged, 'timestamps', ['seconds', 'milliseconds']);
  oneOf(merged, 'logLevel', ['error', 'warn', 'info', 'debug']);
  oneOf(merged, 'logFormat', ['json', 'pretty']);
  integer(merged, 'pollTimeout', 1);
  integer(merged, 'idlePollInterval', 1);
  integer(merged, 'schedulerPollTimeout', 1);
  integer(merged, 'shutdownTimeout', 0);
  integer(merged, 'redisStartTimeout', 0);
  integer(merged, 'maxRetries', 0);
  if (typeof merged.backtrace !== 'boolean' && !(Number.isInteger(merged.backtrace) && merged.backtrace >= 0)) {
    throw new ConfigError('backtrace', 'true, false or a number of lines >= 0', merged.backtrace);
  }
  integer(merged, 'maxPayloadBytes', 0);
  integer(merged, 'deadMaxJobs', 0);
  integer(merged, 'deadTimeoutSeconds', 0);
  integer(merged, 'jobTimeout', 0);
  integer(merged, 'threads', 1);
  // Half of the claims buffer's thread indexes (workers/claims-layout.ts): room for replacements.
  if (merged.threads > 32) throw new ConfigError('threads', 'an integer from 1 to 32', merged.threads);
  integer(merged, 'threadMaxHeapMb', 0);
  integer(merged, 'maxYoungGenerationMb', 0);
  integer(merged, 'threadYoungGenerationMb', 0);
  integer(merged, 'heartbeatInterval', 1);
  integer(merged, 'nodeTimeout', 1);
  integer(merged, 'nodeCheckInterval', 1);
  integer(merged, 'exqNodeTimeout', 0);
  if (merged.nodeTimeout <= merged.heartbeatInterval) {
    throw new ConfigError(
      'nodeTimeout',
      `more seconds than heartbeatInterval (${merged.heartbeatInterval}), or live nodes look dead`,
      merged.nodeTimeout,
    );
  }
  checkPeriodic(merged.periodic);
  checkMetrics(merged.metrics);
  const web = resolveWeb(merged.web);
  checkEncryptionKeys(merged.encryptionKeys);

  return {
    ...merged,
    nodeId: merged.nodeId ?? generateNodeId(),
    fixedNodeId: merged.nodeId !== undefined,
    keyLayout: resolveKeyLayout(merged, [...queues.map((q) => q.name), ...merged.periodic.map((p) => p.queue)]),
    queues,
    jobsDir: merged.jobsDir === undefined ? undefined : path.resolve(merged.jobsDir),
    threadSetup: merged.threadSetup === undefined ? undefined : path.resolve(merged.threadSetup),
    web,
  };
}

/** Base64 of 32 bytes: one key of `encryptionKeys`. */
const ENCRYPTION_KEY = /^[A-Za-z0-9+/]{43}=$/;

/** `encryptionKeys`: base64 32-byte keys, comma-separated. The error names the key by position, never its text. */
function checkEncryptionKeys(keys: unknown): void {
  if (keys === undefined) return;
  if (typeof keys !== 'string' || keys.trim() === '')
    throw new ConfigError('encryptionKeys', 'a comma-separated list of base64 32-byte keys', '<hidden>');
  keys.split(',').forEach((key, i) => {
    if (!ENCRYPTION_KEY.test(key.trim()))
      throw new ConfigError(
        'encryptionKeys',
        `a comma-separated list of base64 32-byte keys (openssl rand -base64 32); key ${i + 1} is not`,
        '<hidden>',
      );
  });
}

/** `metrics`: a boolean, or `{ port, host? }` with a TCP port and a host name or address. */
function checkMetrics(metrics: unknown): void {
  if (typeof metrics === 'boolean') return;
  if (typeof metrics !== 'object' || metrics === null || Array.isArray(metrics))
    throw new ConfigError('metrics', 'true, false or { port, host? }', metrics);
  for (const field of Object.keys(metrics)) {
    if (field !== 'port' && field !== 'host') throw new ConfigError(`metrics.${field}`, 'one of port, host', field);
  }
  const { port, host } = metrics as { port?: unknown; host?: unknown };
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError('metrics.port', 'an integer from 0 to 65535', port);
  if (host !== undefined && (typeof host !== 'string' || !/^[^\s/]{1,253}$/.test(host)))
    throw new ConfigError('metrics.host', 'a host name or IP address', host);
}

const WEB_KEYS = ['port', 'host', 'username', 'password'];
export const DEFAULT_WEB_HOST = '127.0.0.1';

/** `web`: a port, an optional host (127.0.0.1 by default), basic auth credentials both or neither. */
function resolveWeb(web: unknown): WebOptions | undefined {
  if (web === undefined) return undefined;
  if (typeof web !== 'object' || web === null || Array.isArray(web))
    throw new ConfigError('web', 'an object { port, host?, username?, password? }', web);
  for (const field of Object.keys(web)) {
    if (!WEB_KEYS.includes(field)) throw new ConfigError(`web.${field}`, `one of ${WEB_KEYS.join(', ')}`, field);
  }
  const { port, host = DEFAULT_WEB_HOST, username, password } = web as WebOptions;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError('web.port', 'an integer from 0 to 65535', port);
  if (typeof host !== 'string' || host === '')
    throw new ConfigError('web.host', 'an address to bind, e.g. 127.0.0.1', host);
  if (username !== undefined && (typeof username !== 'string' || username === '' || username.includes(':'))) {
    throw new ConfigError('web.username', 'a non-empty string without ":"', username);
  }
  if (password !== undefined && (typeof password !== 'string' || password === ''))
    throw new ConfigError('web.password', 'a non-empty string', '<hidden>');
  if ((username === undefined) !== (password === undefined)) {
    throw new ConfigError(
      username === undefined ? 'web.username' : 'web.password',
      'given together with the other (basic auth needs both)',
      '<missing>',
    );
  }
  return { port, host, ...(username !== undefined ? { username, password } : {}) };
}

const PERIODIC_KEYS = ['cron', 'queue', 'class', 'args', 'name', 'tz'];

/** One schedule (a `periodic` entry, or one set at run time): cron, queue, class, JSON args, name, tz. */
export function checkPeriodicEntry(entry: unknown, key: string): PeriodicSpec {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
    throw new ConfigError(key, 'an object { cron, queue, class, args?, name?, tz? }', entry);
  for (const field of Object.keys(entry)) {
    if (!PERIODIC_KEYS.includes(field))
      throw new ConfigError(`${key}.${field}`, `one of ${PERIODIC_KEYS.join(', ')}`, field);
  }
  const spec = entry as PeriodicSpec;
  if (spec.tz !== undefined && typeof spec.tz !== 'string')
    throw new ConfigError(`${key}.tz`, 'an IANA time zone name', spec.tz);
  try {
    cronIn(spec.cron, spec.tz);
  } catch (err) {
    if (!(err instanceof CronError)) throw err;
    const field = err.message.startsWith('unknown time zone') ? 'tz' : 'cron';
    throw new ConfigError(
      `${key}.${field}`,
      field === 'tz' ? 'an IANA time zone name' : `a cron expression (${err.message})`,
      spec[field],
    );
  }
  if (!isQueueName(spec.queue)) throw new ConfigError(`${key}.queue`, 'a queue name (no spaces or colons)', spec.queue);
  if (typeof spec.class !== 'string' || spec.class === '')
    throw new ConfigError(`${key}.class`, 'a non-empty class name', spec.class);
  if (spec.args !== undefined) {
    if (!Array.isArray(spec.args)) throw new ConfigError(`${key}.args`, 'an array', spec.args);
    try {
      JSON.stringify(spec.args);
    } catch (err) {
      throw new ConfigError(`${key}.args`, `an array JSON can hold (${(err as Error).message})`, '<unserializable>');
    }
  }
  if (spec.name !== undefined && (typeof spec.name !== 'string' || !PERIODIC_NAME.test(spec.name))) {
    throw new ConfigError(`${key}.name`, 'up to 100 letters, digits, ".", "_" or "-"', spec.name);
  }
  return spec;
}

/** Each `periodic` entry: a valid schedule with an id of its own. */
function checkPeriodic(periodic: unknown): void {
  if (!Array.isArray(periodic))
    throw new ConfigError('periodic', 'an array of { cron, queue, class, args?, name?, tz? }', periodic);
  const ids = new Map<string, number>();
  periodic.forEach((entry: unknown, i) => {
    const key = `periodic[${i}]`;
    const spec = checkPeriodicEntry(entry, key);
    const id = periodicId(spec);
    const first = ids.get(id);
    if (first !== undefined) {
      throw new ConfigError(
        spec.name === undefined ? key : `${key}.name`,
        `distinct from periodic[${first}] (entries with one id share one schedule; give them different names)`,
        spec.name ?? entry,
      );
    }
    ids.set(id, i);
  });
}

function stripUndefined<T extends object>(object: T): Partial<T> {
  return Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined)) as Partial<T>;
}
