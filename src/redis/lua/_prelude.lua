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

-- Rate limits and pauses (fetch.lua, throttle.lua; docs/rate-limits.md), by Redis' TIME (the
-- scripts replicate their effects). A rate key is a sorted set scored in Redis ms:
--   <start>:<n>  one member per job started at <start> (the n-th counted in the window then),
--                scored when it leaves the window (start + P). A strict limit of L per P (the
--                default) lets a job start while fewer than L members score ahead of now, so no
--                window of P ever holds more than L starts. Members are added as jobs start and
--                those gone out of the window removed then: at most L stay, whatever the traffic.
--   tat          under a burst of B (GCRA), scored minus the theoretical arrival time: one job per
--                T = P/L, with a tolerance (B - 1) * T that lets B start at once after a pause.
--   pause        scored minus when a handler's pause ends (throttle.lua): nothing starts before.
-- The two marks score below zero, so the window's counts and trims, over scores >= 0, never see
-- them. A limit's spec, as its callers pass it: '' (none: pauses only), 'L:P' (strict) or
-- 'L:P:B' (a burst of B), P in ms. Reads cost two commands and a save O(jobs counted), never O(L).
local function nexq_now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- A score (Redis ms, maybe fractional) as text, exact to the microsecond.
local function nexq_score(ms)
  return string.format('%.3f', ms)
end

-- A rate as read from `key` under `spec` at `now`: { key, now, limit, per, burst, count (jobs in
-- the window), pause (ms when it ends, 0 none), taken (jobs counted since), err (the key is not a
-- rate's: no job may start, the caller reports err) }.
local function nexq_rate(key, spec, now)
  local limit, per, burst = string.match(spec or '', '^(%d+):([%d.]+):?(%d*)$')
  local r = { key = key, now = now, limit = tonumber(limit), per = tonumber(per), burst = tonumber(burst) }
  r.count, r.pause, r.taken = 0, 0, 0
  local marks = redis.pcall('ZMSCORE', key, 'pause', 'tat')
  if marks.err then
    r.err = marks.err
    return r
  end
  r.pause = -(tonumber(marks[1]) or 0)
  if r.limit and r.burst then
    r.T = r.per / r.limit
    r.tau = (r.burst - 1) * r.T
    r.tat = math.max(-(tonumber(marks[2]) or 0), now)
  elseif r.limit then
    r.count = redis.call('ZCOUNT', key, '(' .. nexq_score(now), '+inf')
  end
  return r
end

-- Under a burst: the theoretical arrival time once the jobs counted so far started.
local function nexq_rate_tat(r)
  return r.tat + r.taken * r.T
end

-- How many more jobs may start now (math.huge: no limit and no pause).
local function nexq_rate_room(r)
  if r.err or r.pause > r.now then return 0 end
  if not r.limit then return math.huge end
  local room
  if r.burst then
    room = math.floor((r.now + r.tau - nexq_rate_tat(r)) / r.T + 1e-9) + 1
  else
    room = r.limit - r.count - r.taken
  end
  return room > 0 and room or 0
end

-- Ms until one more job may start (0: now, or never known: a broken key). Strict: when the
-- member `over` places into the window leaves it, `over` being how many must leave before one
-- more fits, less one (the jobs counted now leave last, at now + P).
local function nexq_rate_opens_in(r)
  if r.err then return 0 end
  local at = r.now
  if r.limit and r.burst then
    at = nexq_rate_tat(r) - r.tau
  elseif r.limit then
    local over = r.count + r.taken - r.limit
    if over >= r.count then
      at = r.now + r.per
    elseif over >= 0 then
      local first = redis.call('ZRANGEBYSCORE', r.key, '(' .. nexq_score(r.now), '+inf', 'WITHSCORES', 'LIMIT', over, 1)
      at = tonumber(first[2]) or r.now
    end
  end
  return math.max(0, math.ceil(math.max(at, r.pause) - r.now))
end

-- Records the jobs counted (r.taken) in `key` (r.key by default): strict, one member each, added
-- before the members gone out of the window are trimmed (so the trim never empties the key: the
-- cluster rule); under a burst, the new TAT. The key then expires when it holds nothing back.
local function nexq_rate_save(r, key)
  if r.taken == 0 or not r.limit or r.err then return end
  key = key or r.key
  local last
  if r.burst then
    last = nexq_rate_tat(r)
    redis.call('ZADD', key, nexq_score(-last), 'tat')
  else
    last = r.now + r.per
    local score, start, members = nexq_score(last), string.format('%d', r.now), {}
    for k = 1, r.taken do
      members[#members + 1] = score
      members[#members + 1] = start .. ':' .. (r.count + k)
      if #members == 2000 or k == r.taken then
        redis.call('ZADD', key, unpack(members))
        members = {}
      end
    end
    redis.call('ZREMRANGEBYSCORE', key, 0, nexq_score(r.now))
  end
  redis.call('PEXPIRE', key, math.ceil(math.max(last, r.pause) - r.now) + 1)
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

-- Puts every job of the backup list `backup` back at the consumer end of `queue`, head (newest)
-- first, so the oldest is next in line as it was; records each in `index` as queued in `name`, and
-- when any moved adds `name` to `queuesSet` (when given) and wakes the queue. The length is read
-- first and that many jobs moved: no LMOVE names the list once it is empty (rule 2). Returns how many.
local function nexq_requeue_all(backup, queue, index, queuesSet, name)
  local where = 'queued\t' .. name
  local n = redis.call('LLEN', backup)
  for _ = 1, n do
    nexq_index(index, nexq_jid_of(redis.call('LMOVE', backup, queue, 'LEFT', 'RIGHT')), where)
  end
  if n > 0 then
    if queuesSet then redis.call('SADD', queuesSet, name) end
    nexq_wake(queue)
  end
  return n
end
