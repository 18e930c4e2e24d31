-- recover-node: claim a node that stopped beating and put its unsettled jobs back in their queues.
-- Claim and move are one atomic step, so of several survivors exactly one recovers a dead node,
-- and a node that beat again since it was found late is left alone. Dead means silent for the node
-- timeout by Redis' clock (TIME), the one beats are scored with (beat.lua), never the caller's.
-- KEYS[1]      node beats, sorted set <ns>:nexq:nodes (node id -> epoch seconds of its last beat)
-- KEYS[2]      node identities, hash <ns>:nexq:node-identities (node id -> process identity)
-- KEYS[3]      process set <ns>:processes
-- KEYS[4]      queue set <ns>:queues
-- KEYS[5]      the dead node's process entry <ns>:<identity>
-- KEYS[6]      the dead node's running-jobs hash <ns>:<identity>:workers
-- KEYS[3+4i], [4+4i], [5+4i], [6+4i]  backup i (1..b): a backup list of the dead node
--              <ns>:queue:backup::<node>::<q>, that queue's list <ns>:queue:<q>, that queue's
--              running hash <ns>:nexq:running:<q> (the dead node's global-limit slots) and its job
--              index <ns>:nexq:jobs. With b = 0 the script only claims the node (the per-queue key
--              layout, where each backup list is requeued apart: see node-reaper.ts)
-- KEYS[7+4b..] running hashes of limited classes <ns>:nexq:running-class:<c> (its class slots)
-- ARGV[1]      the dead node's id
-- ARGV[2]      node timeout, seconds: the node is dead only if its last beat is at or before TIME minus this
-- ARGV[3]      its process identity ('' when unknown)
-- ARGV[4]      b, the number of backup lists
-- ARGV[4+i]    queue name of pair i
-- Returns the number of jobs moved back, or -1 when the node is not (or no longer) dead.
-- The cluster rule (_prelude.lua): every removal is a key's last command (ZREM, HDEL, SREM, DEL of
-- node-wide keys; each running hash's HDEL), and each backup list's length is read first and that
-- many jobs moved, so no LMOVE names it once it is empty. The queue set and the index only grow.
local time = redis.call('TIME')
local cutoff = tonumber(time[1]) + tonumber(time[2]) / 1000000 - tonumber(ARGV[2])
local beat = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not beat or tonumber(beat) > cutoff then
  return -1
end
local b = tonumber(ARGV[4])
nexq_expect_type(KEYS[3], 'set')
nexq_expect_type(KEYS[4], 'set')
nexq_expect_type(KEYS[2], 'hash')
nexq_expect_slots(7 + 4 * b)
for i = 1, b do
  nexq_expect_type(KEYS[3 + 4 * i], 'list')
  nexq_expect_type(KEYS[4 + 4 * i], 'list')
  nexq_expect_type(KEYS[5 + 4 * i], 'hash')
end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
if ARGV[3] ~= '' then
  redis.call('SREM', KEYS[3], ARGV[3])
  redis.call('DEL', KEYS[5], KEYS[6])
end
local moved = 0
for i = 1, b do
  redis.call('HDEL', KEYS[5 + 4 * i], ARGV[1])
  moved = moved + nexq_requeue_all(KEYS[3 + 4 * i], KEYS[4 + 4 * i], KEYS[6 + 4 * i], KEYS[4], ARGV[4 + i])
end
for k = 7 + 4 * b, #KEYS do
  redis.call('HDEL', KEYS[k], ARGV[1])
end
return moved
