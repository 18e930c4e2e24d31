// The names a per-job options object may hold. A misspelt option (`retries: 3`) would otherwise be
// dropped without a word and the job would run with the default; it is refused, naming the option
// and, when one is close, the option meant.
import { closestName } from '../../config/closest-name';

/** Every per-job option (JobOptions); `backtrace` is Sidekiq's, kept in the failure. */
export const JOB_OPTION_NAMES: readonly string[] = [
  'retry',
  'jid',
  'delay',
  'ttl',
  'maxlen',
  'atMostOnce',
  'unique',
  'backtrace',
  'keepResult',
  'encrypt',
  'group',
];
export const UNIQUE_OPTION_NAMES: readonly string[] = ['for', 'until', 'key'];

/**
 * The first key of `options` not in `known`, as a one-line reason; undefined when all are known.
 * A key set to `undefined` is let through, as the known options are (`{ ...defaults, ttl: undefined }`).
 */
export function unknownOption(options: object, known: readonly string[], prefix = ''): string | undefined {
  for (const key in options) {
    if (!Object.prototype.hasOwnProperty.call(options, key) || known.includes(key)) continue;
    if ((options as Record<string, unknown>)[key] === undefined) continue;
    const close = closestName(key, known);
    return `unknown job option \`${prefix}${key}\`${close ? ` (did you mean \`${prefix}${close}\`?)` : ''}; the options are ${known.join(', ')}`;
  }
  return undefined;
}
