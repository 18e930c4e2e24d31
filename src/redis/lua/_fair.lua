-- Fair queues (docs/fair-queues.md), prepended to the scripts that read them after _prelude.lua.
-- A queue configured `fair: true` serves its jobs' groups in turn. Its list stays the inbox every
-- producer pushes into (nexq, Sidekiq, Exq alike); a fetch first moves a bounded number of the
-- inbox's oldest jobs into the waiting groups, then takes jobs group by group. Keys (keys.ts, all in
-- the queue's slot), given as f = { inbox, jobs, groups, ring, seq }:
--   jobs    sorted set, every score 0, members <group>\0<seq, 15 digits>\0<raw job>: ZRANGEBYLEX
--           reads a group's oldest jobs first ('' is the default group)
--   groups  hash group -> its jobs in `jobs`
--   ring    list of the groups with jobs, each once, the next to serve at the left
--   seq     string, the last sequence number given
--   parked  list of groups a fetch found at their groupConcurrency, out of the ring (nexq_fair_recheck)
-- A job is in the inbox, in `jobs`, or (taken) in a backup list: each move is one atomic script.
-- A group is in the ring while it has jobs in `jobs`, unless paused or parked (at its
-- groupConcurrency). A fetch reads the ring from the left as far as it needs, and at most
-- FAIR_SKIP parked groups: its cost grows with the jobs it takes and the groups it passes over,
-- never with the number of groups. Every write comes after every check (types, counts).

-- The fair queues of a fetch of `n` queues (fetch.lua): ARGV's last 2n values, 2 per queue, say
-- which are ('' not; '-' fair; a number: fair, with that groupConcurrency) and their groupRateLimit
-- (its spec, as a queue's: _prelude.lua; '' none), and their keys follow KEYS[after], 9 each.
-- Returns queue index -> f (`inbox(i)`: the queue's list). f.running and f.rate are the prefixes of
-- its groups' running hashes (<running>:<group>, node -> jobs of the group running there) and rate
-- keys (<rate>:<group>, held by the nexq_rate* functions), f.starts that of its per-minute start
-- counts (<starts>:<minute>, group -> jobs taken), in the queue's slot by its hash tag. A
-- fetch names only the keys of the groups it visits: they are not in KEYS (no script could list
-- them all), so every command on them is a pcall, and a group whose keys cannot be read counts as
-- full: the call never stops half way for one of them.
local function nexq_fair_queues(n, after, inbox)
  local fairs = {}
  for i = 1, n do
    local at = #ARGV - 2 * n + 2 * i - 1
    if ARGV[at] ~= '' then
      local function k(o) return KEYS[after + o] end
      local f = { inbox = inbox(i), jobs = k(1), groups = k(2), ring = k(3), seq = k(4), running = k(5), rate = k(6),
        paused = k(7), starts = k(8), parked = k(9) }
      f.limit, f.spec = tonumber(ARGV[at]), ARGV[at + 1] ~= '' and ARGV[at + 1] or nil
      fairs[i] = f
      after = after + 9
    end
  end
  return fairs
end

-- A group's state in this fetch: jobs running on all nodes (f.limit) and its rate (f.T), as read.
local function nexq_group_state(f, node, group, now)
  local g = { used = 0, taken = 0 }
  if f.limit then g.used = nexq_running_total(f.running .. ':' .. group, node) or f.limit end
  if f.spec then
    -- nexq_rate reads the key under pcall (a refused read sets err: no room); guarded once more.
    local ok, rate = pcall(nexq_rate, f.rate .. ':' .. group, f.spec, now)
    if ok then g.rate = rate else g.used = f.limit or math.huge end
  end
  return g
end

-- Wraps a fetch's `admit` with the groups' limits across nodes: a group with f.limit jobs running
-- on all nodes, or no room left in its rate, is passed over. Returns the wrapper, a function
-- that counts, once they moved, the jobs taken in each group's running hash (for this node) and rate,
-- and one that says whether a group visited is at its groupConcurrency now (counting those taken).
local function nexq_group_admit(f, node, admit)
  if not f.limit and not f.spec then return admit, function() end, function() return false end end
  local groups, now = {}, nexq_now_ms()
  local function wrapped(raw, group)
    local g = groups[group] or nexq_group_state(f, node, group, now)
    groups[group] = g
    if (f.limit and g.used + g.taken >= f.limit) or g.used == math.huge then return false end
    if g.rate and nexq_rate_room(g.rate) <= 0 then return false end
    if not admit(raw) then return false end
    g.taken = g.taken + 1
    if g.rate then g.rate.taken = g.rate.taken + 1 end
    return true
  end
  local function count()
    for group, g in pairs(groups) do
      if g.taken > 0 and f.limit then redis.pcall('HINCRBY', f.running .. ':' .. group, node, g.taken) end
      if g.rate then pcall(nexq_rate_save, g.rate, f.rate .. ':' .. group) end
    end
  end
  local function full(group)
    local g = groups[group]
    return f.limit ~= nil and g ~= nil and g.used + g.taken >= f.limit
  end
  return wrapped, count, full
end

-- Inbox jobs moved into their groups per fetch: enough that groups enqueued behind a long run of
-- one group's jobs get their turn soon, few enough that one fetch stays short.
local FAIR_FEED = 1000
-- Groups a fetch passes over in a row at most (their limits full) before it ends, and parked groups
-- it looks at again at most.
local FAIR_SKIP = 200

-- The group of a raw job: its top-level "group" when a valid name (what enqueue checks: a string
-- of 1 to 200 characters, so up to 800 bytes, no control character), else the default group ''.
local function nexq_group_of(raw)
  -- Without the bytes group (nor an escape that could spell them) the job names no group: the
  -- default group, without a decode (most jobs of a queue used without groups). The search is for
  -- group, not "group" with its quotes: a plain find goes from one match of its first byte to the
  -- next, and a job's JSON has a quote every few bytes (a fifth of a W2 feed's Redis time).
  if not string.find(raw, 'group', 1, true) and not string.find(raw, '\\u', 1, true) then return '' end
  local ok, job = pcall(cjson.decode, raw)
  local group = ok and type(job) == 'table' and job.group
  if type(group) ~= 'string' or group == '' or #group > 800 or string.find(group, '%c') then return '' end
  return group
end

-- The 15 digits of sequence number `seq` in a member of `jobs` (<group>\0<seq>\0<raw>), as four
-- strings to concatenate: a function that formats the number above its last three digits once per
-- thousand, and takes those three from a table. A feed builds a thousand members at once, and a
-- string.format per job was a tenth of its Redis time (W2: 20,000 jobs of one group).
local NEXQ_DIGITS = { '0', '1', '2', '3', '4', '5', '6', '7', '8', '9' }
local function nexq_fair_seq_digits()
  local high_of, high = nil, nil
  return function(seq)
    local h = math.floor(seq / 1000)
    local low = seq - h * 1000
    if low < 0 or low > 999 or low ~= math.floor(low) then return string.format('%015d', seq), '', '', '' end
    if h ~= high_of then high_of, high = h, string.format('%012d', h) end
    return high, NEXQ_DIGITS[math.floor(low / 100) + 1], NEXQ_DIGITS[math.floor(low / 10) % 10 + 1], NEXQ_DIGITS[low % 10 + 1]
  end
end

-- The fair queue's sizes as the fetch needs them, read so that a key of the wrong type is told
-- before anything moves (a read of it fails): { inbox, grouped (jobs in groups), ring (its
-- length), seq (the last given, read only when the inbox has jobs) }, or nil and why not.
local function nexq_fair_sizes(f, backup)
  local sizes, reads = {}, { inbox = { 'LLEN', f.inbox }, grouped = { 'ZCARD', f.jobs }, ring = { 'LLEN', f.ring },
    counts = { 'HLEN', f.groups }, paused = { 'SCARD', f.paused }, parked = { 'LLEN', f.parked } }
  for name, read in pairs(reads) do
    local answer = redis.pcall(read[1], read[2])
    if type(answer) == 'table' then return nil, answer.err end
    sizes[name] = answer
  end
  if sizes.inbox > 0 then
    local last = redis.pcall('GET', f.seq)
    if type(last) == 'table' then return nil, last.err end
    sizes.seq = tonumber(last or '0')
    if not sizes.seq then return nil, 'NEXQ_BADSEQ ' .. f.seq .. ' holds ' .. last .. ', not a number' end
  end
  local kind = redis.call('TYPE', backup).ok
  if kind ~= 'none' and kind ~= 'list' then
    return nil, 'WRONGTYPE nexq: ' .. backup .. ' holds a ' .. kind .. ', not a list'
  end
  return sizes
end

-- Moves up to FAIR_FEED of the inbox's oldest jobs into their groups (`sizes`: nexq_fair_sizes');
-- the groups that had no job join the ring at its end, in the order their first job came. Counts
-- them into `sizes` (the inbox's length is read before: the trim may empty it, and then it is not
-- named again).
local function nexq_fair_feed(f, sizes)
  local inbox = sizes.inbox
  if inbox == 0 then return end
  local window = redis.call('LRANGE', f.inbox, -FAIR_FEED, -1)
  local seq = sizes.seq
  local members, added, order = {}, {}, {}
  local digits, m = nexq_fair_seq_digits(), 0
  for k = #window, 1, -1 do
    local raw = window[k]
    local group = nexq_group_of(raw)
    seq = seq + 1
    local high, d1, d2, d3 = digits(seq)
    -- The score as a string: a number would be formatted for Redis once per job.
    members[m + 1], members[m + 2] = '0', group .. '\0' .. high .. d1 .. d2 .. d3 .. '\0' .. raw
    m = m + 2
    local had = added[group]
    if not had then order[#order + 1] = group end
    added[group] = (had or 0) + 1
  end
  local had = redis.call('HMGET', f.groups, unpack(order))
  -- A paused group (fair-pause.lua) keeps its jobs out of the ring until it is resumed.
  local paused = sizes.paused > 0 and redis.call('SMISMEMBER', f.paused, unpack(order)) or {}
  -- The removal first (rule 3); the adds after it cannot be refused.
  redis.call('LTRIM', f.inbox, 0, -(#window + 1))
  for first = 1, #members, 1000 do
    redis.call('ZADD', f.jobs, unpack(members, first, math.min(first + 999, #members)))
  end
  local counts, joining, fresh = {}, {}, 0
  for k, group in ipairs(order) do
    if not had[k] then fresh = fresh + 1 end
    local before = tonumber(had[k]) or 0
    if before <= 0 and paused[k] ~= 1 then joining[#joining + 1] = group end
    counts[#counts + 1] = group
    counts[#counts + 1] = math.max(before, 0) + added[group]
  end
  redis.call('HSET', f.groups, unpack(counts))
  nexq_rpush_all(f.ring, joining)
  redis.call('SET', f.seq, string.format('%d', seq))
  sizes.inbox, sizes.grouped, sizes.ring = inbox - #window, sizes.grouped + #window, sizes.ring + #joining
  sizes.counts = sizes.counts + fresh
end

-- Jobs waiting in a fair queue: in its inbox and in its groups (or Redis' error reply).
local function nexq_fair_waiting(f)
  local inbox, jobs = redis.pcall('LLEN', f.inbox), redis.pcall('ZCARD', f.jobs)
  if type(inbox) == 'table' then return inbox end
  if type(jobs) == 'table' then return jobs end
  return inbox + jobs
end

-- Parked groups: a fetch that finds a group at its groupConcurrency moves it out of the ring to the
-- front of `parked`, so later fetches do not walk it; every fetch looks again at the first
-- FAIR_SKIP of them (before it takes), the latest parked first (most often full for this node's own
-- jobs, which end soon): a group with room again rejoins the ring at its end, one still full goes
-- to the end of `parked`, one without jobs or paused leaves it (its own way back is the feed's, or
-- a resume's). Nothing else has to put a group back (a settle, a recovery, a slot dropped by hand):
-- the fetch reads the running hash as it reads the ring's groups. An entry whose group is in the
-- ring already (a delete of its last job, then a new one fed) is dropped. Once FAIR_RECHECK are
-- looked at and as many groups rejoined as jobs are `wanted`, the fetch has its work and looks no
-- further (a busy queue's fetches are many: the rest come round soon). Its first write trims the
-- head looked at off `parked` (a removal first, rule 3: the adds after it are not refused at
-- maxmemory), keeping one entry (`stale`) when that would empty the list (rule 2: it is written
-- again at the fetch's end). Returns what nexq_fair_park writes then: the groups kept (in order)
-- and the set of them, and `stale`; `sizes.ring` counts the groups that rejoined.
local FAIR_RECHECK = 16
local function nexq_fair_recheck(f, node, sizes, wanted)
  local park = { checked = 0, kept = {}, held = {}, newly = {}, rejoined = {}, shrank = false, stale = false }
  if sizes.parked == 0 then return park end
  -- The head read in two parts: FAIR_RECHECK first, the rest of FAIR_SKIP when the fetch goes on.
  local head, counts, paused = {}, {}, {}
  local function read(from, to)
    local names = redis.call('LRANGE', f.parked, from, to)
    if #names == 0 then return end
    local got = redis.call('HMGET', f.groups, unpack(names))
    local held = sizes.paused > 0 and redis.call('SMISMEMBER', f.paused, unpack(names)) or {}
    for k, group in ipairs(names) do
      local at = #head + 1
      head[at], counts[at], paused[at] = group, got[k], held[k]
    end
  end
  read(0, FAIR_RECHECK - 1)
  local rejoined, joined, back = park.rejoined, 0, {}
  for k = 1, FAIR_SKIP do
    if k > FAIR_RECHECK and joined >= wanted then break end
    if k == FAIR_RECHECK + 1 and #head == FAIR_RECHECK then read(FAIR_RECHECK, FAIR_SKIP - 1) end
    local group = head[k]
    if not group then break end
    park.checked = k
    if (tonumber(counts[k]) or 0) > 0 and paused[k] ~= 1 and not rejoined[group] and not park.held[group] then
      local used = f.limit and (nexq_running_total(f.running .. ':' .. group, node) or f.limit) or 0
      if f.limit and used >= f.limit then
        park.kept[#park.kept + 1], park.held[group] = group, true
      else
        rejoined[group], joined = true, joined + 1
        if not redis.call('LPOS', f.ring, group) then back[#back + 1] = group end
      end
    end
  end
  -- Writes: the head off `parked` first (one entry left when it was the whole list), then the ring.
  park.stale = park.checked == sizes.parked
  redis.call('LTRIM', f.parked, park.stale and park.checked - 1 or park.checked, -1)
  nexq_rpush_all(f.ring, back)
  sizes.ring = sizes.ring + #back
  return park
end

-- Writes a fetch's changes to `parked` (nexq_fair_recheck's `park`, with the groups the take parked
-- in `newly`), after the take's writes: the list (its head trimmed by the recheck) becomes newly ++
-- (what followed the head) ++ kept. The entry the recheck left (`stale`) is overwritten by one
-- parked, or popped once the kept are pushed behind it, so no command but the last can empty it
-- (rule 2: a key emptied, then named again, is refused in a slot in migration).
local function nexq_fair_park(f, park)
  local newly = {}
  for _, group in ipairs(park.newly) do
    if not park.held[group] then newly[#newly + 1] = group end
  end
  nexq_rpush_all(f.parked, park.kept)
  local n = #newly
  if park.stale and n > 0 then
    redis.call('LSET', f.parked, 0, newly[n])
    n = n - 1
  elseif park.stale then
    redis.call('LPOP', f.parked)
  end
  -- LPUSH puts its last value first: the newly parked in their order at the front.
  local front = {}
  for k = n, 1, -1 do front[#front + 1] = newly[k] end
  for first = 1, #front, 1000 do
    redis.call('LPUSH', f.parked, unpack(front, first, math.min(first + 999, #front)))
  end
end

-- Takes up to `wanted` jobs into `backup`, one from each group in turn (the ring's order), pushed as
-- take_oldest pushes (fetch.lua). `admit(raw, group)` says whether a job may start now (and counts
-- it): a group whose next job may not is passed over, its job keeps its place; one at its
-- groupConcurrency (`full`) leaves the ring for `park.newly`. Returns the jobs taken, oldest
-- first, how many are left waiting (inbox and groups), group -> jobs taken of it, and whether it
-- stopped at FAIR_SKIP
-- having parked groups that were in the ring before it (the ring shrank: the next fetch may go on
-- at once, not a poll later; a group its recheck put back and the take parked again, its rate key
-- unreadable, does not count, so no node fetches in a loop).
-- `sizes`: as the feed left them.
local function nexq_fair_take(f, backup, wanted, admit, sizes, full, park)
  local len = sizes.ring
  local ring, took, gone, parked = {}, {}, {}, {}
  local moved, members = {}, {}
  -- The ring's entry at `pos` (1..len), read in chunks as far as the fetch goes.
  local function entry(pos)
    if pos > #ring then
      local chunk = redis.call('LRANGE', f.ring, #ring, math.min(#ring + wanted + 31, len - 1))
      for _, group in ipairs(chunk) do ring[#ring + 1] = group end
    end
    return ring[pos]
  end
  -- Groups passed over in a row end the fetch at FAIR_SKIP (`skipped`), and those left in the ring
  -- (`idle`: a rate or a class holds them) after a whole turn of them: the ring turns past them, so
  -- the next fetch goes on from there, and no fetch reads thousands of full groups.
  -- `quiet`: entries visited in a row whose group is gone or parked already. A whole turn of them
  -- ends the fetch whatever `alive` says: a group in the ring twice counts twice there (nothing
  -- should put it twice, but a fetch must never spin in Redis if something did).
  local visits, idle, skipped, alive, quiet = 0, 0, 0, len, 0
  while #moved < wanted and alive > 0 and idle < math.min(alive, FAIR_SKIP) and skipped < FAIR_SKIP and quiet < len do
    visits = visits + 1
    local group = entry((visits - 1) % len + 1)
    if gone[group] or parked[group] then
      quiet = quiet + 1
    else
      quiet = 0
      -- Its share of what is still wanted (one job, unless fewer groups than jobs wanted are left),
      -- read in one range with one job more, which tells whether the group has jobs left; the
      -- first job that may not start ends the group's turn.
      local t = took[group] or 0
      local share = math.max(1, math.floor((wanted - #moved) / alive))
      local heads = redis.call('ZRANGEBYLEX', f.jobs, '[' .. group .. '\0', '(' .. group .. '\1', 'LIMIT', t, share + 1)
      local before, blocked = #moved, false
      for k = 1, math.min(#heads, share) do
        local raw = string.sub(heads[k], #group + 18)
        if not admit(raw, group) then
          blocked = true
          break
        end
        moved[#moved + 1], members[#members + 1] = raw, heads[k]
      end
      took[group] = t + #moved - before
      if not blocked and #heads <= share then
        gone[group], alive = true, alive - 1
      elseif full(group) then
        parked[group], alive = true, alive - 1
        park.newly[#park.newly + 1] = group
        -- The ring shrank only if the group was in it before this fetch (not put back by its recheck).
        if not park.rejoined[group] then park.shrank = true end
        if #moved == before then skipped = skipped + 1 else idle, skipped = 0, 0 end
      elseif #moved == before then
        idle, skipped = idle + 1, skipped + 1
      else
        idle, skipped = 0, 0
      end
    end
  end
  local left = sizes.inbox + sizes.grouped - #moved
  if visits == 0 then return moved, left, took, false end
  -- Writes: the jobs out of their groups (a removal first), then the ring turned past the groups
  -- served (those emptied leave it), the counts, and the jobs into the backup list.
  for first = 1, #members, 1000 do
    redis.call('ZREM', f.jobs, unpack(members, first, math.min(first + 999, #members)))
  end
  local served, kept = math.min(visits, len), {}
  local from = visits >= len and visits % len or 0
  for k = 1, served do
    local group = ring[(from + k - 1) % len + 1]
    if not gone[group] and not parked[group] then kept[#kept + 1] = group end
  end
  if served == len and from == 0 and #kept == len then
    -- Whole turns of the ring and no group gone from it: the ring is as it was, nothing to write
    -- (a ring of one group, as a queue used without groups has, every fetch).
  elseif served < len then
    redis.call('LTRIM', f.ring, served, -1)
    nexq_rpush_all(f.ring, kept)
  else
    nexq_replace_tail(f.ring, len, kept, true)
  end
  local emptied = {}
  for group, t in pairs(took) do
    if t > 0 and not gone[group] then redis.call('HINCRBY', f.groups, group, -t) end
  end
  for group in pairs(gone) do emptied[#emptied + 1] = group end
  if #emptied > 0 then redis.call('HDEL', f.groups, unpack(emptied)) end
  if #moved > 0 then
    for first = 1, #moved, 1000 do
      redis.call('LPUSH', backup, unpack(moved, first, math.min(first + 999, #moved)))
    end
  end
  return moved, left, took, skipped >= FAIR_SKIP and park.shrank
end

-- nexq_fair_take for a queue whose groups hold one group's jobs alone, in the ring, with nothing
-- that could hold a job back (no group or class limits): the zset's first `wanted` members (by
-- rank) are that group's oldest jobs, so they are read by rank and removed by rank, without
-- sending the long members back to Redis (a queue used without groups, every fetch: issue 34's
-- W2). Returns nil, having written nothing, when a member read is not the group's (the counts
-- hash said one group, the zset holds more): nexq_fair_take then does the turn as always.
local function nexq_fair_take_sole(f, backup, wanted, sizes)
  local group = redis.call('LRANGE', f.ring, 0, 0)[1]
  if not group then return nil end
  local prefix = group .. '\0'
  local heads = redis.call('ZRANGE', f.jobs, 0, wanted)
  local n = math.min(#heads, wanted)
  if n == 0 then return nil end
  for k = 1, n do
    if string.sub(heads[k], 1, #prefix) ~= prefix then return nil end
  end
  local moved = {}
  for k = 1, n do moved[k] = string.sub(heads[k], #prefix + 17) end
  local gone = #heads <= wanted or string.sub(heads[n + 1], 1, #prefix) ~= prefix
  -- Writes as nexq_fair_take's: the jobs out of the group (a removal first), the ring (left alone
  -- while the group has jobs), the counts, the jobs into the backup list.
  redis.call('ZREMRANGEBYRANK', f.jobs, 0, n - 1)
  if gone then
    nexq_replace_tail(f.ring, 1, {}, true)
    redis.call('HDEL', f.groups, group)
  else
    redis.call('HINCRBY', f.groups, group, -n)
  end
  for first = 1, n, 1000 do
    redis.call('LPUSH', backup, unpack(moved, first, math.min(first + 999, n)))
  end
  return moved, sizes.inbox + sizes.grouped - n, { [group] = n }, false
end

-- How long a minute's start counts are kept: the dashboard and `nexq groups` read the last 15.
local FAIR_STARTS_TTL = 3600

-- Counts the jobs taken of each group (`took`, group -> jobs) in this minute's hash (Redis' clock
-- `now`, ms), for the groups' recent throughput (src/admin/groups.ts): one HINCRBY per group served,
-- and an EXPIRE only when a group's count in the hash is new (so when the hash is). Guarded, as the
-- hash is not in KEYS: a count that fails is lost, the fetch is not.
local function nexq_count_starts(f, took, now)
  local key, fresh = f.starts .. ':' .. string.format('%d', math.floor(now / 60000)), false
  for group, t in pairs(took) do
    if t > 0 and redis.pcall('HINCRBY', key, group, t) == t then fresh = true end
  end
  if fresh then redis.pcall('EXPIRE', key, FAIR_STARTS_TTL) end
end

-- A fetch from a fair queue for `node`: checks its keys, feeds its groups from the inbox, and takes
-- up to `wanted` jobs in turn (nexq_fair_take), each group within its limit across nodes, and
-- up to `ahead` more (prefetch, fetch.lua's rule) only without group limits and as many as leave a
-- backlog of FAIR_BACKLOG jobs more waiting: taken in turn too, they delay a group that comes later
-- by at most one fetch. Counts the jobs taken per group in this minute (`now`, Redis ms: nexq_count_starts).
-- Returns the jobs, nil or why nothing moved, the jobs left, and whether the next fetch should
-- come at once (nexq_fair_take's last answer).
local FAIR_BACKLOG = 100
local function nexq_fair_fetch(f, node, backup, wanted, admit, ahead, now, admits_all)
  local sizes, broken = nexq_fair_sizes(f, backup)
  if not sizes then return {}, broken end
  nexq_fair_feed(f, sizes)
  local park = nexq_fair_recheck(f, node, sizes, wanted)
  -- As many ahead as leave a backlog behind them (fetch.lua's rule).
  if ahead > 0 and not f.limit and not f.spec then
    wanted = wanted + math.max(0, math.min(ahead, sizes.inbox + sizes.grouped - wanted - FAIR_BACKLOG))
  end
  local group_admit, count, full = nexq_group_admit(f, node, admit)
  local moved, left, took, more
  if wanted > 0 and admits_all and not f.limit and not f.spec and sizes.counts == 1 and sizes.ring == 1 and sizes.parked == 0 then
    moved, left, took, more = nexq_fair_take_sole(f, backup, wanted, sizes)
  end
  if not moved then
    moved, left, took, more = nexq_fair_take(f, backup, wanted, group_admit, sizes, full, park)
  end
  count()
  nexq_fair_park(f, park)
  if #moved > 0 then nexq_count_starts(f, took, now) end
  return moved, nil, left, more
end
