-- release: let go of what a job that left its backup list still holds, as it ends.
-- KEYS[1]  its unique lock <ns>:nexq:unique:<key> (any key when it has none)
-- KEYS[2]  job index <ns>:nexq:jobs
-- KEYS[3]  delivery counts <ns>:nexq:deliveries
-- ARGV[1]  its jid when the lock is to be released ('' otherwise)
-- ARGV[2]  its jid when it is done and leaves the index ('' otherwise)
-- Returns 1 when the lock was released, 0 otherwise.
nexq_expect_type(KEYS[2], 'hash')
nexq_expect_type(KEYS[3], 'hash')
if ARGV[2] ~= '' then
  nexq_forget(KEYS[2], KEYS[3], ARGV[2])
end
if ARGV[1] ~= '' and redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
