-- clear-detach: the first step of a clear (Sidekiq's Queue#clear, RetrySet#clear): the queue or
-- set is emptied at once by renaming it to its clearing key, where clear-stretch.lua forgets its
-- jobs in the job index a stretch per call (move-scripts.ts). Reading and forgetting a million jobs
-- in one call held Redis for ~6 s; a RENAME takes no time, so no node waits behind a clear.
-- KEYS[1]  the queue (a list) or the set (a sorted set)
-- KEYS[2]  its clearing key (Keys#clearing)
-- KEYS[3], KEYS[4]  for a queue: its fair groups' jobs (sorted set) and their clearing key
-- KEYS[5..7]  for a queue: its fair groups' counts, ring and parked groups, deleted with them
-- ARGV[1]  'queued' for a queue, else the set's name
-- Returns how many jobs it moved to the clearing keys; or -1, moving nothing, while a clearing key
-- still holds jobs (a clear under way, or one cut off): the caller clears those first.
-- The cluster rule (_prelude.lua): every check first; RENAME and DEL are their source keys' last
-- commands (a RENAME is not refused by a full Redis: it allocates nothing).
local isQueue = ARGV[1] == 'queued'
local kind = isQueue and 'list' or 'zset'
nexq_expect_type(KEYS[1], kind)
nexq_expect_type(KEYS[2], kind)
if KEYS[3] then
  nexq_expect_type(KEYS[3], 'zset')
  nexq_expect_type(KEYS[4], 'zset')
  nexq_expect_type(KEYS[5], 'hash')
  nexq_expect_type(KEYS[6], 'list')
  nexq_expect_type(KEYS[7], 'list')
end
if redis.call('EXISTS', KEYS[2]) == 1 or (KEYS[4] and redis.call('EXISTS', KEYS[4]) == 1) then return -1 end
local moved = redis.call(isQueue and 'LLEN' or 'ZCARD', KEYS[1])
if moved > 0 then redis.call('RENAME', KEYS[1], KEYS[2]) end
if KEYS[3] then
  local grouped = redis.call('ZCARD', KEYS[3])
  if grouped > 0 then redis.call('RENAME', KEYS[3], KEYS[4]) end
  redis.call('DEL', KEYS[5], KEYS[6], KEYS[7])
  moved = moved + grouped
end
return moved
