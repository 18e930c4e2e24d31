-- batch-settle: one member of a batch ran (or a hold ends): count it, and when this step settles
-- the batch, put the callbacks due in its outbox (hash fields out:<event>), each event once ever.
-- Idempotent: a member counts once however often it is settled (a job re-run after a crash), and
-- a step retried after its reply was lost changes nothing more. Callbacks in the outbox are
-- returned on every call until the caller has pushed them (batch-deliver.lua) and dropped them.
-- KEYS[1]   the batch's hash, KEYS[2] its pending set, KEYS[3] failed set, KEYS[4] dead set
-- ARGV[1]   the member (jid, `batch:<child bid>`) or, for 'release', the hold token
-- ARGV[2]   'success' | 'failure' (will be retried) | 'dead' (will not run again) | 'release' (a
--           hold ends) | 'forget' (its enqueue failed: it never was a member)
-- ARGV[3]   now, epoch seconds
-- Returns {} for a batch that does not exist (expired), else
-- {complete, success, died (1/0 each), parent bid or '', ttl, event, callback json, event, json, ...}.
-- The cluster rule (_prelude.lua): each set's size is read first and kept up to date, so a set an
-- SREM emptied (it no longer exists) is neither counted nor given its expiry again; no call both
-- adds to and removes from one set. The hash always keeps its other fields (an HDEL of a hold
-- leaves `open`).
if redis.call('EXISTS', KEYS[1]) == 0 then return {} end
nexq_expect_type(KEYS[2], 'set')
nexq_expect_type(KEYS[3], 'set')
nexq_expect_type(KEYS[4], 'set')
local member, kind, now = ARGV[1], ARGV[2], ARGV[3]
local size, emptied = {}, {}
for i = 2, 4 do size[i] = redis.call('SCARD', KEYS[i]) end

local function srem(i)
  if size[i] == 0 then return 0 end
  local removed = redis.call('SREM', KEYS[i], member)
  size[i] = size[i] - removed
  emptied[i] = size[i] == 0
  return removed
end

local function sadd(i)
  local added = redis.call('SADD', KEYS[i], member)
  size[i] = size[i] + added
end

local function fire(event)
  if redis.call('HSETNX', KEYS[1], event .. '_at', now) == 1 then
    local callback = redis.call('HGET', KEYS[1], 'cb:' .. event)
    if callback then redis.call('HSET', KEYS[1], 'out:' .. event, callback) end
  end
end

if kind == 'success' then
  srem(2)
  srem(3)
  srem(4)
elseif kind == 'failure' or kind == 'dead' then
  -- Only a member still pending: a late re-run of a job that succeeded already does not count.
  if size[2] > 0 and redis.call('SISMEMBER', KEYS[2], member) == 1 then
    sadd(3)
    if kind == 'dead' then
      sadd(4)
      fire('death')
    end
  end
elseif kind == 'release' then
  if redis.call('HDEL', KEYS[1], 'hold:' .. member) == 1 then redis.call('HINCRBY', KEYS[1], 'open', -1) end
elseif kind == 'forget' then
  if srem(2) == 1 then
    redis.call('HINCRBY', KEYS[1], string.sub(member, 1, 6) == 'batch:' and 'children' or 'total', -1)
  end
  srem(3)
  srem(4)
end

if tonumber(redis.call('HGET', KEYS[1], 'open') or '0') <= 0 then
  local pending = size[2]
  -- Complete: every member ran; those that failed wait for a retry or are dead (Sidekiq Pro's rule).
  if pending == size[3] then fire('complete') end
  if pending == 0 then fire('success') end
end
local ttl = tonumber(redis.call('HGET', KEYS[1], 'ttl') or '2592000')
for i = 1, 4 do
  if not emptied[i] then redis.call('EXPIRE', KEYS[i], ttl) end
end

local state = redis.call('HMGET', KEYS[1], 'complete_at', 'success_at', 'death_at', 'parent')
local result = { state[1] and 1 or 0, state[2] and 1 or 0, state[3] and 1 or 0, state[4] or '', ttl }
for _, event in ipairs({ 'death', 'complete', 'success' }) do
  local callback = redis.call('HGET', KEYS[1], 'out:' .. event)
  if callback then
    result[#result + 1] = event
    result[#result + 1] = callback
  end
end
return result
