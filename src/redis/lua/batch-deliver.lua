-- batch-deliver: push a batch's callback job into its queue unless it was pushed already, so it is
-- enqueued once across nodes however many of them deliver it (a settle step re-run after a crash).
-- KEYS[1]   the marker <ns>:nexq:batch-fired:<bid>:<event> (in the queue's slot)
-- KEYS[2]   queue list <ns>:queue:<q>
-- KEYS[3]   job index <ns>:nexq:jobs
-- KEYS[4]   queue set <ns>:queues (absent in the per-queue key layout: the caller adds the queue)
-- ARGV[1]   the callback job JSON, ARGV[2] its queue, ARGV[3] its jid
-- ARGV[4]   seconds the marker lives (the batch's own expiry: no delivery can come later)
-- Returns 1 when it pushed the job, 0 when it had been pushed already.
-- The cluster rule (_prelude.lua): it only adds (SET NX, LPUSH, SADD, HSET).
nexq_expect_type(KEYS[1], 'string')
nexq_expect_type(KEYS[2], 'list')
if KEYS[4] then nexq_expect_type(KEYS[4], 'set') end
if not redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[4]) then return 0 end
redis.call('LPUSH', KEYS[2], ARGV[1])
nexq_wake(KEYS[2])
if KEYS[4] then redis.call('SADD', KEYS[4], ARGV[2]) end
nexq_index_new(KEYS[3], ARGV[3], 'queued\t' .. ARGV[2])
return 1
