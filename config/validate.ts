// Validates options once, at start, and says exactly which key is wrong and what it expects.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, UnknownOptionError } from './config-error';
import { defaults, NexqConfig, NexqOptions } from './defaults';
import type { KeyLayout } from './defaults';
import { checkRedisTarget } from './redis-options';
import { resolveKeyLayout } from './key-layout';
import { checkClassRateLimits } from './rate-limit';
import { resolveQueue, type ResolvedQueue } from './queue-options';
import { checkPeriodic } from './periodic-options';
import { checkMetrics, resolveWeb } from './http-options';

export { ConfigError };

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

const KNOWN_KEYS = new Set(Object.keys(defaults()));

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

function stripUndefined<T extends object>(object: T): Partial<T> {
  return Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined)) as Partial<T>;
}
