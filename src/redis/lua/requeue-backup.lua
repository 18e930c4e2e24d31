-- requeue-backup: put every job of a backup list back at the consumer end of its queue.
-- KEYS[1]   backup list <ns>:queue:backup::<node>::<q>
-- KEYS[2]   queue list  <ns>:queue:<q>
-- KEYS[3]   job index   <ns>:nexq:jobs
-- KEYS[4]   the queue's running hash: this node holds no slot of the queue once its jobs are back
-- KEYS[5]   queue set   <ns>:queues (absent in the per-queue key layout: the caller adds the queue)
-- ARGV[1]   queue name (for the queue set)
-- ARGV[2]   this node's id
-- Returns the number of jobs moved. The backup list holds the newest job at its head; moving
-- head-first to the queue's right end leaves the oldest job next in line, as it was.
-- The cluster rule (_prelude.lua): the backup list's length is read first and that many jobs moved,
-- so no LMOVE names it once it is empty; the running hash's HDEL is its only command.
nexq_expect_type(KEYS[1], 'list')
nexq_expect_type(KEYS[2], 'list')
if KEYS[5] then nexq_expect_type(KEYS[5], 'set') end
nexq_expect_type(KEYS[4], 'hash')
local moved = redis.call('LLEN', KEYS[1])
local where = 'queued\t' .. ARGV[1]
for _ = 1, moved do
  local job = redis.call('LMOVE', KEYS[1], KEYS[2], 'LEFT', 'RIGHT')
  nexq_index(KEYS[3], nexq_jid_of(job), where)
end
if moved > 0 and KEYS[5] then
  redis.call('SADD', KEYS[5], ARGV[1])
end
if moved > 0 then nexq_wake(KEYS[2]) end
redis.call('HDEL', KEYS[4], ARGV[2])
return moved
