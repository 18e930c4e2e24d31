-- ack: a job succeeded (or is dropped). Take it off the backup list, let go of what it held
-- (unique lock, running slots) and forget it in the job index, atomically.
-- KEYS[1]   backup list the job was fetched into
-- KEYS[2]   job index <ns>:nexq:jobs
-- KEYS[3]   its unique lock <ns>:nexq:unique:<key> (KEYS[1] again when it has none)
-- KEYS[4]   the queue's processed counter <ns>:nexq:processed:<q> when this ack counts the job as
--           processed (`nexq drain`), KEYS[1] again otherwise
-- KEYS[5..] running hashes it holds a slot in (<ns>:nexq:running:<q>, <ns>:nexq:running-class:<c>)
-- ARGV[1]   the job exactly as fetched
-- ARGV[2]   its jid ('' when unreadable)
-- ARGV[3]   its jid again when the unique lock is to be released now ('' otherwise)
-- ARGV[4]   this node's id (for the running slots)
-- ARGV[5]   'keep' for an at-most-once job that leaves backup as it starts: its entry says taken
--           until it ends, and it passes no running hashes (it holds its slots until it ends, see
--           release.lua and fail.lua)
-- Returns 1 when acked, 0 when the job was no longer in the backup list (with 'keep': 1 also when
-- this node took it already, a first try whose reply was lost).
-- LREM is the first write, and a backup key of the wrong type fails it before anything changed.
-- The cluster rule (_prelude.lua): the LREM is the backup list's last command, the lock's DEL and
-- each running hash's HDEL their last, the counter only grows, and the index is written last.
nexq_expect_slots(5)
if KEYS[3] ~= KEYS[1] then nexq_expect_type(KEYS[3], 'string') end
if redis.call('LREM', KEYS[1], 1, ARGV[1]) == 0 then
  if ARGV[5] == 'keep' and ARGV[2] ~= '' then
    local entry = redis.pcall('HGET', KEYS[2], ARGV[2])
    if nexq_entry_in(entry, 'taken') and string.sub(entry, -(#ARGV[4] + 1)) == '\t' .. ARGV[4] then return 1 end
  end
  return 0
end
if ARGV[3] ~= '' and redis.call('GET', KEYS[3]) == ARGV[3] then
  redis.call('DEL', KEYS[3])
end
nexq_release_slots(5, ARGV[4])
nexq_count_processed(4, 1)
if ARGV[5] ~= 'keep' then
  nexq_forget(KEYS[2], ARGV[2])
elseif ARGV[2] ~= '' then
  local entry = redis.pcall('HGET', KEYS[2], ARGV[2])
  if type(entry) == 'string' then
    redis.pcall('HSET', KEYS[2], ARGV[2], (string.gsub(entry, '^(%d+)\trunning\t', '%1\ttaken\t', 1)))
  end
end
return 1
