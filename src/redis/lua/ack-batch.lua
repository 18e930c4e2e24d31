-- ack-batch: acks of plain jobs (no unique lock, no running slot) collected over one turn of the
-- node's event loop: take each off its backup list and forget it in the job index, in one call.
-- KEYS[1]    job index <ns>:nexq:jobs
-- KEYS[1+i]  backup list job i was fetched into (i = 1..n)
-- ARGV[2i-1] job i exactly as fetched
-- ARGV[2i]   its jid ('' when unreadable)
-- Returns per job 1 when acked, 0 when it was no longer in its backup list, or the error of a
-- broken backup key (that job alone; the others are acked).
local results, done = {}, {}
for i = 1, #KEYS - 1 do
  local removed = redis.pcall('LREM', KEYS[1 + i], 1, ARGV[2 * i - 1])
  if type(removed) == 'table' then
    results[i] = removed.err
  else
    if removed == 1 and ARGV[2 * i] ~= '' then done[#done + 1] = ARGV[2 * i] end
    results[i] = removed
  end
end
-- The acked jobs leave the index in one HDEL per thousand (one command per batch, not per job).
for first = 1, #done, 1000 do
  redis.pcall('HDEL', KEYS[1], unpack(done, first, math.min(first + 999, #done)))
end
return results
