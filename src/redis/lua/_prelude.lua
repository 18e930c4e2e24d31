-- Prepended to every nexq script (see ../scripts.ts). A Redis script that fails half way keeps
-- what it already wrote, so a script that takes a job from one key and writes it to another
-- checks first that it can write there: a key of the wrong type fails the whole call, unchanged.
--
-- A slot in migration (Redis Cluster resharding; docs/cluster.md, "The rule every script keeps")
-- is the other way to fail half way. Redis runs a script on the slot's source master only while
-- every key in KEYS exists there, on its target only while all of them exist there (or KEYS holds
-- one key); otherwise it answers ASK or TRYAGAIN before the script starts, nothing has changed,
-- and the client sends it again. Then every command of the script is checked the same way: on
-- the source a key the script itself emptied or deleted no longer exists, so it counts as moved,
-- and the command is refused ("Script attempted to access a non local key"): redis.call stops the
-- script there with every write before it kept; under redis.pcall the command is lost. So every
-- script keeps these rules, whatever the layout and whether or not a slot moves:
--   1. It names only keys in KEYS.
--   2. Once a command may have emptied a key (LREM, LPOP/RPOP/LMPOP, LMOVE or RPOPLPUSH from it,
--      LTRIM, HDEL, SREM, SPOP, ZREM, ZPOPMIN/MAX, ZREMRANGEBY*, DEL, UNLINK, GETDEL, an EXPIRE not
--      ahead), no later command of the call names that key, read or write, pcall or not, unless
--      the script knows the key still holds something: it read the length before and counted what
--      it removed, or it added to the key first.
--   3. Every refusal it can see coming comes before its first change (the type checks below), and
--      its first write is one a full Redis does not refuse where it must work then (a removal or
--      EXPIRE, not an add: see beat.lua).
-- Hence: add before removing (push the entries kept before trimming the old ones away: see
-- nexq_replace_tail; HSET the new fields before HDEL of the old), pop a counted number of times
-- rather than until nil (the pop that finds the list gone is refused), and remove fields and
-- members in one command or with a count kept (nexq_hdel_all). Each script's header says how it
-- keeps the rules; docs/cluster.md has them all, and recipes.
local function nexq_expect_type(key, wanted)
  local actual = redis.call('TYPE', key).ok
  if actual ~= 'none' and actual ~= wanted then
    error({ err = 'WRONGTYPE nexq: ' .. key .. ' holds a ' .. actual .. ', not a ' .. wanted })
  end
end

-- The job index (<ns>:nexq:jobs, jid -> where) holds one tab-separated entry per job, its delivery
-- count first: <deliveries>\t<location>, the location being one of
--   queued\tqueue | running\tqueue\tnode | taken\tqueue\tnode | schedule\tscore | retry\tscore | dead\tscore
-- where `taken` is an at-most-once job running off its backup list (taken by ack.lua's 'keep').
-- The index only describes where jobs are: its writes come after a job's move and use pcall, so a
-- broken index key leaves an entry stale but never fails or splits the move itself.

-- The jid of a raw job (and the decoded job), or nil when it cannot be read (it is not indexed).
local function nexq_jid_of(raw)
  local ok, job = pcall(cjson.decode, raw)
  if ok and type(job) == 'table' and type(job.jid) == 'string' and job.jid ~= '' then
    return job.jid, job
  end
  return nil
end

-- The delivery count at the head of an index entry ('0' for none).
local function nexq_deliveries(entry)
  return type(entry) == 'string' and string.match(entry, '^(%d+)\t') or '0'
end

-- True when an index entry says its job is in `state` (schedule, retry, dead, ...).
local function nexq_entry_in(entry, state)
  return type(entry) == 'string' and string.match(entry, '^%d+\t([a-z]+)') == state
end

-- True when `jid` is an at-most-once job this step may still finish: its entry says taken (or the
-- index cannot be read, and the step goes ahead as it would without an index). A step retried
-- after its first try landed (its reply lost) finds the entry changed and does nothing twice.
local function nexq_still_taken(index, jid)
  local entry = redis.pcall('HGET', index, jid)
  return type(entry) == 'table' or nexq_entry_in(entry, 'taken')
end

-- Records where `jid` is now, keeping its delivery count (a nil or '' jid is not indexed).
local function nexq_index(index, jid, location)
  if not jid or jid == '' then return end
  local entry = redis.pcall('HGET', index, jid)
  if type(entry) == 'table' then return end
  redis.pcall('HSET', index, jid, nexq_deliveries(entry) .. '\t' .. location)
end

-- Records a new job: no delivery yet.
local function nexq_index_new(index, jid, location)
  if jid and jid ~= '' then
    redis.pcall('HSET', index, jid, '0\t' .. location)
  end
end

-- Forgets a job that is done.
local function nexq_forget(index, jid)
  if jid and jid ~= '' then
    redis.pcall('HDEL', index, jid)
  end
end

-- HDELs `fields` from the hash `key` (under pcall: it is the job index) a thousand at a time. With
-- more than one command, it counts what is left (HLEN first) and sends no more once the hash is
-- empty: it no longer exists then, and a slot in migration refuses any command on it (rule 2).
local function nexq_hdel_all(key, fields)
  if #fields == 0 then return end
  local left = #fields > 1000 and redis.pcall('HLEN', key) or math.huge
  for first = 1, #fields, 1000 do
    if type(left) ~= 'number' or left <= 0 then return end
    local removed = redis.pcall('HDEL', key, unpack(fields, first, math.min(first + 999, #fields)))
    if type(removed) ~= 'number' then return end
    left = left - removed
  end
end

-- Forgets the jobs `jids` (none '') in the job index: those whose entry says `state`, or all of them
-- without one. One HMGET and one HDEL per thousand, the index's last commands of the call.
local function nexq_forget_all(index, jids, state)
  local forget = jids
  if state then
    forget = {}
    for first = 1, #jids, 1000 do
      local entries = redis.pcall('HMGET', index, unpack(jids, first, math.min(first + 999, #jids)))
      if entries.err then return end
      for k, entry in ipairs(entries) do
        if nexq_entry_in(entry, state) then forget[#forget + 1] = jids[first + k - 1] end
      end
    end
  end
  nexq_hdel_all(index, forget)
end

-- The jobs a running hash (node -> count) counts on every node, or nil and why it cannot be used.
-- `node`'s own count must be an integer: an HINCRBY after a move would fail half way otherwise.
local function nexq_running_total(hash, node)
  local fields = redis.pcall('HGETALL', hash)
  if fields.err then return nil, fields.err end
  local total = 0
  for k = 1, #fields, 2 do
    local count = tonumber(fields[k + 1])
    if fields[k] == node and not (count and count == math.floor(count)) then
      return nil, 'NEXQ_BADCOUNT ' .. hash .. ' holds ' .. fields[k + 1] .. ' for this node, not an integer'
    end
    total = total + (count or 0)
  end
  return total
end

-- Checks, before anything moves, that every running hash KEYS[first..] is a hash (or absent), so
-- giving the slots back cannot fail half way.
local function nexq_expect_slots(first)
  for i = first, #KEYS do
    nexq_expect_type(KEYS[i], 'hash')
  end
end

-- Gives back one running slot of `node` in each hash KEYS[first..]: a queue's or a class's limit
-- across nodes (see fetch.lua).
local function nexq_release_slots(first, node)
  if node == '' then return end
  for i = first, #KEYS do
    if redis.call('HINCRBY', KEYS[i], node, -1) <= 0 then
      redis.call('HDEL', KEYS[i], node)
    end
  end
end

-- Counts a job of the queue as processed for `nexq drain`: INCR of KEYS[counter] unless it names
-- KEYS[other] again (the step does not count). Called by the script that takes the job off its
-- backup list (or ends a taken job), so the count and the backup lists never disagree. An add that
-- only grows the key; pcall: a broken counter loses a count, never splits the move.
local function nexq_count_processed(counter, other)
  if KEYS[counter] ~= KEYS[other] then redis.pcall('INCR', KEYS[counter]) end
end

-- RPUSHes `values` onto `key` a thousand at a time, so any number of them fits through unpack.
local function nexq_rpush_all(key, values)
  for first = 1, #values, 1000 do
    redis.call('RPUSH', key, unpack(values, first, math.min(first + 999, #values)))
  end
end

-- Replaces the last `count` entries of the list `key` with `kept`, in their order; `all`: those
-- entries are the whole list. Trimming them off first would delete the key when they are all of
-- it, and in a slot in migration Redis then refuses the push back (rule 2): so then one entry is
-- kept while the others are pushed, and popped after. A trim comes first either way: Redis at
-- maxmemory refuses a script's first write when it adds (see beat.lua), not when it removes.
-- Returns true when the list is gone (`all` of it went and nothing is kept).
local function nexq_replace_tail(key, count, kept, all)
  if not all then
    redis.call('LTRIM', key, 0, -(count + 1))
    nexq_rpush_all(key, kept)
    return false
  end
  if #kept == 0 then
    redis.call('DEL', key)
    return true
  end
  redis.call('LTRIM', key, 0, 0)
  nexq_rpush_all(key, kept)
  redis.call('LPOP', key)
  return false
end

-- Rate limits and pauses (fetch.lua, throttle.lua; docs/rate-limits.md), by GCRA: a limit of L jobs
-- per P ms lets one start every T = P/L ms, with a tolerance tau = P - T that allows a burst of L.
-- Its whole state is one number in a string key, the theoretical arrival time (TAT, Redis ms). A
-- pause of S ms sets the TAT to now + S + tau, so the next job starts at now + S; a queue without a
-- limit (T nil, tau 0) is paused the same way. Redis' TIME: the scripts replicate their effects.
local function nexq_now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- A rate as read from its key: { tat, T (nil: no limit, only pauses), tau, taken (jobs counted) }.
local function nexq_rate(stored, T, tau, now)
  local tat = tonumber(stored) or 0
  if tat < now then tat = now end
  return { tat = tat, T = T, tau = tau or 0, taken = 0, now = now }
end

-- The TAT once the jobs counted so far started.
local function nexq_rate_tat(r)
  return r.tat + r.taken * (r.T or 0)
end

-- How many more jobs may start now (math.huge: no limit and no pause).
local function nexq_rate_room(r)
  local tat = nexq_rate_tat(r)
  if r.T == nil then return tat > r.now and 0 or math.huge end
  local room = math.floor((r.now + r.tau - tat) / r.T + 1e-9) + 1
  return room > 0 and room or 0
end

-- Ms until one more job may start (0: now).
local function nexq_rate_opens_in(r)
  return math.max(0, math.ceil(nexq_rate_tat(r) - r.tau - r.now))
end

-- Stores the TAT after the jobs counted, expiring when it no longer holds anything back.
local function nexq_rate_save(r, key)
  if r.taken == 0 or r.T == nil then return end
  local tat = nexq_rate_tat(r)
  redis.call('SET', key, string.format('%.3f', tat), 'PX', math.ceil(tat - r.now) + 1)
end

-- Wakes the nodes idle on the queue `queueKey` just received jobs in (src/fetch/wake-signals.ts):
-- PUBLISH names no key, so it keeps every script in one slot, and every node hears it (a list
-- token would wake one node, maybe one not serving the queue). The channel is the queue key's text
-- before its first 'queue:' followed by 'nexq:wake', the rule Keys#wakeChannel applies too.
-- A lost message only delays a job until the node's idle poll.
local function nexq_wake(queueKey)
  local at = string.find(queueKey, 'queue:', 1, true)
  if at then redis.call('PUBLISH', string.sub(queueKey, 1, at - 1) .. 'nexq:wake', queueKey) end
end
