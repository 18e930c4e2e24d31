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
local moved = nexq_requeue_all(KEYS[1], KEYS[2], KEYS[3], KEYS[5], ARGV[1])
redis.call('HDEL', KEYS[4], ARGV[2])
return moved
