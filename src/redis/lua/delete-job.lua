-- delete-job: remove one job that waits (queued, schedule, retry or dead) and forget it, atomically,
-- releasing its unique lock if it holds it.
-- KEYS[1]  where it is: a queue list or a sorted set
-- KEYS[2]  job index <ns>:nexq:jobs
-- KEYS[3]  its unique lock <ns>:nexq:unique:<key> (KEYS[2] again when it has none)
-- ARGV[1]  the job exactly as stored
-- ARGV[2]  its jid
-- ARGV[3]  its index entry when it was found ('' when it was not indexed)
-- KEYS[4], KEYS[5], ARGV[4]  for a job waiting in a fair queue's groups (KEYS[1] their sorted set):
--          the groups' counts (hash), their ring (list) and its group, whose count goes down with it;
--          a group left with no job leaves the ring too, as the feed (_fair.lua) expects of a group
--          without a count (it would push it again: a group twice in the ring)
-- Returns 1 when deleted, 0 when it had moved or gone meanwhile.
-- The cluster rule (_prelude.lua): the LREM or ZREM, the lock's DEL and the index's HDEL are their
-- keys' last commands.
local entry = redis.pcall('HGET', KEYS[2], ARGV[2])
if (type(entry) == 'string' and entry or '') ~= ARGV[3] then
  return 0
end
if KEYS[3] ~= KEYS[2] then nexq_expect_type(KEYS[3], 'string') end
if KEYS[4] then
  nexq_expect_type(KEYS[4], 'hash')
  nexq_expect_type(KEYS[5], 'list')
end
local kind = redis.call('TYPE', KEYS[1]).ok
local removed = 0
if kind == 'list' then
  removed = redis.call('LREM', KEYS[1], 1, ARGV[1])
elseif kind == 'zset' then
  removed = redis.call('ZREM', KEYS[1], ARGV[1])
end
if removed == 0 then
  return 0
end
if KEYS[4] and redis.call('HINCRBY', KEYS[4], ARGV[4], -1) <= 0 then
  redis.call('HDEL', KEYS[4], ARGV[4])
  redis.call('LREM', KEYS[5], 0, ARGV[4])
end
if KEYS[3] ~= KEYS[2] and redis.call('GET', KEYS[3]) == ARGV[2] then
  redis.call('DEL', KEYS[3])
end
nexq_forget(KEYS[2], ARGV[2])
return 1
