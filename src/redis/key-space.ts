// The key space the Redis keys of src/redis/keys.ts are named in: the namespace's prefix, and in the
// per-queue layout each queue's own hash tag (the two layouts: src/redis/keys.ts's header).
import { KeyLayoutError } from './errors';
import type { KeyLayout } from '../../config/defaults';

export class KeySpace {
  protected readonly prefix: string;
  /** Prefix of the keys that belong to one queue (the node-wide prefix in the shared layout). */
  protected readonly queuePrefix: string;
  readonly perQueue: boolean;

  constructor(
    readonly namespace: string,
    readonly layout: KeyLayout = 'shared',
  ) {
    this.perQueue = layout === 'per-queue';
    if (this.perQueue && (namespace === '' || /[{}]/.test(namespace))) {
      throw new KeyLayoutError(
        `the per-queue key layout needs a namespace without braces (got ${JSON.stringify(namespace)}): each queue's keys carry the queue's own hash tag`,
      );
    }
    this.queuePrefix = namespace === '' ? '' : `${namespace}:`;
    this.prefix = this.perQueue ? `{${namespace}}:` : this.queuePrefix;
  }

  key(name: string): string {
    return this.prefix + name;
  }

  /**
   * Whether this layout can name the keys of a queue called `queue`: any name in the shared
   * layout; in the per-queue one a name that can be a hash tag (non-empty, no braces).
   */
  fits(queue: string): boolean {
    return !this.perQueue || queueFitsTag(queue);
  }

  /**
   * The group of queues whose keys may meet in one script call: every queue in the shared layout
   * (''), each queue alone in the per-queue layout (its name).
   */
  group(queue: string): string {
    return this.perQueue ? queue : '';
  }

  /** A key of `queue`: `<ns>:<name>:<q>`, or `<ns>:<name>:{<q>}` in the per-queue layout. */
  protected ofQueue(name: string, queue: string, suffix = ''): string {
    return `${this.queuePrefix}${name}${this.perQueue ? `{${checkQueue(queue)}}` : queue}${suffix}`;
  }

  /** A key that one queue owns in the per-queue layout and all queues share in the shared layout. */
  protected sharedOrOfQueue(name: string, queue: string): string {
    return this.perQueue ? this.ofQueue(`${name}:`, queue) : this.key(name);
  }
}

/** A queue name that can be a hash tag: non-empty, no braces (a brace would end or move the tag). */
function queueFitsTag(queue: string): boolean {
  return queue !== '' && !/[{}]/.test(queue);
}

function checkQueue(queue: string): string {
  if (!queueFitsTag(queue)) {
    throw new KeyLayoutError(
      `queue name ${JSON.stringify(queue)} cannot be used in the per-queue key layout: it must be non-empty and without braces`,
    );
  }
  return queue;
}

export function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}
