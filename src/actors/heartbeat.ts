// Heartbeat: this node's entry in Redis' process list, in Sidekiq's format.
//
// Responsibilities:
//  1. Every `heartbeatInterval` seconds write the process entry (info, busy, beat, quiet) with a
//     60 s expiry, and the hash of running jobs (each job's entry sent once, when it starts: see
//     running-jobs-hash.ts), so dashboards and Sidekiq's ProcessSet see it (and `nexq groups` the
//     limits per group of the fair queues the node serves, which it has no config to know); and
//     the node's beat in `nexq:nodes`, by which survivors tell when it died (see NodeReaper); all
//     in one script (beat.lua) that scores the beat by Redis' clock, never this node's.
//  2. Take the signal Sidekiq's API leaves for this process (`<identity>-signals`) with each beat:
//     TSTP quiets the node (no more fetching), TERM stops it, TTIN logs the running jobs.
//  3. Write the entry and the running-jobs hash again WORK_FLUSH_MS after a job starts or ends
//     (one write for all the changes meanwhile), so `busy` and the running jobs are live, not up to
//     a heartbeat late; and publish the node's supervision tree with each periodic beat.
//  4. Beat no more once stopped: the node then removes the entry at once instead of waiting for it
//     to expire, within the stop's deadline (src/node/leave-redis.ts).
//  5. Renew the node's lease (src/run/lease.ts) with each acknowledged beat; when Redis had no
//     beat of this node after it had acknowledged one (a reaper declared it dead, frozen or cut off
//     for `nodeTimeout`), say so once, how long it was gone: its jobs fetched ahead are dropped (the
//     manager hears of it through the lease) and it carries on as a new member.
import os from 'node:os';
import { GroupLimits, groupLimitsOf } from '../../config/group-limits';
import type { ResolvedConfig } from '../../config/validate';
import { NEXQ_VERSION } from '../../config/version';
import { Down, Tick, TickingActor } from '../runtime';
import { writeBeat } from '../redis/redis-time';
import type { NodeContext } from '../run/node-context';
import { ActorNames } from '../run/node-context';
import type { RunningJob } from '../run/running-jobs';
import { RunningJobsHash } from './running-jobs-hash';

/** Sidekiq's expiry of a process entry: a node that stops beating disappears within a minute. */
export const PROCESS_TTL_SECONDS = 60;

/** How long after a job starts or ends the work hash is written (the changes meanwhile go together). */
export const WORK_FLUSH_MS = 100;

/**
 * The process entry's `info.fair` (read by src/admin/group-limits.ts): each queue of `served` (the
 * work table's: those configured and those subscribed at run time, less those unsubscribed) that
 * `config` serves fair -> its limits per group, only those set (`{}`: fair without limits);
 * undefined when none is. A queue subscribed at run time takes its options from its configured
 * entry (the manager's subscribe), so one not configured is never fair.
 */
function fairInfo(
  config: Pick<ResolvedConfig, 'queues'>,
  served: ReadonlyArray<{ name: string }>,
): Record<string, GroupLimits> | undefined {
  const fair: Record<string, GroupLimits> = {};
  for (const { name } of served) {
    const limits = groupLimitsOf(config, name);
    if (limits) fair[name] = limits;
  }
  return Object.keys(fair).length > 0 ? fair : undefined;
}

type WorkChanged = { type: 'work' };

export class Heartbeat extends TickingActor {
  private flushPending = false;
  /** The running-jobs hashes as last written, so a beat sends only what changed. */
  private readonly workHash: RunningJobsHash;

  constructor(private readonly ctx: NodeContext) {
    super({ name: ActorNames.heartbeat, registry: ctx.registry, logger: ctx.logger, what: 'heartbeat' });
    this.workHash = new RunningJobsHash(ctx.identity);
  }

  protected override async init(): Promise<void> {
    await super.init();
    const running = this.ctx.jobs?.running;
    if (running) running.onChange = () => this.workChanged();
  }

  private workChanged(): void {
    if (this.flushPending || !this.alive) return;
    this.flushPending = true;
    this.sendAfter({ type: 'work' } as unknown as Tick, WORK_FLUSH_MS);
  }

  protected override async handleInfo(msg: Tick | WorkChanged | Down): Promise<void> {
    if (msg.type !== 'work') return super.handleInfo(msg);
    this.flushPending = false;
    await this.beat().catch((err: unknown) =>
      this.ctx.logger.warn(`heartbeat failed: ${(err as Error).message}`, { actor: this.name }),
    );
  }

  protected override async tick(): Promise<void> {
    await this.beat();
    await this.publishTree();
  }

  /** The supervision tree, for the dashboard; it expires with the process entry. */
  private async publishTree(): Promise<void> {
    const tree = this.ctx.supervisionTree?.();
    if (!tree) return;
    const { redis, keys, identity } = this.ctx;
    await redis.set(keys.processTree(identity), JSON.stringify(tree), 'EX', PROCESS_TTL_SECONDS);
  }

  protected override nextTickMs(): number {
    return this.ctx.config.heartbeatInterval * 1000;
  }

  protected override async terminate(): Promise<void> {
    await super.terminate();
    if (this.ctx.jobs?.running.onChange) this.ctx.jobs.running.onChange = undefined;
  }

  /**
   * The process entry's `info`, read by every Sidekiq's ProcessSet (docs/compatibility.md): 6.x's
   * fields, 7's `weights`, `version` and `embedded`, and 8.1's `capsules` (one, as nexq has one pool);
   * and `busy` and `quiet`, which Exq's API reads from `info` (Exq.Support.Node) where Sidekiq reads
   * the entry's own fields. Sidekiq and Exq read none of nexq's own fields (`classes`, `fair`,
   * `node_id`, `threads`).
   */
  info(busy = this.ctx.jobs?.running.list().length ?? 0): Record<string, unknown> {
    const { config, identity, startedAt } = this.ctx;
    // What the node serves now, from the shared work table.
    const served = this.ctx.jobs?.running.slots.subscribed() ?? [];
    const concurrency = served.reduce((sum, q) => sum + q.concurrency, 0);
    // Weight 0 is Sidekiq's "strict order"; nexq's queue order is its own (fetchOrder).
    const weights = Object.fromEntries(served.map((q) => [q.name, 0]));
    const fair = fairInfo(config, served);
    return {
      hostname: os.hostname(),
      started_at: startedAt,
      pid: process.pid,
      tag: '',
      concurrency,
      queues: served.map((q) => q.name),
      // nexq's own: the job classes it has handlers for (a producer warns of one no live node has).
      classes: this.ctx.jobs?.handlers.classNames ?? [],
      // nexq's own: the limits per group of the fair queues it serves (`nexq groups` reads them).
      ...(fair ? { fair } : {}),
      weights: [weights],
      capsules: { default: { concurrency, mode: 'strict', weights } },
      labels: ['nexq'],
      identity,
      version: NEXQ_VERSION,
      embedded: false,
      node_id: config.nodeId,
      threads: config.threads,
      busy,
      quiet: this.ctx.lifecycle.quiet,
    };
  }

  async beat(): Promise<void> {
    const { keys, identity, redis, config } = this.ctx;
    const running = this.ctx.jobs?.running.list() ?? [];
    // Scored by Redis' clock inside the script: this node's wall clock can make no one dead.
    const info = this.info(running.length);
    const work = this.workHash.next(running);
    const sentAt = this.ctx.lease.mark();
    const { signal, workLost, absent } = await writeBeat(redis, keys, {
      nodeId: config.nodeId,
      identity,
      ttlSeconds: PROCESS_TTL_SECONDS,
      info: JSON.stringify(info),
      concurrency: info.concurrency as number,
      busy: running.length,
      quiet: this.ctx.lifecycle.quiet,
      rssKb: Math.round(process.memoryUsage.rss() / 1024),
      reserved: this.ctx.jobs?.running.slots.totalReserved() ?? 0,
      work: work.write,
    }).catch((err: unknown) => {
      this.workHash.lost(); // not known what landed
      throw err;
    });
    if (workLost) this.workHash.lost();
    else work.landed();
    const reserved = this.ctx.jobs?.running.slots.totalReserved() ?? 0;
    const goneMs = this.ctx.lease.acknowledged(sentAt, absent);
    if (goneMs !== undefined) this.declaredDead(goneMs, reserved, running.length);
    if (signal !== undefined) this.onSignal(signal, running);
    await this.renewClaim();
    // Nothing of the running jobs was written (Redis lost the hashes): rewrite them whole at once.
    if (workLost) await this.beat();
  }

  /** Said once per time it happens: the reaper of another node took this node's backup lists. */
  private declaredDead(goneMs: number, reserved: number, running: number): void {
    const { config, logger } = this.ctx;
    logger.warn(
      `this node (${config.nodeId}) was declared dead: no beat of it reached Redis for ${(goneMs / 1000).toFixed(1)} s ` +
        `(frozen or cut off; nodeTimeout ${config.nodeTimeout} s), so another node re-enqueued its jobs; ` +
        `it drops the ${reserved} job(s) it held fetched ahead (theirs now), its ${running} running job(s) ` +
        `may run twice, and it carries on as a new member`,
      { actor: this.name },
    );
  }

  private claimLost = false;

  /** Keeps the default node id this node claimed; says once when another process holds it now. */
  private async renewClaim(): Promise<void> {
    const { nodeClaim, redis, logger } = this.ctx;
    if (!nodeClaim) return;
    // The beat landed already: a failed renewal is said, and tried again at the next beat.
    const held = await nodeClaim.renew(redis).catch((err: unknown) => {
      logger.warn(`renewing the claim on node id ${nodeClaim.nodeId} failed: ${(err as Error).message}`, {
        actor: this.name,
      });
      return true;
    });
    if (!held && !this.claimLost)
      logger.error(
        `another process claimed node id ${nodeClaim.nodeId} (this node stalled past its node timeout?); ` +
          'its backup lists may be re-enqueued by that process',
        { actor: this.name },
      );
    this.claimLost = !held;
  }

  private onSignal(signal: string, running: RunningJob[]): void {
    const { logger } = this.ctx;
    const meta = { actor: this.name };
    switch (signal) {
      case 'TSTP':
        logger.info('TSTP from Redis: quiet, no more jobs will be fetched', meta);
        this.ctx.lifecycle.goQuiet();
        return;
      case 'TERM':
        logger.info('TERM from Redis: stopping', meta);
        this.ctx.requestStop();
        return;
      case 'TTIN':
        logger.info(
          `TTIN from Redis: ${running.length} running job(s): ${running.map((job) => job.jid).join(', ') || 'none'}`,
          meta,
        );
        return;
      default:
        logger.warn(`ignoring unknown signal ${JSON.stringify(signal)} from Redis`, meta);
    }
  }
}
