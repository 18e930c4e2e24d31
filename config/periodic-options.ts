// The `periodic` option's entries (and a schedule set at run time): cron, queue, class, JSON args,
// name and time zone, checked; each entry's id (config/periodic-id.ts) distinct from the others'.
import { ConfigError } from './config-error';
import type { PeriodicSpec } from './defaults';
import { CronError } from './cron';
import { cronIn } from './cron-zone';
import { PERIODIC_NAME, periodicId } from './periodic-id';
import { isQueueName } from './queue-options';

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
export function checkPeriodic(periodic: unknown): void {
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
