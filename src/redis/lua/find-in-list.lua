-- find-in-list: the element of one list whose jid is ARGV[1], searched inside Redis (the job index
-- names the list, so one list is read, never all of them), a bounded stretch per call: a search
-- through a queue of a million jobs would otherwise hold Redis for a second, every node's fetches
-- and beats behind it (findInList, move-scripts.ts, calls again from where this call stopped).
-- KEYS[1]  the list (a queue or a backup list)
-- ARGV[1]  the jid
-- ARGV[2]  the index to start at, from the left (the newest end: a push there moves the jobs not
--          read yet further right, so the next call reads some again and skips none; a fetch takes
--          from the right, where the search has not been)
-- ARGV[3]  how many elements to read at most
-- Returns the raw job; or, when it read ARGV[3] elements and the list goes on, the index the next
-- call starts at (a number); or nil when the list holds no job with that jid.
-- The cluster rule (_prelude.lua): it only reads.
local start, most = tonumber(ARGV[2]), tonumber(ARGV[3])
local length = redis.call('LLEN', KEYS[1])
local stop = math.min(length, start + most) - 1
-- A cheap filter first: the jid as JSON writes it (escapes included), then the decoded value.
local needle = cjson.encode(ARGV[1])
for from = start, stop, 1000 do
  for _, raw in ipairs(redis.call('LRANGE', KEYS[1], from, math.min(from + 999, stop))) do
    if string.find(raw, needle, 1, true) and nexq_jid_of(raw) == ARGV[1] then
      return raw
    end
  end
end
if stop < length - 1 then return stop + 1 end
return nil
