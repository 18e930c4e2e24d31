-- fetch: move up to N jobs from each queue into this node's backup list for it, in one round trip.
-- KEYS[2i-1]  queue list              <ns>:queue:<q>
-- KEYS[2i]    this node's backup list <ns>:queue:backup::<node>::<q>
-- ARGV[i]     how many jobs to move from queue i (its free slots)
-- Returns: one array per queue, the raw jobs moved, oldest first.
-- RPOPLPUSH is atomic per job, so a job is always in the queue or in the backup list, never neither.
local result = {}
for i = 1, #ARGV do
  local queue, backup = KEYS[2 * i - 1], KEYS[2 * i]
  local jobs = {}
  for _ = 1, tonumber(ARGV[i]) do
    local job = redis.call('RPOPLPUSH', queue, backup)
    if not job then break end
    jobs[#jobs + 1] = job
  end
  result[i] = jobs
end
return result
