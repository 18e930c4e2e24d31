-- release: let go of what a job still holds besides a backup entry: its unique lock, its index
-- entry once it is done, and the running slots an at-most-once job kept while it ran.
-- KEYS[1]   its unique lock <ns>:nexq:unique:<key> (KEYS[2] when it has none)
-- KEYS[2]   job index <ns>:nexq:jobs
-- KEYS[3]   the queue's processed counter when the job done (ARGV[2]) counts as processed, KEYS[2]
--           again otherwise
-- KEYS[4..] running hashes it holds a slot in (queue's and class's limits across nodes)
-- ARGV[1]   its jid when the lock is to be released ('' otherwise)
-- ARGV[2]   its jid when it is done and leaves the index ('' otherwise)
-- ARGV[3]   this node's id when it gives back its running slots ('' otherwise); with ARGV[2], only
--           while the job's entry still says taken, so a retried step gives them back once
-- Returns 1 when the lock was released, 0 otherwise.
-- The cluster rule (_prelude.lua): each running hash's HDEL is its last command, the index's HDEL
-- (after its HGET) and the lock's DEL (after its GET) theirs; the counter only grows.
nexq_expect_slots(4)
if ARGV[1] ~= '' then nexq_expect_type(KEYS[1], 'string') end
local finishing = ARGV[2] ~= '' and nexq_still_taken(KEYS[2], ARGV[2])
if ARGV[2] == '' or finishing then
  nexq_release_slots(4, ARGV[3])
end
-- Once: a retried step finds the entry no longer taken.
if finishing then nexq_count_processed(3, 2) end
nexq_forget(KEYS[2], ARGV[2])
if ARGV[1] ~= '' and redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
