// Heartbeat: this node's entry in Redis' process list, in Sidekiq's format.
//
// Responsibilities:
//  1. Every `heartbeatInterval` seconds write the process entry (info, busy, beat, quiet) with a
//     60 s expiry, and the hash of running jobs, so dashboards and Sidekiq's ProcessSet see it.
//  2. On stop, remove the entry at once instead of waiting for it to expire.
import os from 'node:os';
import { Actor } from '../actor';
import type { NodeContext } from '../node-context';
import { ActorNames } from '../node-context';
import type { Stats } from './stats';

/** Sidekiq's expiry of a process entry: a node that stops beating disappears within a minute. */
export const PROCESS_TTL_SECONDS = 60;

type Info = { type: 'beat' };

export class Heartbeat extends Actor<never, never, Info> {
  private timer?: NodeJS.Timeout;

  constructor(private readonly ctx: NodeContext) {
    super({ name: ActorNames.heartbeat, registry: ctx.registry });
  }

  protected override async init(): Promise<void> {
    this.send({ type: 'beat' });
  }

  protected override async handleInfo(msg: Info): Promise<void> {
    if (msg.type !== 'beat') return;
    try {
      await this.beat();
    } catch (err) {
      this.ctx.logger.warn(`heartbeat failed: ${(err as Error).message}`, { actor: this.name });
    }
    this.timer = this.sendAfter({ type: 'beat' }, this.ctx.config.heartbeatInterval * 1000);
  }

  protected override async terminate(): Promise<void> {
    this.cancelTimer(this.timer);
    const { keys, identity, redis } = this.ctx;
    await redis
      .multi()
      .srem(keys.processes, identity)
      .del(keys.process(identity), keys.processWorkers(identity))
      .exec()
      .catch((err) => this.ctx.logger.warn(`process entry not removed: ${err.message}`, { actor: this.name }));
  }

  info(): Record<string, unknown> {
    const { config, identity, startedAt } = this.ctx;
    return {
      hostname: os.hostname(),
      started_at: startedAt,
      pid: process.pid,
      tag: '',
      concurrency: config.queues.reduce((sum, q) => sum + q.concurrency, 0),
      queues: config.queues.map((q) => q.name),
      labels: ['nexq'],
      identity,
      node_id: config.nodeId,
    };
  }

  async beat(): Promise<void> {
    const { keys, identity, redis } = this.ctx;
    const running = this.ctx.registry.whereis<Stats>(ActorNames.stats)?.running ?? new Map();
    const workersKey = keys.processWorkers(identity);
    const tx = redis
      .multi()
      .sadd(keys.processes, identity)
      .hset(keys.process(identity), {
        info: JSON.stringify(this.info()),
        busy: String(running.size),
        beat: String(Date.now() / 1000),
        quiet: 'false',
      })
      .expire(keys.process(identity), PROCESS_TTL_SECONDS)
      .del(workersKey);
    if (running.size > 0) {
      const fields: Record<string, string> = {};
      for (const [jid, job] of running) {
        fields[jid] = `{"queue":${JSON.stringify(job.queue)},"payload":${job.raw},"run_at":${job.runAt}}`;
      }
      tx.hset(workersKey, fields).expire(workersKey, PROCESS_TTL_SECONDS);
    }
    await tx.exec();
  }
}
