-- sweep-index: forgets the index entries that say "queued" in one queue although their job is in
-- none of the keys it could be in: the queue, or the schedule, retry and dead sets. Another system
-- (Sidekiq, Exq) took the job off the queue without telling the index (docs/compatibility.md, "A
-- mixed fleet"); nexq's own moves always rewrite the entry.
-- KEYS[1]  job index <ns>:nexq:jobs (the queue's own in the per-queue layout)
-- KEYS[2]  the queue <ns>:queue:<q>
-- KEYS[3..5] the schedule, retry and dead sets that hold <q>'s jobs
-- ARGV[1]  the most jobs the call reads (the queue and the sets together); above it nothing is read
--          and nothing forgotten
-- ARGV[2..] jid, entry, jid, entry...: the candidates, each with the entry it was seen under
-- Returns the number of entries forgotten, or -1 when the keys held more jobs than ARGV[1].
-- A candidate is kept when its entry changed since it was seen (the job moved: its new entry is
-- true), when its jid appears as a "jid" value in any job of those keys (nested ones included,
-- which only keeps more), and when its jid is one JSON would escape (the match below compares
-- plain text). The whole check and the HDEL are one atomic step, so a job that enters its queue
-- meanwhile is either seen or rewrites the entry first.
-- The cluster rule (_prelude.lua): it reads, then the index's HDEL is the call's only write.
local index = KEYS[1]
local candidates = {}
local count = 0
for k = 2, #ARGV - 1, 2 do
  local jid, seen = ARGV[k], ARGV[k + 1]
  local entry = redis.pcall('HGET', index, jid)
  if entry == seen and nexq_entry_in(entry, 'queued') and not string.find(jid, '[^%w%-_.:]') then
    candidates[jid] = true
    count = count + 1
  end
end
if count == 0 then return 0 end

local length = redis.call('LLEN', KEYS[2])
local sizes = {}
local total = length
for i = 3, 5 do
  sizes[i] = redis.call('ZCARD', KEYS[i])
  total = total + sizes[i]
end
if total > tonumber(ARGV[1]) then return -1 end

-- Every "jid" key of each job, nested ones too: a plain find for the key (fast), then its value.
local function keep_present(raws)
  for _, raw in ipairs(raws) do
    local at = string.find(raw, '"jid"', 1, true)
    while at do
      local jid = string.match(raw, '^%s*:%s*"([^"\\]*)"', at + 5)
      if jid then candidates[jid] = nil end
      at = string.find(raw, '"jid"', at + 5, true)
    end
  end
end
for start = 0, length - 1, 1000 do
  keep_present(redis.call('LRANGE', KEYS[2], start, start + 999))
end
for i = 3, 5 do
  for start = 0, sizes[i] - 1, 1000 do
    keep_present(redis.call('ZRANGE', KEYS[i], start, start + 999))
  end
end

local forget = {}
for jid in pairs(candidates) do forget[#forget + 1] = jid end
nexq_hdel_all(index, forget)
return #forget
