-- clear-set: empty a schedule, retry or dead set, or a queue's list, and forget its jobs in the job
-- index, atomically. Jobs a node already fetched (its backup lists) are not touched.
-- KEYS[1]  the sorted set, or the queue's list <ns>:queue:<q>
-- KEYS[2]  job index <ns>:nexq:jobs
-- ARGV[1]  the jobs' state in the index: schedule, retry or dead (a sorted set), queued (a list)
-- Returns { how many entries the set held, { unique_key, jid, ... } of the unique jobs it held }: the
-- caller lets go of their locks (lock keys are built outside, where every key a script writes is).
local list = ARGV[1] == 'queued'
nexq_expect_type(KEYS[1], list and 'list' or 'zset')
local count = redis.call(list and 'LLEN' or 'ZCARD', KEYS[1])
local members, locks = {}, {}
for start = 0, count - 1, 1000 do
  for _, member in ipairs(redis.call(list and 'LRANGE' or 'ZRANGE', KEYS[1], start, start + 999)) do
    members[#members + 1] = member
  end
end
redis.call('DEL', KEYS[1])
for _, member in ipairs(members) do
  local jid, job = nexq_jid_of(member)
  if jid and nexq_entry_in(redis.pcall('HGET', KEYS[2], jid), ARGV[1]) then
    nexq_forget(KEYS[2], jid)
  end
  if jid and type(job.unique_key) == 'string' then
    locks[#locks + 1] = job.unique_key
    locks[#locks + 1] = jid
  end
end
return { count, locks }
