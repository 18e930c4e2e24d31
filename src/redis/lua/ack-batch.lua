-- ack-batch: acks of plain jobs (no unique lock, no running slot) collected over one turn of the
-- node's event loop: take each off its backup list and forget it in the job index, in one call.
-- KEYS[1]    job index <ns>:nexq:jobs
-- KEYS[1+i]  backup list job i was fetched into (i = 1..n)
-- ARGV[2i-1] job i exactly as fetched
-- ARGV[2i]   its jid ('' when unreadable)
-- Returns per job 1 when acked, 0 when it was no longer in its backup list, or the error of a
-- broken backup key (that job alone; the others are acked).
-- The jobs acked are forgotten in the index with one HDEL for the whole batch (one command, not
-- one per job), after every LREM; like nexq_forget, a broken index key fails no ack.
local results, done = {}, {}
for i = 1, #KEYS - 1 do
  local removed = redis.pcall('LREM', KEYS[1 + i], 1, ARGV[2 * i - 1])
  if type(removed) == 'table' then
    results[i] = removed.err
  else
    local jid = ARGV[2 * i]
    if removed == 1 and jid ~= '' then done[#done + 1] = jid end
    results[i] = removed
  end
end
if #done > 0 then redis.pcall('HDEL', KEYS[1], unpack(done)) end
return results
