// The supervision tree of one nexq node. Read top to bottom it is the start order; stop runs it
// bottom to top, so the manager stops fetching before the job runners drain.
//
//   nexq.root (rest_for_one: a child's restart restarts every child after it, which depends on it)
//   ├─ redis        (one_for_one) redis-connection: owns the main client, replaced when ioredis ends it
//   ├─ clock-watch  keeps the node's clock on Redis' time, warns when this machine's is off
//   ├─ stats        flushes the processed/failed counters
//   ├─ heartbeat    process entry in Redis
//   ├─ enqueuer     writes new jobs
//   ├─ scheduler    schedule/retry -> queues
//   ├─ periodic     cron jobs of `periodic` and of nexq.schedules, each tick once across nodes
//   ├─ node-reaper  re-enqueues the unfinished jobs of nodes that stopped beating
//   ├─ job-runners  dynamic supervisor of one ephemeral JobRunner per running job
//   ├─ manager      fetches jobs into backup lists and starts their runners
//   └─ canceller    hears cancel requests and stops the jobs of this node they name
//
// Every actor reads the main client from the context at each use, so replacing it restarts nothing
// else: the redis-connection actor sits under a supervisor of its own. The canceller and the
// manager own connections of their own and crash when ioredis ends one; they come last, so their
// restart never restarts the job runners (which would cut running jobs off).
// In 'enqueuer' mode the root holds the redis connection, the clock watch and the enqueuer.
import { Actor } from '../src/runtime';
import { Canceller } from '../src/actors/canceller';
import { ClockWatch } from '../src/actors/clock-watch';
import { Enqueuer } from '../src/actors/enqueuer';
import { Heartbeat } from '../src/actors/heartbeat';
import { Manager } from '../src/actors/manager';
import { managerShutdownMs } from '../src/actors/manager-parts';
import { NodeReaper } from '../src/actors/node-reaper';
import { Periodic } from '../src/actors/periodic';
import { RedisConnection } from '../src/actors/redis-connection';
import { Scheduler } from '../src/actors/scheduler';
import { Stats } from '../src/actors/stats';
import { ActorNames, NodeContext, runsJobs } from '../src/run/node-context';
import { DynamicSupervisor } from './dynamic-supervisor';
import { ChildSpec, Supervisor, SupervisorEvent } from './supervisor';

export function nodeTree(ctx: NodeContext): Supervisor {
  const { registry } = ctx;
  const enqueuer: ChildSpec = { id: ActorNames.enqueuer, start: () => Actor.start(new Enqueuer(ctx)) };
  const redis: ChildSpec = {
    id: ActorNames.redis,
    start: () =>
      Actor.start(
        new Supervisor({
          name: ActorNames.redis,
          registry,
          strategy: 'one_for_one',
          maxRestarts: 5,
          maxSeconds: 10,
          children: [{ id: ActorNames.redisConnection, start: () => Actor.start(new RedisConnection(ctx)) }],
          onEvent: (event) => logEvent(ctx, ActorNames.redis, event),
        }),
      ),
  };
  const clockWatch: ChildSpec = { id: ActorNames.clockWatch, start: () => Actor.start(new ClockWatch(ctx)) };
  const children: ChildSpec[] = !runsJobs(ctx)
    ? [redis, clockWatch, enqueuer]
    : [
        redis,
        clockWatch,
        { id: ActorNames.stats, start: () => Actor.start(new Stats(ctx)) },
        { id: ActorNames.heartbeat, start: () => Actor.start(new Heartbeat(ctx)) },
        enqueuer,
        { id: ActorNames.scheduler, start: () => Actor.start(new Scheduler(ctx)) },
        { id: ActorNames.periodic, start: () => Actor.start(new Periodic(ctx)) },
        { id: ActorNames.nodeReaper, start: () => Actor.start(new NodeReaper(ctx)) },
        {
          id: ActorNames.jobRunners,
          start: () => Actor.start(new DynamicSupervisor({ name: ActorNames.jobRunners, registry })),
          // Running jobs get the whole shutdown timeout to finish, plus a moment to settle in Redis.
          shutdownMs: ctx.config.shutdownTimeout + 1000,
        },
        {
          id: ActorNames.manager,
          start: () => Actor.start(new Manager(ctx)),
          shutdownMs: managerShutdownMs(ctx.redis),
        },
        { id: ActorNames.canceller, start: () => Actor.start(new Canceller(ctx)) },
      ];
  return new Supervisor({
    name: 'nexq.root',
    registry,
    strategy: 'rest_for_one',
    maxRestarts: 5,
    maxSeconds: 10,
    children,
    onEvent: (event) => logEvent(ctx, 'nexq.root', event),
  });
}

function logEvent(ctx: NodeContext, supervisor: string, event: SupervisorEvent): void {
  const meta = { actor: supervisor };
  if (event.type === 'child_exited')
    ctx.logger.warn(`${event.id} exited: ${String(messageOf(event.reason) ?? event.reason)}`, meta);
  else if (event.type === 'child_restarted') ctx.logger.info(`${event.id} restarted`, meta);
  else ctx.logger.error(`gave up restarting ${event.id}`, meta);
}

/** An Error's message (or any object's `message`); undefined for other reasons ('normal', a string). */
function messageOf(reason: unknown): unknown {
  return (reason as { message?: unknown } | null | undefined)?.message;
}
