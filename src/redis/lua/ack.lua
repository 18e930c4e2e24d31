-- ack: a job succeeded (or is dropped). Take it off the backup list, forget it in the job index and
-- let go of what it held (unique lock, running slots), atomically.
-- KEYS[1]   backup list the job was fetched into
-- KEYS[2]   job index <ns>:nexq:jobs
-- KEYS[3]   delivery counts <ns>:nexq:deliveries
-- KEYS[4]   its unique lock <ns>:nexq:unique:<key> (KEYS[1] again when it has none)
-- KEYS[5..] running hashes it holds a slot in (<ns>:nexq:running:<q>, <ns>:nexq:running-class:<c>)
-- ARGV[1]   the job exactly as fetched
-- ARGV[2]   its jid ('' when unreadable)
-- ARGV[3]   its jid again when the unique lock is to be released now ('' otherwise)
-- ARGV[4]   this node's id (for the running slots)
-- ARGV[5]   'keep' to leave the index as it is (an at-most-once job leaves backup as it starts;
--           it passes no running hashes then: it holds its slots until it ends, see release.lua)
-- Returns 1 when acked, 0 when the job was no longer in the backup list.
nexq_expect_type(KEYS[1], 'list')
nexq_expect_type(KEYS[2], 'hash')
nexq_expect_type(KEYS[3], 'hash')
nexq_expect_slots(5)
if KEYS[4] ~= KEYS[1] then nexq_expect_type(KEYS[4], 'string') end
if redis.call('LREM', KEYS[1], 1, ARGV[1]) == 0 then
  return 0
end
if ARGV[3] ~= '' and redis.call('GET', KEYS[4]) == ARGV[3] then
  redis.call('DEL', KEYS[4])
end
if ARGV[5] ~= 'keep' then
  nexq_forget(KEYS[2], KEYS[3], ARGV[2])
end
nexq_release_slots(5, ARGV[4])
return 1
