-- fail: take a finished job off the backup list and file it in the retry or dead set, atomically,
-- with its place in the job index; trimming the dead set forgets what it drops.
-- KEYS[1]   backup list the job was fetched into
-- KEYS[2]   destination sorted set (<ns>:retry or <ns>:dead)
-- KEYS[3]   job index <ns>:nexq:jobs
-- KEYS[4]   the queue's processed counter when the job counts as processed (it failed, rather than
--           being cancelled or expiring), KEYS[1] again otherwise
-- KEYS[5..] running hashes it holds a slot in (queue's and class's limits across nodes)
-- ARGV[1]   the job exactly as fetched (to remove from the backup list)
-- ARGV[2]   the rewritten job (error fields, retry_count, ...)
-- ARGV[3]   score: epoch seconds when the job is due (retry) or died (dead)
-- ARGV[4]   for the dead set: drop entries scored below this ('' for none)
-- ARGV[5]   for the dead set: keep at most this many entries ('' for no cap)
-- ARGV[6]   this node's id (for the running slots)
-- ARGV[7]   jid of the rewritten job ('' when unreadable)
-- ARGV[8]   'retry' or 'dead', for the index
-- ARGV[9]   'taken' when the job already left the backup list (at-most-once): file it if its
--           index entry still says taken (once, even when a first try's reply was lost)
-- Returns 1 when filed, 0 when the job was no longer in the backup list (another node recovered it:
-- filing it as well would run it twice).
-- The cluster rule (_prelude.lua): the LREM is the backup list's last command, each running hash's
-- HDEL its last, the counter only grows; the set's size is counted through its trims, and the index forgets the trimmed
-- jobs in one HMGET and one HDEL, its last commands.
nexq_expect_type(KEYS[1], 'list')
nexq_expect_type(KEYS[2], 'zset')
nexq_expect_slots(5)
if ARGV[9] == 'taken' then
  if not nexq_still_taken(KEYS[3], ARGV[7]) then return 0 end
elseif redis.call('LREM', KEYS[1], 1, ARGV[1]) == 0 then
  return 0
end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2])
nexq_release_slots(5, ARGV[6])
nexq_count_processed(4, 1)
nexq_index(KEYS[3], ARGV[7], ARGV[8] .. '\t' .. ARGV[3])
-- The trimmed entries' jids, forgotten in the index together at the end (one HMGET, one HDEL).
local dropped = {}
local function drop(members)
  for _, member in ipairs(members) do
    local jid = nexq_jid_of(member)
    if jid then dropped[#dropped + 1] = jid end
  end
end
-- The set's size is read before the cut by score, which may empty it: then it is named no more.
local size = ARGV[5] ~= '' and redis.call('ZCARD', KEYS[2]) or 0
if ARGV[4] ~= '' then
  drop(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[4]))
  size = size - redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[4])
end
if ARGV[5] ~= '' and size > 0 then
  local excess = size - tonumber(ARGV[5])
  if excess > 0 then
    drop(redis.call('ZRANGE', KEYS[2], 0, excess - 1))
    redis.call('ZREMRANGEBYRANK', KEYS[2], 0, excess - 1)
  end
end
nexq_forget_all(KEYS[3], dropped, ARGV[8])
return 1
