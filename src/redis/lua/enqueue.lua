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
local n = tonumber(ARGV[1])
local queueSet = KEYS[4 + 2 * n]
if queueSet then nexq_expect_type(queueSet, 'set') end
nexq_expect_type(KEYS[1], 'zset')
local added = {}
for i = 1, n do
  local base = 2 + 5 * (i - 1)
  local queue, queueKey, maxlen = ARGV[base], KEYS[2 + 2 * i], ARGV[base + 3]
  local paused = redis.call('HGET', KEYS[2], queue)
  if paused == 'in' or paused == 'all' then
    return redis.error_reply('NEXQ_PAUSED queue ' .. queue .. ' is paused for input')
  end
  if ARGV[base + 2] == '' then
    nexq_expect_type(queueKey, 'list')
    added[queueKey] = (added[queueKey] or 0) + 1
    if maxlen ~= '' and redis.call('LLEN', queueKey) + added[queueKey] > tonumber(maxlen) then
      return redis.error_reply('NEXQ_FULL queue ' .. queue .. ' already holds ' .. maxlen .. ' job(s) (maxlen)')
    end
  end
end
local result = {}
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
    if score == '' then
      if queueSet then redis.call('SADD', queueSet, queue) end
      redis.call('LPUSH', KEYS[2 + 2 * i], json)
      nexq_index_new(KEYS[3], jid, 'queued\t' .. queue)
    else
      redis.call('ZADD', KEYS[1], score, json)
      nexq_index_new(KEYS[3], jid, 'schedule\t' .. score)
    end
  end
  result[i] = { jid, conflict }
end
return result
