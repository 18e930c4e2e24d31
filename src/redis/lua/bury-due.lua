-- bury-due: move one unreadable job from the schedule or retry set to the dead set, atomically.
-- KEYS[1]  source sorted set (<ns>:schedule or <ns>:retry)
-- KEYS[2]  dead set <ns>:dead
-- ARGV[1]  the job exactly as stored in the source set
-- ARGV[2]  the dead entry (the job wrapped with the reason)
-- ARGV[3]  score: epoch seconds now
-- KEYS[3]  job index <ns>:nexq:jobs
-- ARGV[4]  jid of the dead entry
-- Returns 1 when moved, 0 when it was gone already.
-- The cluster rule (_prelude.lua): the ZREM is the source set's last command; the rest only adds.
nexq_expect_type(KEYS[1], 'zset')
nexq_expect_type(KEYS[2], 'zset')
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then
  return 0
end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2])
nexq_index(KEYS[3], ARGV[4], 'dead\t' .. ARGV[3])
return 1
