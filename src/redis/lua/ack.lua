-- ack: a job succeeded. Take it off the backup list and let go of what it held, atomically.
-- Used for jobs that hold a unique lock or a global-limit slot; a plain job is acked with LREM.
-- KEYS[1]  backup list the job was fetched into
-- KEYS[2]  its unique lock <ns>:nexq:unique:<key> (KEYS[1] again when it has none)
-- KEYS[3]  its queue's running hash <ns>:nexq:running:<q> (KEYS[1] again when no global limit)
-- ARGV[1]  the job exactly as fetched
-- ARGV[2]  its jid when the lock is to be released now ('' otherwise)
-- ARGV[3]  this node's id when it holds a global-limit slot ('' otherwise)
-- Returns 1 when acked, 0 when the job was no longer in the backup list.
nexq_expect_type(KEYS[1], 'list')
if redis.call('LREM', KEYS[1], 1, ARGV[1]) == 0 then
  return 0
end
if ARGV[2] ~= '' and redis.call('GET', KEYS[2]) == ARGV[2] then
  redis.call('DEL', KEYS[2])
end
if ARGV[3] ~= '' and redis.call('HINCRBY', KEYS[3], ARGV[3], -1) <= 0 then
  redis.call('HDEL', KEYS[3], ARGV[3])
end
return 1
