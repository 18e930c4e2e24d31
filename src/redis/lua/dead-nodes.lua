-- dead-nodes: the nodes whose last beat is older than the node timeout by Redis' clock (TIME),
-- the one clock beats are scored with (beat.lua): a node's own clock declares no one dead.
-- KEYS[1]  node beats, sorted set <ns>:nexq:nodes (node id -> epoch seconds of its last beat)
-- ARGV[1]  node timeout, seconds
-- ARGV[2]  at most this many nodes
-- Returns their ids, the longest silent first.
-- The cluster rule (_prelude.lua): it only reads.
local time = redis.call('TIME')
local cutoff = tonumber(time[1]) + tonumber(time[2]) / 1000000 - tonumber(ARGV[1])
return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', string.format('%.6f', cutoff), 'LIMIT', 0, tonumber(ARGV[2]))
