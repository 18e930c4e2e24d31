-- enqueue-periodic: enqueue one tick of a periodic job unless that tick (or a later one) was
-- enqueued already; check, advance and push in one atomic step, so of any number of nodes racing
-- for one tick exactly one enqueues it, and a tick never goes back (a late node cannot re-run it).
-- KEYS[1]  the schedule's state <ns>:nexq:periodic:<id> (string: epoch seconds of its last tick)
-- KEYS[2]  queue list <ns>:queue:<q>
-- KEYS[3]  job index <ns>:nexq:jobs
-- KEYS[4]  queue set  <ns>:queues (absent in the per-queue key layout: the caller adds the queue)
-- ARGV[1]  the tick, in whole epoch seconds
-- ARGV[2]  the job JSON (its jid names the tick)
-- ARGV[3]  queue name
-- ARGV[4]  'boot' on a node's first call for this schedule: a schedule with no state yet is new,
--          so its tick is recorded and not enqueued (ticks from before it existed are not run);
--          'kept' for a schedule whose state key is written and removed with it (set at run time,
--          src/redis/schedule-store.ts): no state means that version was replaced or removed since
--          the node read it, and nothing is written; 'start' for a `periodic` entry coming back when
--          the schedule of its name that replaced it went: its tick is recorded and not enqueued
--          (that schedule may have run it, under the same jid)
-- ARGV[5]  the job's jid
-- Returns 1 when it pushed the job, 0 when this tick or a later one was enqueued already, -1 when
-- it recorded a new schedule's first tick without enqueuing it, -2 when a 'kept' state was gone.
-- The cluster rule (_prelude.lua): it only adds (SET, LPUSH, SADD, HSET).
nexq_expect_type(KEYS[1], 'string')
nexq_expect_type(KEYS[2], 'list')
if KEYS[4] then nexq_expect_type(KEYS[4], 'set') end
local tick = tonumber(ARGV[1])
local last = redis.call('GET', KEYS[1])
if ARGV[4] == 'start' then
  if last and tonumber(last) and tonumber(last) >= tick then return 0 end
  redis.call('SET', KEYS[1], ARGV[1])
  return -1
end
if last and tonumber(last) then
  if tonumber(last) >= tick then
    return 0
  end
elseif not last and ARGV[4] == 'kept' then
  return -2
elseif not last and ARGV[4] == 'boot' then
  redis.call('SET', KEYS[1], ARGV[1])
  return -1
end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('LPUSH', KEYS[2], ARGV[2])
nexq_wake(KEYS[2])
if KEYS[4] then redis.call('SADD', KEYS[4], ARGV[3]) end
nexq_index_new(KEYS[3], ARGV[5], 'queued\t' .. ARGV[3])
return 1
