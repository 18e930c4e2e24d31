-- group-activity: what the groups view (src/admin/groups.ts) reads of some groups of a fair queue
-- besides their counts: the jobs of each the fetch took in the last ARGV[1] minutes (the current
-- minute by Redis' clock and those before it, as _fair.lua's nexq_count_starts counts them), and
-- whether its rate (groupRateLimit) lets no job start now. Reads only.
-- KEYS[1]   the prefix of the queue's per-minute start counts (<starts>:<minute>, group -> jobs)
-- KEYS[2]   the prefix of its groups' rate keys (<rate>:<group>)
-- ARGV[1]   minutes to add up   ARGV[2]  the groupRateLimit's spec ('' none: no rate is read)
-- ARGV[3..] the groups (at most some thousands: they are unpacked into one HMGET per minute)
-- Returns { started, full }: started[k] the jobs of the kth group taken, full[k] 1 when its rate has
-- no room now (or it is throttled), else 0. The hashes and rate keys are not in KEYS (no call could
-- name them all; they share the queue's hash tag), so each read is guarded: a key of the wrong type
-- adds nothing and says nothing is full.
local minutes, spec = tonumber(ARGV[1]) or 0, ARGV[2]
local groups, started, full = {}, {}, {}
for k = 3, #ARGV do
  groups[#groups + 1] = ARGV[k]
  started[#groups], full[#groups] = 0, 0
end
if #groups == 0 then return { started, full } end
local now = nexq_now_ms()
local minute = math.floor(now / 60000)
for m = minute - minutes + 1, minute do
  local counts = redis.pcall('HMGET', KEYS[1] .. ':' .. string.format('%d', m), unpack(groups))
  if not counts.err then
    for k = 1, #groups do started[k] = started[k] + (tonumber(counts[k]) or 0) end
  end
end
if spec ~= '' then
  for k, group in ipairs(groups) do
    local ok, rate = pcall(nexq_rate, KEYS[2] .. ':' .. group, spec, now)
    if ok and not rate.err and nexq_rate_room(rate) <= 0 then full[k] = 1 end
  end
end
return { started, full }
