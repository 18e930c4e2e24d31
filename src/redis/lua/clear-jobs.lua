-- clear-jobs: empty a queue or a schedule, retry or dead set and forget its jobs in the job index,
-- atomically (for a queue, Sidekiq's Queue#clear: jobs nodes fetched already run on).
-- KEYS[1]  the queue (a list) or the set (a sorted set)
-- KEYS[2]  job index <ns>:nexq:jobs
-- KEYS[3..6] for a queue: its fair keys (keys.ts): the groups' jobs (members <group>\0<seq>\0<job>),
--          their counts, ring and parked groups, emptied with it: a fair queue's jobs wait in its
--          list and its groups
-- ARGV[1]  what the index calls the place: queued (a queue), schedule, retry or dead
-- Returns { how many entries it held, { unique_key, jid, ... } of the unique jobs it held }: the
-- caller lets go of their locks (lock keys are built outside, where every key a script writes is).
-- The cluster rule (_prelude.lua): the DEL is the key's last command, and the index forgets the
-- jobs in one HMGET and one HDEL per thousand, counted (nexq_forget_all).
local isQueue = ARGV[1] == 'queued'
nexq_expect_type(KEYS[1], isQueue and 'list' or 'zset')
local count = redis.call(isQueue and 'LLEN' or 'ZCARD', KEYS[1])
local members, locks = {}, {}
for start = 0, count - 1, 1000 do
  for _, member in ipairs(redis.call(isQueue and 'LRANGE' or 'ZRANGE', KEYS[1], start, start + 999)) do
    members[#members + 1] = member
  end
end
if KEYS[3] then
  nexq_expect_type(KEYS[3], 'zset')
  local grouped = redis.call('ZCARD', KEYS[3])
  for start = 0, grouped - 1, 1000 do
    for _, member in ipairs(redis.call('ZRANGE', KEYS[3], start, start + 999)) do
      local _, after = string.find(member, '^[^%z]*%z[^%z]*%z')
      members[#members + 1] = after and string.sub(member, after + 1) or member
    end
  end
  count = count + grouped
  redis.call('DEL', KEYS[3], KEYS[4], KEYS[5], KEYS[6])
end
redis.call('DEL', KEYS[1])
local jids = {}
for _, member in ipairs(members) do
  local jid, job = nexq_jid_of(member)
  if jid then jids[#jids + 1] = jid end
  if jid and type(job.unique_key) == 'string' then
    locks[#locks + 1] = job.unique_key
    locks[#locks + 1] = jid
  end
end
nexq_forget_all(KEYS[2], jids, ARGV[1])
return { count, locks }
