-- ack-batch: acks of plain jobs (no unique lock, no running slot) collected over one turn of the
-- node's event loop: take each off its backup list and forget it in the job index, in one call.
-- KEYS[1]    job index <ns>:nexq:jobs
-- KEYS[1+i]  backup list job i was fetched into (i = 1..n)
-- KEYS[1+n+i] the processed counter of job i's queue <ns>:nexq:processed:<q> (`nexq drain`)
-- ARGV[2i-1] job i exactly as fetched
-- ARGV[2i]   its jid ('' when unreadable)
-- Returns per job 1 when acked, 0 when it was no longer in its backup list, or the error of a
-- broken backup key (that job alone; the others are acked).
-- Two or more jobs of one backup list leave it in two to four commands, whatever their number:
-- the fetch pushes new jobs at the list's head, so the jobs acked are mostly among its oldest
-- entries (its tail). A window of the tail is read, the acked jobs in it are cut out and the
-- others after the first cut pushed back in their order. Jobs not in the window are taken off
-- with one LREM each, as is the job of a list with only one ack.
-- The cluster rule (_prelude.lua): a list is named again after a removal only while it is known to
-- hold entries. One entry more than the window is read: when it is there, the list goes on ahead
-- of the window and keeps it, so neither the cut nor the LREMs after it can empty the list (the
-- window holds 4 entries per ack and 16 more); when it is not, the window is the whole list, so an
-- ack not found in it is 0 at once, and a cut of all of it pushes before it trims
-- (nexq_replace_tail). A list of one ack gets one LREM, its only command. Each counter gets one
-- INCRBY (it only grows). The index is written once, last.
local results, done = {}, {}
local n = #ARGV / 2

-- Takes job i off its backup list with LREM (the occurrence nearest the head, as any would do).
local function remove_one(i)
  local removed = redis.pcall('LREM', KEYS[1 + i], 1, ARGV[2 * i - 1])
  results[i] = type(removed) == 'table' and removed.err or removed
end

-- Cuts the jobs `members` (indexes into KEYS/ARGV) out of the tail of the backup list `key`;
-- returns those that were not in the window read (and may be further up the list).
local function cut_from_tail(key, members)
  local size = 4 * #members + 16
  local read = redis.pcall('LRANGE', key, -(size + 1), -1)
  if read.err then
    for _, i in ipairs(members) do results[i] = read.err end
    return {}
  end
  local whole = #read <= size
  local wanted, cut = {}, {}
  for _, i in ipairs(members) do wanted[ARGV[2 * i - 1]] = (wanted[ARGV[2 * i - 1]] or 0) + 1 end
  local first, kept = nil, {}
  for p = whole and 1 or 2, #read do
    local raw = read[p]
    if (wanted[raw] or 0) > 0 then
      wanted[raw], cut[raw] = wanted[raw] - 1, (cut[raw] or 0) + 1
      first = first or p
    elseif first then
      kept[#kept + 1] = raw
    end
  end
  -- Keeps everything before the first cut (nothing when it is the list's first entry).
  if first then nexq_replace_tail(key, #read - first + 1, kept, first == 1) end
  local rest = {}
  for _, i in ipairs(members) do
    local raw = ARGV[2 * i - 1]
    if (cut[raw] or 0) > 0 then
      cut[raw], results[i] = cut[raw] - 1, 1
    elseif whole then
      results[i] = 0
    else
      rest[#rest + 1] = i
    end
  end
  return rest
end

-- The jobs of each backup list, in the order given.
local lists, keys = {}, {}
for i = 1, n do
  local key = KEYS[1 + i]
  if not lists[key] then lists[key], keys[#keys + 1] = {}, key end
  local members = lists[key]
  members[#members + 1] = i
end
for _, key in ipairs(keys) do
  local rest = lists[key]
  if #rest >= 2 then rest = cut_from_tail(key, rest) end
  for _, i in ipairs(rest) do remove_one(i) end
end

-- The acked jobs count as processed, in the same call that took them off their backup lists.
local counts, counters = {}, {}
for i = 1, n do
  if results[i] == 1 then
    local counter = KEYS[1 + n + i]
    if not counts[counter] then counts[counter], counters[#counters + 1] = 0, counter end
    counts[counter] = counts[counter] + 1
  end
end
for _, counter in ipairs(counters) do redis.pcall('INCRBY', counter, counts[counter]) end

-- The acked jobs leave the index in one HDEL (one command per batch, not per job).
for i = 1, n do
  if results[i] == 1 and ARGV[2 * i] ~= '' then done[#done + 1] = ARGV[2 * i] end
end
nexq_hdel_all(KEYS[1], done)
return results
