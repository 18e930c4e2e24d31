-- clear-queue: empty a queue's list and forget its waiting jobs in the job index, atomically.
-- Jobs already fetched (in backup lists) are not in the list and are not touched.
-- KEYS[1]  the queue's list <ns>:queue:<q>
-- KEYS[2]  job index <ns>:nexq:jobs
-- Returns { how many jobs the list held, { unique_key, jid, ... } of the unique jobs it held }: the
-- caller lets go of their locks (lock keys are built outside, where every key a script writes is).
nexq_expect_type(KEYS[1], 'list')
local count = redis.call('LLEN', KEYS[1])
local members, locks = {}, {}
for start = 0, count - 1, 1000 do
  for _, member in ipairs(redis.call('LRANGE', KEYS[1], start, start + 999)) do
    members[#members + 1] = member
  end
end
redis.call('DEL', KEYS[1])
for _, member in ipairs(members) do
  local jid, job = nexq_jid_of(member)
  if jid and nexq_entry_in(redis.pcall('HGET', KEYS[2], jid), 'queued') then
    nexq_forget(KEYS[2], jid)
  end
  if jid and type(job.unique_key) == 'string' then
    locks[#locks + 1] = job.unique_key
    locks[#locks + 1] = jid
  end
end
return { count, locks }
