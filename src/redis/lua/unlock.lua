-- unlock: release a unique lock if the given job still holds it.
-- KEYS[1]  the lock <ns>:nexq:unique:<key>
-- ARGV[1]  the jid that took it
-- Returns 1 when released, 0 when another job holds it or it expired.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
