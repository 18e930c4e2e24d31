-- throttle: a handler said the remote side throttles it (`this.rateLimited(seconds)`): no job of
-- its queue, or of its class when the class has a rate limit, starts on any node for that long.
-- KEYS[1]   the rate key: <ns>:nexq:rate:<q> or <ns>:nexq:rate-class:<c> (GCRA's TAT, _prelude.lua)
-- ARGV[1]   the pause, in ms
-- ARGV[2]   the limit's tolerance in ms (0 without a limit), so the next job starts when it ends
-- Returns the ms until the pause ends (a longer one already set is kept).
-- The cluster rule (_prelude.lua): one key, which it only reads and sets.
local now = nexq_now_ms()
local tat = math.max(tonumber(redis.call('GET', KEYS[1])) or 0, now + tonumber(ARGV[1]) + tonumber(ARGV[2]))
redis.call('SET', KEYS[1], string.format('%.3f', tat), 'PX', math.ceil(tat - now) + 1)
return math.ceil(tat - now - tonumber(ARGV[2]))
