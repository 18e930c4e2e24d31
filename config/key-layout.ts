// Which key layout a node uses (src/redis/keys.ts), and the options that must agree with it.
import { ConfigError } from './config-error';
import type { NexqOptions } from './defaults';
import { hashTagOf, RedisTarget } from './redis-options';
import type { KeyLayout } from './defaults';

const LAYOUTS = ['auto', 'shared', 'per-queue'];

function isCluster(redis: RedisTarget): boolean {
  return typeof redis !== 'string' && redis.cluster !== undefined;
}

/**
 * 'auto' is per-queue on a Redis Cluster with a namespace without a hash tag, shared otherwise.
 * Throws ConfigError where the options cannot work with the layout.
 */
export function resolveKeyLayout(options: NexqOptions, queueNames: string[]): KeyLayout {
  const { keyLayout, namespace, redis } = options;
  if (!LAYOUTS.includes(keyLayout)) throw new ConfigError('keyLayout', `one of ${LAYOUTS.join(', ')}`, keyLayout);
  const tagged = hashTagOf(namespace) !== undefined;
  const layout: KeyLayout = keyLayout === 'auto' ? (isCluster(redis) && !tagged ? 'per-queue' : 'shared') : keyLayout;
  if (layout === 'shared') {
    if (isCluster(redis) && !tagged) {
      throw new ConfigError(
        'namespace',
        'a namespace with a hash tag, like "{exq}", with redis.cluster and keyLayout "shared": every key must hash to one slot; ' +
          "or leave keyLayout at 'auto' for the per-queue layout (Sidekiq's '' namespace fits neither)",
        namespace,
      );
    }
    return layout;
  }
  if (namespace === '' || /[{}]/.test(namespace)) {
    throw new ConfigError(
      'namespace',
      "a non-empty namespace without braces with the per-queue key layout (each queue's keys carry the queue's own hash tag)",
      namespace,
    );
  }
  if (Object.keys(options.classConcurrency).length > 0) {
    throw new ConfigError(
      'classConcurrency',
      'no class limits with the per-queue key layout (a limit across queues needs them in one slot)',
      options.classConcurrency,
    );
  }
  if (options.nodeId !== undefined && /[{}]/.test(options.nodeId)) {
    throw new ConfigError(
      'nodeId',
      'a node id without braces with the per-queue key layout (a brace would move the hash tag of its backup lists)',
      options.nodeId,
    );
  }
  const braced = queueNames.find((name) => /[{}]/.test(name));
  if (braced !== undefined)
    throw new ConfigError(
      'queues',
      'queue names without braces with the per-queue key layout (a queue name is its hash tag)',
      braced,
    );
  return layout;
}
