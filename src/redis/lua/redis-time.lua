-- redis-time: Redis' clock, read on the master that holds KEYS[1] (the one every liveness script
-- runs on: see docs/time.md), so a node can anchor its due times on it (src/redis/redis-time.ts).
-- KEYS[1]  node beats, sorted set <ns>:nexq:nodes (only routes the call; not read)
-- Returns TIME: { seconds, microseconds }.
-- The cluster rule (_prelude.lua): it touches no key.
return redis.call('TIME')
