-- fetch: move up to N jobs from each queue into this node's backup list for it, in one round trip.
-- KEYS[1]          paused queues, hash <ns>:nexq:paused (queue -> in | out | all)
-- KEYS[2]          job index <ns>:nexq:jobs
-- KEYS[4i-1]       queue list              <ns>:queue:<q>         (queue i = 1..n)
-- KEYS[4i]         this node's backup list <ns>:queue:backup::<node>::<q>
-- KEYS[4i+1]       jobs running per node,  hash <ns>:nexq:running:<q> (node -> count), for global limits
-- KEYS[4i+2]       its rate limit and pause, sorted set <ns>:nexq:rate-starts:<q> (see _prelude.lua)
-- KEYS[4n+1+2j]    jobs of class j running per node, hash <ns>:nexq:running-class:<c>   (class j = 1..m)
-- KEYS[4n+2+2j]    its rate limit, sorted set <ns>:nexq:rate-starts-class:<c>
-- ARGV[1]          this node's id
-- ARGV[2]          n, the number of queues
-- ARGV[3]          most jobs to take in all, from the queues in order (this node's cap; '' none)
-- ARGV[5i-1..5i+3] queue i: jobs wanted (its free slots here), name, limit across nodes ('' none),
--                  jobs to take ahead of free slots (prefetch; 0 none), rate limit's spec ('' none;
--                  'L:P[:B]', _prelude.lua)
-- ARGV[5n+3j+1..5n+3j+3] class j: name, limit across nodes ('' none), rate limit's spec ('' none)
-- ARGV[#ARGV-2n+2i-1..] queue i: fair ('-', or its groupConcurrency: its groups take turns, _fair.lua) or '',
--                  and its groupRateLimit's spec ('' none); a fair queue's keys follow the classes' in KEYS,
--                  9 each: jobs, groups, ring, seq, its groups' running and rate prefixes, paused, its
--                  per-minute start counts' prefix (_fair.lua's nexq_count_starts), and parked
-- Returns { jobs, errors, states, waits }: jobs[i] is the array of raw jobs moved from queue i, oldest
-- first; errors is an array of { i, message } for queues whose keys could not be used (e.g.
-- WRONGTYPE), i = 0 for a class's running hash (its jobs are left in their queues until it is
-- repaired); states is a string, one letter per queue, of what the fetch saw there (the fetch
-- policy, src/fetch/policy.ts, decides from it what to fetch next and what to wait on):
--   m  took every job it asked for (more may wait), or asked for none under the node's cap, or (a
--      fair queue) stopped after parking the groups it met at their limit, more of its ring unseen
--   s  took every job it asked for but those ahead: fewer than a backlog's worth are left
--   e  emptied the queue: it holds no job now
--   l  jobs wait that a limit across nodes (globalConcurrency, a class's limit) holds back
--   p  paused for output
--   x  its keys could not be used (see errors)
-- waits[i] is, for a queue whose own rate limit or pause lets no more jobs start ('l'), the ms until
-- it lets one (the node polls it then, not sooner); 0 otherwise (a class's rate holds back its own
-- jobs only, so the queue is polled every pollTimeout for the others, as under classConcurrency).
-- The script is atomic, so a job is always in the queue or in the backup list, never neither; a
-- broken key of one queue fails that queue alone (nothing of it moves), never the others. Jobs are
-- popped with LMPOP on Redis >= 7.0 and read then trimmed on 6.2 (same result, one command more).
-- A queue paused for output is skipped; a global limit counts every node's running jobs. A job
-- whose class is at its limit keeps its place in the queue, and the jobs behind it go first. Rate
-- limits count every job as it is taken (_prelude.lua), a queue's in its own rate key, which also
-- holds a handler's pause (throttle.lua); a job whose class is over its rate keeps its place.
-- Jobs ahead of free slots are taken only from a queue without limits on running jobs, and only as many as leave
-- BACKLOG jobs more after them, so a node never holds back the last jobs of a short queue from the others.
-- Every job moved is indexed as running here with its delivery count raised, and every queue's
-- pause state and every rate key is read: three commands per call (TIME the one more), whatever
-- the number of jobs, plus one TYPE of the backup key per queue taken from, and per rate key one
-- read (two under a strict limit), and where it counted jobs one write per thousand and two more; a
-- fair queue counts its jobs taken with one HINCRBY per group served (and an EXPIRE for a group's first of a minute).
local node, n, cap = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local jobs, errors, states, waits = {}, {}, {}, {}
local function qarg(i, k) return ARGV[5 * i - 2 + k] end
local function qkey(i, k) return KEYS[4 * i - 2 + k] end
local function carg(j, k) return ARGV[5 * n + 3 * j + k] end
local function ckey(j, k) return KEYS[4 * n + 2 * j + k] end
local m = (#ARGV - 3 - 7 * n) / 3
local fairs = nexq_fair_queues(n, 4 * n + 2 * m + 2, function(i) return qkey(i, 1) end)
-- Lua's unpack takes some thousands of values: one call moves at most this many jobs per queue
-- and reads at most WINDOW of them (the manager fetches again at once for the rest).
local MOST, WINDOW = 1000, 2000
local BACKLOG = 100

local function used(hash) return nexq_running_total(hash, node) end

-- Redis' time, for every rate limit of the call.
local now = nexq_now_ms()

local classes, limitedClasses = {}, false
for j = 1, m do
  local name, limit, spec = carg(j, 1), tonumber(carg(j, 2)), carg(j, 3)
  local class = { key = ckey(j, 1), rate_key = ckey(j, 2), limit = limit, free = math.huge, taken = 0 }
  if limit then
    local total, err = used(class.key)
    if err then errors[#errors + 1] = { 0, err } end
    class.free = total and (limit - total) or 0
  end
  if spec ~= '' then class.rate = nexq_rate(class.rate_key, spec, now) end
  if class.rate and class.rate.err then errors[#errors + 1] = { 0, class.rate.err } end
  classes[name] = class
  limitedClasses = true
end

-- Whether a raw job's class has room (limit and rate) for it to start now; counts it when it has.
local function admit(raw)
  if not limitedClasses then return true end
  local _, job = nexq_jid_of(raw)
  local class = job and type(job.class) == 'string' and classes[job.class]
  if not class then return true end
  if class.free <= 0 or (class.rate and nexq_rate_room(class.rate) <= 0) then return false end
  class.free, class.taken = class.free - 1, class.taken + 1
  if class.rate then class.rate.taken = class.rate.taken + 1 end
  return true
end

-- Picks up to `wanted` of a queue's oldest jobs whose classes have room among window[from..];
-- returns them oldest first and the window's other jobs in list order (to go back where they were).
local function pick(window, from, wanted)
  local chosen, skipped = {}, {}
  local take = {}
  for k = #window, from, -1 do
    if #chosen < wanted then
      take[k] = admit(window[k])
      if take[k] then chosen[#chosen + 1] = window[k] end
    end
  end
  for k = from, #window do
    if not take[k] then skipped[#skipped + 1] = window[k] end
  end
  return chosen, skipped
end

-- The jobs moved by every queue of this call, indexed together at the end (one HMGET, one HSET)
-- as running here, each with one more delivery.
local moved_jids, moved_where = {}, {}
local function note_moved(moved, where)
  for _, raw in ipairs(moved) do
    local jid = nexq_jid_of(raw)
    if jid then
      moved_jids[#moved_jids + 1] = jid
      moved_where[#moved_jids] = where
    end
  end
end
local function index_moved()
  if #moved_jids == 0 then return end
  local entries = redis.pcall('HMGET', KEYS[2], unpack(moved_jids))
  if entries.err then return end
  local fields = {}
  for k, jid in ipairs(moved_jids) do
    fields[#fields + 1] = jid
    fields[#fields + 1] = (tonumber(nexq_deliveries(entries[k])) + 1) .. moved_where[k]
  end
  redis.pcall('HSET', KEYS[2], unpack(fields))
end

-- Every queue's pause state in one read (the hash is the same for all queues of a call).
local pause_names = {}
for i = 1, n do pause_names[i] = qarg(i, 2) end
local pauses = redis.pcall('HMGET', KEYS[1], unpack(pause_names))

-- Jobs come from the consumer (right) end, and go onto the backup list as one RPOPLPUSH per job
-- would leave them (the oldest deepest). Each taker returns the jobs moved, oldest first, or {} and
-- why nothing moved: a broken backup key moves nothing. The cluster rule (_prelude.lua): a take may
-- empty the queue, so the queue is named after it only when the take says jobs are left (the
-- window's read), or with a length read before it (see the loop below); every refusal comes before
-- the first change (the backup's type is checked, or the push made, before the queue is trimmed).

-- Reads up to `wanted` of the oldest jobs, pushes them, then trims them off the queue (push before
-- trim: if the backup key is broken the push fails and nothing has moved). Redis 6.2's way.
local function take_by_range(queue, backup, wanted)
  local window = redis.pcall('LRANGE', queue, -wanted, -1)
  if window.err then return {}, window.err end
  local moved = {}
  for k = #window, 1, -1 do moved[#moved + 1] = window[k] end
  if #moved == 0 then return moved end
  local pushed = redis.pcall('LPUSH', backup, unpack(moved))
  if type(pushed) == 'table' then return {}, pushed.err end
  redis.call('LTRIM', queue, 0, -(#moved + 1))
  return moved
end

-- Pops up to `wanted` of the oldest jobs in one LMPOP (Redis >= 7.0) and pushes them. The backup
-- key's type is checked first, so the push cannot fail after the pop (a pop that empties the queue
-- deletes it, and in a slot in migration the jobs could not go back). Where LMPOP fails for any
-- reason but the queue's type (Redis 6.2 has no LMPOP), reads and trims instead.
local function take_oldest(queue, backup, wanted)
  local kind = redis.call('TYPE', backup).ok
  if kind ~= 'none' and kind ~= 'list' then
    return {}, 'WRONGTYPE nexq: ' .. backup .. ' holds a ' .. kind .. ', not a list'
  end
  local popped = redis.pcall('LMPOP', 1, queue, 'RIGHT', 'COUNT', wanted)
  if not popped then return {} end
  if popped.err then
    if string.sub(popped.err, 1, 9) == 'WRONGTYPE' then return {}, popped.err end
    return take_by_range(queue, backup, wanted)
  end
  local moved = popped[2]
  redis.call('LPUSH', backup, unpack(moved))
  return moved
end

-- With class limits: reads a window of the oldest jobs, takes those whose classes have room, and
-- puts the ones left behind back in their order. One job more than the window is read: when it is
-- there the queue goes on ahead of the window (and is never emptied); when it is not, the window is
-- the whole queue (nexq_replace_tail). Returns also how many jobs are left at least.
local function take_window(queue, backup, wanted)
  local size = math.min(wanted * 4 + 16, WINDOW)
  local window = redis.pcall('LRANGE', queue, -(size + 1), -1)
  if window.err then return {}, window.err end
  local whole = #window <= size
  local from = whole and 1 or 2
  local moved, skipped = pick(window, from, wanted)
  local pushed = #moved > 0 and redis.pcall('LPUSH', backup, unpack(moved)) or 0
  if type(pushed) == 'table' then
    for _, class in pairs(classes) do
      if class.rate then class.rate.taken = class.rate.taken - class.taken end
      class.free, class.taken = class.free + class.taken, 0
    end
    return {}, pushed.err
  end
  if #moved > 0 then nexq_replace_tail(queue, #window - from + 1, skipped, whole) end
  return moved, nil, #skipped + (whole and 0 or 1)
end

for i = 1, n do
  local queue, backup, running = qkey(i, 1), qkey(i, 2), qkey(i, 3)
  local asked, name, limit = math.min(tonumber(qarg(i, 1)), MOST, cap or MOST), qarg(i, 2), qarg(i, 3)
  local ahead = math.min(tonumber(qarg(i, 4)) or 0, MOST)
  local rate = nexq_rate(qkey(i, 4), qarg(i, 5), now)
  local wanted, state = asked, 'm'
  local moved = {}
  local paused = pauses.err and pauses or pauses[i]
  local total, err = 0, nil
  if limit ~= '' then total, err = used(running) end
  if type(paused) == 'table' and paused.err then
    errors[#errors + 1] = { i, paused.err }
    wanted, state = 0, 'x'
  elseif err or rate.err then
    errors[#errors + 1] = { i, err or rate.err }
    wanted, state = 0, 'x'
  elseif paused == 'out' or paused == 'all' then
    wanted, state = 0, 'p'
  else
    if limit ~= '' then wanted = math.max(0, math.min(wanted, tonumber(limit) - total)) end
    wanted = math.min(wanted, nexq_rate_room(rate))
  end
  -- Where what is left after the take matters (a limit lets fewer than asked go, or jobs may be
  -- taken ahead), the queue's length is read before it: after it the queue may be gone (rule 2).
  local fair = fairs[i]
  local ahead_ok = ahead > 0 and limit == '' and not limitedClasses and not cap
  local before
  if wanted > 0 and not limitedClasses and not fair and (wanted < asked or ahead_ok) then
    before = redis.pcall('LLEN', queue)
    if type(before) == 'table' then
      errors[#errors + 1] = { i, before.err }
      wanted, state = 0, 'x'
    end
  end
  local left, more
  -- Jobs a fair queue may take ahead of its free slots, in turn (_fair.lua). A fetch for that room
  -- alone (no slot free here: asked 0) takes them as a plain queue's does below, unless a pause or
  -- its rate leaves room for fewer than twice as many.
  local fair_ahead = fair and ahead_ok and not rate.limit and ahead or 0
  local ahead_only = fair_ahead > 0 and asked == 0 and state == 'm' and nexq_rate_room(rate) >= 2 * fair_ahead
  if wanted > 0 or ahead_only then
    local why
    if fair then
      moved, why, left, more = nexq_fair_fetch(fair, node, backup, wanted, admit, fair_ahead, now, not limitedClasses)
    elseif limitedClasses then
      moved, why, left = take_window(queue, backup, wanted)
    else
      moved, why = take_oldest(queue, backup, wanted)
      left = before and before - #moved
    end
    if why then
      errors[#errors + 1] = { i, why }
      state = 'x'
    end
  end
  if state == 'm' and #moved < asked then
    -- Fewer than asked: without class limits a take short of `wanted` ran the list dry; otherwise
    -- a limit held jobs back if any are left.
    if #moved < wanted and not limitedClasses and not fair then
      state = 'e'
    elseif more then
      -- A fair fetch that parked the full groups it met (_fair.lua) and stopped: more of its ring
      -- is still to see, so the node fetches again now rather than a poll later.
      state = 'm'
    elseif left then
      state = left > 0 and 'l' or 'e'
    else
      -- Nothing was taken (a limit reached): the queue's key is read here first.
      left = fair and nexq_fair_waiting(fair) or redis.pcall('LLEN', queue)
      if type(left) == 'table' then
        errors[#errors + 1] = { i, left.err }
        state = 'x'
      else
        state = left > 0 and 'l' or 'e'
      end
    end
  end
  if state == 'm' and fair_ahead > 0 and left and not more and #moved < asked + fair_ahead then
    -- A fair fetch that took fewer ahead than asked: no more than a backlog's worth waits behind its
    -- jobs (or none), so the node takes none ahead until a slot frees ('s', as a plain queue says below).
    -- It said 'm' before, and a fetch for room ahead alone then came back at once, in a loop of
    -- empty fetches while every slot was busy (W2 at c10: one empty fetch per ten jobs).
    state = left > 0 and 's' or 'e'
  end
  -- Under its own rate limit (or pause) jobs taken ahead count as they are taken, and are taken
  -- only while the window holds room for twice as many: a generous limit costs nothing, a tight one
  -- (or a pause) takes none ahead, so no node holds counted jobs back from the others.
  rate.taken = #moved
  if nexq_rate_room(rate) < 2 * ahead then ahead = 0 end
  if state == 'm' and ahead > 0 and ahead_ok and not fair then
    -- Read before the take; nothing was taken when none was wanted.
    left = left or redis.pcall('LLEN', queue)
    if type(left) ~= 'number' then
      state = 's'
    elseif left > BACKLOG then
      -- As many as leave a backlog behind them: a node that asks for many ahead (its jobs are
      -- short) takes what a smaller ask would have, not nothing.
      local take = math.min(ahead, left - BACKLOG)
      local more, why = take_oldest(queue, backup, take)
      if why then
        errors[#errors + 1] = { i, why }
        state = 'x'
      elseif take < ahead then
        state = 's'
      end
      for _, raw in ipairs(more) do moved[#moved + 1] = raw end
    else
      state = left > 0 and 's' or 'e'
    end
  end
  states[i] = state
  rate.taken = #moved
  nexq_rate_save(rate, qkey(i, 4))
  waits[i] = (state == 'l' and nexq_rate_room(rate) == 0) and nexq_rate_opens_in(rate) or 0
  if limit ~= '' and #moved > 0 then
    redis.call('HINCRBY', running, node, #moved)
  end
  for _, class in pairs(classes) do
    if class.taken > 0 and class.limit then redis.call('HINCRBY', class.key, node, class.taken) end
    class.taken = 0
  end
  note_moved(moved, '\trunning\t' .. name .. '\t' .. node)
  if cap then cap = cap - #moved end
  jobs[i] = moved
end
index_moved()
for _, class in pairs(classes) do
  if class.rate then nexq_rate_save(class.rate, class.rate_key) end
end
return { jobs, errors, table.concat(states), waits }
