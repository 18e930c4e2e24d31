-- lease-due: claim a due job of a sorted set for a move that cannot be one script call (its queue
-- is in another cluster slot, see ../cross-queue-move.ts) by pushing its score to the lease's end:
-- other schedulers no longer see it as due, and if the mover dies, it is due again then.
-- KEYS[1]  source sorted set (<ns>:schedule:{q}, :retry:{q} or :dead:{q})
-- ARGV[1]  the job exactly as stored in the set
-- ARGV[2]  due by: only a job scored at or before this is claimed ('' = whatever its score)
-- ARGV[3]  the lease's end, epoch seconds (its new score)
-- Returns 1 when claimed, 0 when it is gone or not due (another mover holds it).
-- The cluster rule (_prelude.lua): one key, which it only reads and rescores (ZADD XX).
nexq_expect_type(KEYS[1], 'zset')
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or (ARGV[2] ~= '' and tonumber(score) > tonumber(ARGV[2])) then
  return 0
end
redis.call('ZADD', KEYS[1], 'XX', ARGV[3], ARGV[1])
return 1
