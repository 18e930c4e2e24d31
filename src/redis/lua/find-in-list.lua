-- find-in-list: the element of one list whose jid is ARGV[1], searched inside Redis (the job index
-- names the list, so one list is read, never all of them).
-- KEYS[1]  the list (a queue or a backup list)
-- ARGV[1]  the jid
-- Returns the raw job, or nil when the list holds no job with that jid.
-- The cluster rule (_prelude.lua): it only reads.
local length = redis.call('LLEN', KEYS[1])
-- A cheap filter first: the jid as JSON writes it (escapes included), then the decoded value.
local needle = cjson.encode(ARGV[1])
for start = 0, length - 1, 1000 do
  for _, raw in ipairs(redis.call('LRANGE', KEYS[1], start, start + 999)) do
    if string.find(raw, needle, 1, true) and nexq_jid_of(raw) == ARGV[1] then
      return raw
    end
  end
end
return nil
