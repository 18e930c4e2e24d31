-- batch-add: register members in a batch before they are enqueued (jobs by jid, child batches as
-- `batch:<bid>`), and/or hold it open while its producer adds them, creating it on first use.
-- KEYS[1]   the batch's hash <ns>:nexq:batch:<bid>
-- KEYS[2]   its pending set (members not succeeded yet)
-- KEYS[3]   its failed set, KEYS[4] its dead set (their expiry is refreshed with the others)
-- ARGV[1]   a hold token ('' for none): while any is held the batch cannot complete
-- ARGV[2]   n, the number of field/value pairs that follow, set only when absent (creation)
-- ARGV[3..] the n pairs, then the members to add
-- Returns 1, or 0 for a batch that does not exist and is given no fields (expired, or a typo).
-- The cluster rule (_prelude.lua): it only adds (HSETNX, HINCRBY, SADD, EXPIRE by a positive ttl).
nexq_expect_type(KEYS[1], 'hash')
nexq_expect_type(KEYS[2], 'set')
local n = tonumber(ARGV[2])
if n == 0 and redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
for i = 3, 2 + 2 * n, 2 do
  redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[i + 1])
end
if ARGV[1] ~= '' and redis.call('HSETNX', KEYS[1], 'hold:' .. ARGV[1], '1') == 1 then
  redis.call('HINCRBY', KEYS[1], 'open', 1)
end
local jobs, children = 0, 0
for i = 3 + 2 * n, #ARGV do
  if redis.call('SADD', KEYS[2], ARGV[i]) == 1 then
    if string.sub(ARGV[i], 1, 6) == 'batch:' then children = children + 1 else jobs = jobs + 1 end
  end
end
if jobs > 0 then redis.call('HINCRBY', KEYS[1], 'total', jobs) end
if children > 0 then redis.call('HINCRBY', KEYS[1], 'children', children) end
local ttl = tonumber(redis.call('HGET', KEYS[1], 'ttl') or '2592000')
for i = 1, 4 do redis.call('EXPIRE', KEYS[i], ttl) end
return 1
