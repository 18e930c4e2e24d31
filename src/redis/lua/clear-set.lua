-- clear-set: empty a schedule, retry or dead set and forget its jobs in the job index, atomically.
-- KEYS[1]  the sorted set
-- KEYS[2]  job index <ns>:nexq:jobs
-- KEYS[3]  delivery counts <ns>:nexq:deliveries
-- ARGV[1]  the set's name in the index: schedule, retry or dead
-- Returns how many entries the set held.
nexq_expect_type(KEYS[1], 'zset')
nexq_expect_type(KEYS[2], 'hash')
nexq_expect_type(KEYS[3], 'hash')
local here = ARGV[1] .. '\t'
local count = redis.call('ZCARD', KEYS[1])
for start = 0, count - 1, 1000 do
  for _, member in ipairs(redis.call('ZRANGE', KEYS[1], start, start + 999)) do
    local jid = nexq_jid_of(member)
    if jid and string.sub(redis.call('HGET', KEYS[2], jid) or '', 1, #here) == here then
      nexq_forget(KEYS[2], KEYS[3], jid)
    end
  end
end
redis.call('DEL', KEYS[1])
return count
