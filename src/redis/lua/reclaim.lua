-- reclaim: move one job that no worker is running from this node's backup list back to the
-- consumer end of its queue (it runs next), atomically. Used after a fetch whose reply was lost
-- (a command timeout): the jobs it moved are in the backup list, but no worker got them.
-- KEYS[1]  backup list <ns>:queue:backup::<node>::<q>
-- KEYS[2]  queue list  <ns>:queue:<q>
-- ARGV[1]  the job exactly as in the backup list
-- Returns 1 when moved, 0 when it was no longer there.
nexq_expect_type(KEYS[1], 'list')
nexq_expect_type(KEYS[2], 'list')
if redis.call('LREM', KEYS[1], 1, ARGV[1]) == 0 then
  return 0
end
redis.call('RPUSH', KEYS[2], ARGV[1])
return 1
