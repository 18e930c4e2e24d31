-- requeue-job: move one job from a backup list back into its queue, atomically: a nacked job to
-- the producer end (behind the jobs waiting), or one no worker ran to the consumer end (next).
-- KEYS[1]   backup list the job was fetched into
-- KEYS[2]   queue list <ns>:queue:<q>
-- KEYS[3]   job index <ns>:nexq:jobs
-- KEYS[4]   the queue's processed counter when the job counts as processed (a nack), KEYS[1] again
--           otherwise
-- KEYS[5..] running hashes it holds a slot in (queue's and class's limits across nodes)
-- ARGV[1]   the job exactly as in the backup list
-- ARGV[2]   the job as it goes back (nacks raised for a nack; ARGV[1] otherwise)
-- ARGV[3]   'back' (producer end) or 'front' (consumer end)
-- ARGV[4]   this node's id (for the running slots)
-- ARGV[5]   its jid ('' when unreadable)
-- ARGV[6]   queue name
-- Returns 1 when moved, 0 when the job was no longer in the backup list.
-- The cluster rule (_prelude.lua): the LREM is the backup list's last command and each running
-- hash's HDEL its last; the queue, the counter and the index only grow.
nexq_expect_type(KEYS[1], 'list')
nexq_expect_type(KEYS[2], 'list')
nexq_expect_slots(5)
if redis.call('LREM', KEYS[1], 1, ARGV[1]) == 0 then
  return 0
end
redis.call(ARGV[3] == 'back' and 'LPUSH' or 'RPUSH', KEYS[2], ARGV[2])
nexq_wake(KEYS[2])
nexq_release_slots(5, ARGV[4])
nexq_count_processed(4, 1)
nexq_index(KEYS[3], ARGV[5], 'queued\t' .. ARGV[6])
return 1
