-- enqueue-due: move one job from a sorted set into its queue, atomically: a due job from schedule
-- or retry (the scheduler), or any retry or dead entry on request (`nexq retry`).
-- KEYS[1]  source sorted set (<ns>:schedule, <ns>:retry or <ns>:dead)
-- KEYS[2]  queue list <ns>:queue:<q>
-- KEYS[3]  job index <ns>:nexq:jobs
-- KEYS[4]  queue set  <ns>:queues (absent in the per-queue key layout: the caller adds the queue)
-- ARGV[1]  the job exactly as stored in the sorted set
-- ARGV[2]  the job as it goes into the queue (with its new enqueued_at)
-- ARGV[3]  queue name
-- ARGV[4]  its jid ('' when unreadable)
-- Returns 1 when moved, 0 when it was no longer in the source set (another scheduler moved it first).
-- The cluster rule (_prelude.lua): the ZREM is the set's last command; the rest only adds.
nexq_expect_type(KEYS[1], 'zset')
nexq_expect_type(KEYS[2], 'list')
if KEYS[4] then nexq_expect_type(KEYS[4], 'set') end
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then
  return 0
end
redis.call('LPUSH', KEYS[2], ARGV[2])
nexq_wake(KEYS[2])
if KEYS[4] then redis.call('SADD', KEYS[4], ARGV[3]) end
nexq_index(KEYS[3], ARGV[4], 'queued\t' .. ARGV[3])
return 1
