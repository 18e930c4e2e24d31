-- claim-node: a node's hold on its default id (src/node/node-claim.ts): take it, renew it with each
-- beat, give it back at stop. Compare-and-set in one call, so two processes starting at the same
-- moment never both get one id.
-- KEYS[1]  the claim <ns>:nexq:node-claim:<id> (string: the holder's record, JSON)
-- ARGV[1]  'take', 'renew' or 'release'
-- ARGV[2]  this process' record (it holds a random token: no two processes' records are equal)
-- ARGV[3]  the claim's time to live in ms (the node timeout: it lapses when a reaper could recover
--          the node anyway)
-- ARGV[4]  take only: the record of a holder proven dead, which this take replaces ('' for none)
-- Returns 1 when this process holds the claim (taken, renewed) or gave it back; otherwise the
-- record of the process that holds it (take, renew), or 0 (release of a claim not held).
-- The cluster rule (_prelude.lua): one key, read before it is written.
local current = redis.call('GET', KEYS[1])
if ARGV[1] == 'release' then
  if current ~= ARGV[2] then return 0 end
  redis.call('DEL', KEYS[1])
  return 1
end
-- Held: a renewal's only write is a PEXPIRE, which a full Redis (maxmemory, noeviction) still takes,
-- as it takes the beat (beat.lua).
if current == ARGV[2] and ARGV[1] == 'renew' then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return 1
end
-- A renewal finds its claim lapsed (Redis lost it, or the node stalled past its time to live):
-- nobody holds it, and the holder takes it back.
local free = current == false or current == ARGV[2] or (ARGV[1] == 'take' and ARGV[4] ~= '' and current == ARGV[4])
if not free then return current end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
