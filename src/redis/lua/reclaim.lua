-- reclaim: move one job that no worker is running from this node's backup list back to the
-- consumer end of its queue (it runs next), atomically. Used after a fetch whose reply was lost
-- (a command timeout): the jobs it moved are in the backup list, but no worker got them.
-- KEYS[1]  backup list <ns>:queue:backup::<node>::<q>
-- KEYS[2]  queue list  <ns>:queue:<q>
-- KEYS[3]  the queue's running hash <ns>:nexq:running:<q>
-- ARGV[1]  the job exactly as in the backup list
-- ARGV[2]  this node's id when the queue has a global limit ('' otherwise)
-- Returns 1 when moved, 0 when it was no longer there.
nexq_expect_type(KEYS[1], 'list')
nexq_expect_type(KEYS[2], 'list')
if redis.call('LREM', KEYS[1], 1, ARGV[1]) == 0 then
  return 0
end
redis.call('RPUSH', KEYS[2], ARGV[1])
if ARGV[2] ~= '' and redis.call('HINCRBY', KEYS[3], ARGV[2], -1) <= 0 then
  redis.call('HDEL', KEYS[3], ARGV[2])
end
return 1
