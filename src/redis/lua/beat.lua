-- beat: one heartbeat of a node, scored by Redis' clock (TIME), never the node's: its beat in the
-- node list (read by every node's reaper, which compares it with TIME too), its process entry in
-- Sidekiq's format with `beat` at the same time, its running jobs, and the signal Sidekiq's API
-- left for it. Every key is node-wide (one slot in the per-queue key layout).
-- KEYS[1]  the node's running-jobs hash <ns>:<identity>:workers
-- KEYS[2]  node beats, sorted set <ns>:nexq:nodes (node id -> epoch seconds of its last beat)
-- KEYS[3]  node identities, hash <ns>:nexq:node-identities (node id -> process identity)
-- KEYS[4]  process set <ns>:processes
-- KEYS[5]  the node's process entry, hash <ns>:<identity>
-- KEYS[6]  the node's signals, list <ns>:<identity>-signals
-- KEYS[7]  the node's running-jobs hash as Sidekiq 6.5+ names it, <ns>:<identity>:work (same fields)
-- ARGV[1]  node id
-- ARGV[2]  process identity
-- ARGV[3]  seconds the process entry and running-jobs hash live without another beat
-- ARGV[4]  info (JSON), ARGV[5] busy, ARGV[6] quiet, ARGV[7] rss (KB), ARGV[8] reserved (jobs
--          fetched ahead, nexq's own field), ARGV[9] concurrency (Sidekiq 8.1's own field): the
--          entry's fields
-- ARGV[10] how many fields the node last wrote into each running-jobs hash, or -1 to rewrite them
--          whole (the first beat, or after a write that failed or found the hash not as written)
-- ARGV[11] r, the number of fields to remove; ARGV[12..11+r] those fields (the jobs that ended)
-- ARGV[12+r..] the fields to set (the jobs that started, or whose progress changed): field, value...
--          A rewrite sets every running job and removes the fields it does not name; otherwise a
--          job's payload is sent once, when it starts, and the beat only renews the hashes' expiry.
-- Returns { the signal taken (nil when none), the beat's time in epoch seconds, 1 when a hash did
-- not hold the ARGV[10] fields the node last wrote (Redis restarted or failed over empty, or the
-- hash expired while the node was frozen): nothing of the running-jobs part was written, and the
-- node rewrites the hashes whole at once, else 0; 1 when the node list held no beat of this node
-- before this one (a first beat, or a reaper declared it dead), else 0 }.
-- The cluster rule (_prelude.lua): each running-jobs hash gets its new fields before its old ones
-- go (HSET, then HDEL of the fields no longer there), its EXPIRE comes before the HDEL that may
-- empty it, or it is deleted by its one DEL when nothing runs; the signal's RPOP is the list's only
-- command.
local time = redis.call('TIME')
local now = time[1] .. '.' .. string.format('%06d', tonumber(time[2]))
-- The EXPIRE is the first write, and must stay first: Redis at maxmemory (noeviction) refuses a
-- script's writes that add (DENYOOM) only until its first write, and EXPIRE is none of those, so a
-- full Redis still takes the beat and no other node reaps this one (docs/errors.md, "A full
-- Redis"). It changes nothing the beat does not set again below.
redis.call('EXPIRE', KEYS[5], ARGV[3])
local written = tonumber(ARGV[10])
local removed = tonumber(ARGV[11])
local first_set = 12 + removed
local hashes = { KEYS[1], KEYS[7] }
local lost = 0
if written >= 0 then
  for _, key in ipairs(hashes) do
    if redis.call('HLEN', key) ~= written then lost = 1 end
  end
end
if lost == 1 then
  -- not as written: the node rewrites the hashes whole with its next call
elseif written < 0 then
  local fields = {}
  for k = first_set, #ARGV, 2 do fields[ARGV[k]] = true end
  for _, key in ipairs(hashes) do
    local stale = {}
    for _, field in ipairs(redis.call('HKEYS', key)) do
      if not fields[field] then stale[#stale + 1] = field end
    end
    if #ARGV < first_set then
      if #stale > 0 then redis.call('DEL', key) end
    else
      for first = first_set, #ARGV, 1000 do
        redis.call('HSET', key, unpack(ARGV, first, math.min(first + 999, #ARGV)))
      end
      for first = 1, #stale, 1000 do
        redis.call('HDEL', key, unpack(stale, first, math.min(first + 999, #stale)))
      end
      redis.call('EXPIRE', key, ARGV[3])
    end
  end
else
  for _, key in ipairs(hashes) do
    for first = first_set, #ARGV, 1000 do
      redis.call('HSET', key, unpack(ARGV, first, math.min(first + 999, #ARGV)))
    end
    if written > 0 or #ARGV >= first_set then redis.call('EXPIRE', key, ARGV[3]) end
    for first = 12, first_set - 1, 1000 do
      redis.call('HDEL', key, unpack(ARGV, first, math.min(first + 999, first_set - 1)))
    end
  end
end
local absent = redis.call('ZSCORE', KEYS[2], ARGV[1]) == false and 1 or 0
redis.call('ZADD', KEYS[2], now, ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
redis.call('SADD', KEYS[4], ARGV[2])
redis.call('HSET', KEYS[5], 'info', ARGV[4], 'busy', ARGV[5], 'beat', now, 'quiet', ARGV[6], 'rss', ARGV[7], 'rtt_us', '0',
  'reserved', ARGV[8], 'concurrency', ARGV[9])
redis.call('EXPIRE', KEYS[5], ARGV[3])
return { redis.call('RPOP', KEYS[6]), now, lost, absent }
