-- throttle: a handler said the remote side throttles it (`this.rateLimited(seconds)`): no job of
-- its queue, or of its class when the class has a rate limit, starts on any node for that long.
-- KEYS[1]   the rate key: <ns>:nexq:rate-starts:<q> or <ns>:nexq:rate-starts-class:<c> (_prelude.lua)
-- ARGV[1]   the pause, in ms
-- Returns the ms until the pause ends (a longer one already set is kept). The starts the limit
-- counted stay: once the pause ends, the limit holds as before it.
-- The cluster rule (_prelude.lua): one key, which it reads, then only adds to (the pause's mark,
-- then an expiry ahead, never shorter than the one it had).
local now = nexq_now_ms()
local pause = math.max(-(tonumber(redis.call('ZSCORE', KEYS[1], 'pause')) or 0), now + tonumber(ARGV[1]))
local ttl = redis.call('PTTL', KEYS[1])
redis.call('ZADD', KEYS[1], nexq_score(-pause), 'pause')
redis.call('PEXPIRE', KEYS[1], math.max(ttl, math.ceil(pause - now) + 1))
return math.ceil(pause - now)
