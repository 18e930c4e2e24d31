-- fail: take a finished job off the backup list and file it in the retry or dead set, atomically.
-- KEYS[1]  backup list the job was fetched into
-- KEYS[2]  destination sorted set (<ns>:retry or <ns>:dead)
-- ARGV[1]  the job exactly as fetched (to remove from the backup list)
-- ARGV[2]  the rewritten job (error fields, retry_count, ...)
-- ARGV[3]  score: epoch seconds when the job is due (retry) or died (dead)
-- ARGV[4]  for the dead set: drop entries scored below this ('' for none)
-- ARGV[5]  for the dead set: keep at most this many entries ('' for no cap)
-- KEYS[3]  its queue's running hash <ns>:nexq:running:<q> (KEYS[1] again when no global limit)
-- ARGV[6]  this node's id when the job holds a global-limit slot ('' otherwise)
-- Returns 1 when filed, 0 when the job was no longer in the backup list (another node recovered it:
-- filing it as well would run it twice).
nexq_expect_type(KEYS[1], 'list')
nexq_expect_type(KEYS[2], 'zset')
if redis.call('LREM', KEYS[1], 1, ARGV[1]) == 0 then
  return 0
end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2])
if ARGV[6] ~= '' and redis.call('HINCRBY', KEYS[3], ARGV[6], -1) <= 0 then
  redis.call('HDEL', KEYS[3], ARGV[6])
end
if ARGV[4] ~= '' then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[4])
end
if ARGV[5] ~= '' then
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -(tonumber(ARGV[5]) + 1))
end
return 1
