-- enqueue: write new jobs, all or none, honouring paused queues, MAXLEN and unique locks.
-- KEYS[1]          schedule    <ns>:schedule
-- KEYS[2]          paused queues, hash <ns>:nexq:paused (queue -> in | out | all)
-- KEYS[3]          job index <ns>:nexq:jobs
-- KEYS[2+2i]       job i's queue list <ns>:queue:<q>
-- KEYS[3+2i]       job i's unique lock <ns>:nexq:unique:<key> (its queue list again when it has none)
-- KEYS[4+2n]       queue set   <ns>:queues; absent in the per-queue key layout, where the caller
--                  adds the queues to it before this call (the set is in another slot)
-- ARGV[1]          number of jobs n
-- ARGV[2+5(i-1)..] per job: queue name, job JSON, score ('' = now), maxlen ('' = none),
--                  unique lock seconds ('' = none)
-- ARGV[2+5n+i-1]   job i's jid
-- Every job written is indexed by jid (queued or schedule).
-- Returns per job { jid, conflict }: conflict 1 when a unique lock was held, with the holder's jid.
-- Refusals (paused for input, queue full) fail the whole call before anything is written.
-- The cluster rule (_prelude.lua): it only adds (LPUSH, ZADD, SADD, SET of a lock, HSET).
-- The writes are grouped: one LPUSH per queue (values in job order, as one LPUSH each would leave
-- them), one ZADD, one SADD and one HSET of the index, each per thousand values.
local n = tonumber(ARGV[1])
local queueSet = KEYS[4 + 2 * n]

-- One job to run now, without MAXLEN or a unique lock (most enqueues): the same outcome with less
-- work. The schedule is not written, so its type is not checked; the LPUSH is the first write, so
-- instead of a check before it, its failure is read (nothing is written yet) and a wrong type
-- gets the same clear error the check gives. The queue set, written after it, is checked first.
if n == 1 and ARGV[4] == '' and ARGV[5] == '' and ARGV[6] == '' then
  local queue, queueKey, jid = ARGV[2], KEYS[4], ARGV[7]
  local paused = redis.call('HGET', KEYS[2], queue)
  if paused == 'in' or paused == 'all' then
    return redis.error_reply('NEXQ_QUEUE_PAUSED queue ' .. queue .. ' is paused for input')
  end
  if queueSet then nexq_expect_type(queueSet, 'set') end
  local pushed = redis.pcall('LPUSH', queueKey, ARGV[3])
  if type(pushed) == 'table' and pushed.err then
    nexq_expect_type(queueKey, 'list')
    return pushed
  end
  if queueSet then redis.call('SADD', queueSet, queue) end
  nexq_index_new(KEYS[3], jid, 'queued\t' .. queue)
  nexq_wake(queueKey)
  return { { jid, 0 } }
end

if queueSet then nexq_expect_type(queueSet, 'set') end
nexq_expect_type(KEYS[1], 'zset')
-- Each distinct queue is checked once: paused, its key's type, MAXLEN against all its jobs here.
local pausedOf, added = {}, {}
for i = 1, n do
  local base = 2 + 5 * (i - 1)
  local queue, queueKey, maxlen = ARGV[base], KEYS[2 + 2 * i], ARGV[base + 3]
  if pausedOf[queue] == nil then pausedOf[queue] = redis.call('HGET', KEYS[2], queue) or false end
  local paused = pausedOf[queue]
  if paused == 'in' or paused == 'all' then
    return redis.error_reply('NEXQ_QUEUE_PAUSED queue ' .. queue .. ' is paused for input')
  end
  if ARGV[base + 2] == '' then
    if added[queueKey] == nil then
      nexq_expect_type(queueKey, 'list')
      added[queueKey] = 0
    end
    added[queueKey] = added[queueKey] + 1
    if maxlen ~= '' and redis.call('LLEN', queueKey) + added[queueKey] > tonumber(maxlen) then
      return redis.error_reply('NEXQ_QUEUE_FULL queue ' .. queue .. ' already holds ' .. maxlen .. ' job(s) (maxlen)')
    end
  end
end

-- Runs `command key v1 v2 ...` over `values` a thousand at a time (unpack has a limit).
local function in_chunks(command, key, values, protected)
  local call = protected and redis.pcall or redis.call
  for first = 1, #values, 1000 do
    call(command, key, unpack(values, first, math.min(first + 999, #values)))
  end
end

local result = {}
local pushes, pushOrder, scheduled, names, seen, indexed = {}, {}, {}, {}, {}, {}
for i = 1, n do
  local base = 2 + 5 * (i - 1)
  local queue, json, score, lockSeconds = ARGV[base], ARGV[base + 1], ARGV[base + 2], ARGV[base + 4]
  local jid = ARGV[2 + 5 * n + i - 1]
  local conflict = 0
  if lockSeconds ~= '' then
    local holder = redis.call('GET', KEYS[3 + 2 * i])
    if holder then
      jid, conflict = holder, 1
    else
      redis.call('SET', KEYS[3 + 2 * i], jid, 'EX', lockSeconds)
    end
  end
  if conflict == 0 then
    local location
    if score == '' then
      local queueKey = KEYS[2 + 2 * i]
      if not pushes[queueKey] then
        pushes[queueKey] = {}
        pushOrder[#pushOrder + 1] = queueKey
      end
      table.insert(pushes[queueKey], json)
      if not seen[queue] then
        seen[queue] = true
        names[#names + 1] = queue
      end
      location = 'queued\t' .. queue
    else
      scheduled[#scheduled + 1] = score
      scheduled[#scheduled + 1] = json
      location = 'schedule\t' .. score
    end
    if jid and jid ~= '' then
      indexed[#indexed + 1] = jid
      indexed[#indexed + 1] = '0\t' .. location
    end
  end
  result[i] = { jid, conflict }
end
if queueSet and #names > 0 then in_chunks('SADD', queueSet, names) end
for _, queueKey in ipairs(pushOrder) do
  in_chunks('LPUSH', queueKey, pushes[queueKey])
  nexq_wake(queueKey)
end
if #scheduled > 0 then in_chunks('ZADD', KEYS[1], scheduled) end
-- The index only describes where jobs are: a broken index key must not fail the enqueue.
if #indexed > 0 then in_chunks('HSET', KEYS[3], indexed, true) end
return result
