-- nack: the handler asked for its job to run again later. Move it from the backup list to the
-- producer end of its queue (behind the jobs waiting there) with its nacks counter raised, atomically.
-- KEYS[1]  backup list the job was fetched into
-- KEYS[2]  queue list <ns>:queue:<q>
-- KEYS[3]  its queue's running hash <ns>:nexq:running:<q> (KEYS[1] again when no global limit)
-- ARGV[1]  the job exactly as fetched
-- ARGV[2]  the job with `nacks` raised
-- ARGV[3]  this node's id when the job holds a global-limit slot ('' otherwise)
-- Returns 1 when requeued, 0 when the job was no longer in the backup list.
nexq_expect_type(KEYS[1], 'list')
nexq_expect_type(KEYS[2], 'list')
if redis.call('LREM', KEYS[1], 1, ARGV[1]) == 0 then
  return 0
end
redis.call('LPUSH', KEYS[2], ARGV[2])
if ARGV[3] ~= '' and redis.call('HINCRBY', KEYS[3], ARGV[3], -1) <= 0 then
  redis.call('HDEL', KEYS[3], ARGV[3])
end
return 1
