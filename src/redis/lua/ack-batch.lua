-- ack-batch: acks of plain jobs (no unique lock, no running slot) collected over one turn of the
-- node's event loop: take each off its backup list and forget it in the job index, in one call.
-- KEYS[1]    job index <ns>:nexq:jobs
-- KEYS[1+i]  backup list job i was fetched into (i = 1..n)
-- ARGV[2i-1] job i exactly as fetched
-- ARGV[2i]   its jid ('' when unreadable)
-- Returns per job 1 when acked, 0 when it was no longer in its backup list, or the error of a
-- broken backup key (that job alone; the others are acked).
local results = {}
for i = 1, #KEYS - 1 do
  local removed = redis.pcall('LREM', KEYS[1 + i], 1, ARGV[2 * i - 1])
  if type(removed) == 'table' then
    results[i] = removed.err
  else
    if removed == 1 then nexq_forget(KEYS[1], ARGV[2 * i]) end
    results[i] = removed
  end
end
return results
