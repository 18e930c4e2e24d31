// Validates options once, at start, and says exactly which key is wrong and what it expects.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { defaults, NexqConfig, NexqOptions, QueueSpec } from './defaults';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly key: string, expected: string, got: unknown) {
    super(`invalid config: ${key} must be ${expected} (got ${show(got)})`);
  }
}

function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

export interface ResolvedQueue {
  name: string;
  concurrency: number;
}

export interface ResolvedConfig extends Omit<NexqOptions, 'queues' | 'nodeId'> {
  queues: ResolvedQueue[];
  nodeId: string;
  /** True when the node id was configured, false when generated for this process. */
  fixedNodeId: boolean;
}

/** A node id unique to this process: hostname, pid and a random part. */
export function generateNodeId(): string {
  const host = os.hostname().replace(/[^\w.-]/g, '_').slice(0, 100) || 'node';
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

function oneOf(config: NexqOptions, key: keyof NexqOptions, allowed: string[]): void {
  if (!allowed.includes(config[key] as string)) throw new ConfigError(key, `one of ${allowed.join(', ')}`, config[key]);
}

export function resolveQueue(entry: string | QueueSpec, fallbackConcurrency: number, key: string): ResolvedQueue {
  const spec = typeof entry === 'string' ? { name: entry } : entry;
  if (typeof spec !== 'object' || spec === null || !isQueueName(spec.name)) {
    throw new ConfigError(key, 'a queue name (no spaces or colons) or { name, concurrency }', entry);
  }
  const concurrency = spec.concurrency ?? fallbackConcurrency;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new ConfigError(`${key}.concurrency`, 'an integer >= 1', concurrency);
  }
  return { name: spec.name, concurrency };
}

/** Merges `config` over the defaults and checks every key. Throws ConfigError on the first bad one. */
export function resolveConfig(config: NexqConfig = {}): ResolvedConfig {
  for (const key of Object.keys(config)) {
    if (!KNOWN_KEYS.has(key)) throw new ConfigError(key, `a known option (${[...KNOWN_KEYS].join(', ')})`, key);
  }
  const merged: NexqOptions = { ...defaults(), ...stripUndefined(config) };
  if (config.dialect === undefined && merged.namespace === '') merged.dialect = 'sidekiq';

  if (typeof merged.redis !== 'string' && (typeof merged.redis !== 'object' || merged.redis === null)) {
    throw new ConfigError('redis', 'a redis:// or rediss:// URL or ioredis options', '<hidden>');
  }
  if (typeof merged.redis === 'string' && !/^rediss?:\/\//.test(merged.redis)) {
    throw new ConfigError('redis', 'a URL starting with redis:// or rediss://', '<hidden>');
  }
  if (typeof merged.namespace !== 'string' || /\s/.test(merged.namespace)) {
    throw new ConfigError('namespace', 'a string without spaces', merged.namespace);
  }
  integer(merged, 'concurrency', 1);
  if (!Array.isArray(merged.queues)) throw new ConfigError('queues', 'an array of queue names or { name, concurrency }', merged.queues);
  const queues = merged.queues.map((q, i) => resolveQueue(q, merged.concurrency, `queues[${i}]`));
  const names = new Set<string>();
  for (const q of queues) {
    if (names.has(q.name)) throw new ConfigError('queues', 'a list without repeated names', q.name);
    names.add(q.name);
  }
  if (typeof merged.jobs !== 'object' || merged.jobs === null || Array.isArray(merged.jobs)) {
    throw new ConfigError('jobs', 'an object of class name -> module path', merged.jobs);
  }
  for (const [name, file] of Object.entries(merged.jobs)) {
    if (typeof file !== 'string' || file === '') throw new ConfigError(`jobs.${name}`, 'a module path', file);
  }
  if (merged.jobsDir !== undefined && (typeof merged.jobsDir !== 'string' || merged.jobsDir === '')) {
    throw new ConfigError('jobsDir', 'a folder path', merged.jobsDir);
  }
  if (merged.nodeId !== undefined && (typeof merged.nodeId !== 'string' || !/^[^\s:*?[\]]{1,200}$/.test(merged.nodeId))) {
    throw new ConfigError('nodeId', 'a non-empty string without spaces, colons or glob characters', merged.nodeId);
  }
  oneOf(merged, 'mode', ['default', 'enqueuer']);
  oneOf(merged, 'dialect', ['exq', 'sidekiq']);
  oneOf(merged, 'timestamps', ['seconds', 'milliseconds']);
  oneOf(merged, 'logLevel', ['error', 'warn', 'info', 'debug']);
  oneOf(merged, 'logFormat', ['json', 'pretty']);
  integer(merged, 'pollTimeout', 1);
  integer(merged, 'schedulerPollTimeout', 1);
  integer(merged, 'shutdownTimeout', 0);
  integer(merged, 'maxRetries', 0);
  integer(merged, 'deadMaxJobs', 0);
  integer(merged, 'deadTimeoutSeconds', 0);
  integer(merged, 'jobTimeout', 0);
  integer(merged, 'threads', 1);
  integer(merged, 'threadMaxHeapMb', 0);
  integer(merged, 'heartbeatInterval', 1);
  integer(merged, 'nodeTimeout', 1);
  integer(merged, 'nodeCheckInterval', 1);
  if (merged.nodeTimeout <= merged.heartbeatInterval) {
    throw new ConfigError('nodeTimeout', `more seconds than heartbeatInterval (${merged.heartbeatInterval}), or live nodes look dead`, merged.nodeTimeout);
  }

  return {
    ...merged,
    nodeId: merged.nodeId ?? generateNodeId(),
    fixedNodeId: merged.nodeId !== undefined,
    queues,
    jobsDir: merged.jobsDir === undefined ? undefined : path.resolve(merged.jobsDir),
  };
}

function stripUndefined<T extends object>(object: T): Partial<T> {
  return Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined)) as Partial<T>;
}
