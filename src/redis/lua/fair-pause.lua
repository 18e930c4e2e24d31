-- fair-pause: pause or resume one group of a fair queue (docs/fair-queues.md) on every node. A paused
-- group leaves the ring, so no fetch takes its jobs, which keep their place in the groups; new jobs
-- of it are moved in from the inbox as usual but do not bring it back. Resumed, it joins the end
-- of the ring if it has jobs.
-- KEYS[1]  the ring (list)   KEYS[2]  the paused groups (set)   KEYS[3]  the groups' counts (hash)
-- ARGV[1]  the group ('' the default group)   ARGV[2]  pause | resume
-- Returns 1 when it changed the group's state, 0 when it already was so.
-- The cluster rule (_prelude.lua): types checked first; the pause's LREM (its first write, a
-- removal) and the resume's SREM are their keys' last commands, the resume's push made only when
-- the group was paused (so it was not in the ring, and the ring is added to, never emptied).
nexq_expect_type(KEYS[1], 'list')
nexq_expect_type(KEYS[2], 'set')
nexq_expect_type(KEYS[3], 'hash')
local group = ARGV[1]
if ARGV[2] == 'pause' then
  if redis.call('SISMEMBER', KEYS[2], group) == 1 then return 0 end
  redis.call('LREM', KEYS[1], 0, group)
  redis.call('SADD', KEYS[2], group)
  return 1
end
if redis.call('SREM', KEYS[2], group) == 0 then return 0 end
if (tonumber(redis.call('HGET', KEYS[3], group)) or 0) > 0 then redis.call('RPUSH', KEYS[1], group) end
return 1
