-- recover-exq-node: put the unsettled jobs of a dead Exq node back in their queues, once, when no
-- Exq node is alive to do it (issue #31, 6d). Exq (0.14 and later, `heartbeat_enable: true`) scores
-- each node's beats in <ns>:heartbeats (node id -> epoch seconds, its own clock) and its
-- Heartbeat.Monitor re-enqueues the backup lists of a node silent for heartbeat_interval x
-- (missed_heartbeats_allowed + 1), then removes it from the set. This does the same, in one atomic
-- step: of several nexq survivors exactly one moves the jobs, and an Exq monitor moving the same
-- list job by job (it pops one at a time too) can take no job this step also moves.
-- KEYS[1]      Exq's beats, sorted set <ns>:heartbeats
-- KEYS[2]      nexq's node beats <ns>:nexq:nodes (an id nexq beats under is nexq's, never Exq's)
-- KEYS[3]      queue set <ns>:queues
-- KEYS[4]      the node's running-workers hash <ns>:<node>:workers (Exq's cleanup_host_stats drops it)
-- KEYS[5]      the process entry <ns>:<node> (Exq's identity is its node id, the host name)
-- KEYS[6]      process set <ns>:processes
-- KEYS[4+3i], [5+3i], [6+3i]  backup i (1..b): the node's backup list <ns>:queue:backup::<node>::<q>,
--              that queue's list <ns>:queue:<q> and the job index <ns>:nexq:jobs
-- ARGV[1]      the node's id
-- ARGV[2]      Exq node timeout, seconds: dead only if its last beat is at or before TIME minus this
-- ARGV[3]      b, the number of backup lists
-- ARGV[3+i]    queue name of backup i
-- Returns the number of jobs moved back; -1 when the node is not (or no longer) dead, or nexq's;
-- -2 when another Exq node beat within the timeout (its monitor recovers this one: left to it).
-- The cluster rule (_prelude.lua): Exq's keys exist only in the shared layout, all in one slot. The
-- refusals come first; every removal is its key's last command (ZREM, DEL, SREM), and each backup
-- list's length is read first and that many jobs moved, so no LMOVE names it once it is empty.
local time = redis.call('TIME')
local cutoff = tonumber(time[1]) + tonumber(time[2]) / 1000000 - tonumber(ARGV[2])
local beat = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not beat or tonumber(beat) > cutoff or redis.call('ZSCORE', KEYS[2], ARGV[1]) then
  return -1
end
if redis.call('ZCOUNT', KEYS[1], '(' .. string.format('%.6f', cutoff), '+inf') > 0 then
  return -2
end
local b = tonumber(ARGV[3])
nexq_expect_type(KEYS[3], 'set')
nexq_expect_type(KEYS[6], 'set')
for i = 1, b do
  nexq_expect_type(KEYS[4 + 3 * i], 'list')
  nexq_expect_type(KEYS[5 + 3 * i], 'list')
end
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[4])
if redis.call('EXISTS', KEYS[5]) == 0 then
  redis.call('SREM', KEYS[6], ARGV[1])
end
local moved = 0
for i = 1, b do
  moved = moved + nexq_requeue_all(KEYS[4 + 3 * i], KEYS[5 + 3 * i], KEYS[6 + 3 * i], KEYS[3], ARGV[3 + i])
end
return moved
