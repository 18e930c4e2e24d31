-- fetch: move up to N jobs from each queue into this node's backup list for it, in one round trip.
-- KEYS[2i-1]  queue list              <ns>:queue:<q>
-- KEYS[2i]    this node's backup list <ns>:queue:backup::<node>::<q>
-- ARGV[i]     how many jobs to move from queue i (its free slots)
-- Returns { jobs, errors }: jobs[i] is the array of raw jobs moved from queue i, oldest first;
-- errors is an array of { i, message } for queues whose keys could not be used (e.g. WRONGTYPE).
-- RPOPLPUSH is atomic per job, so a job is always in the queue or in the backup list, never neither;
-- a broken key of one queue fails that queue alone (pcall), never the jobs already moved for others.
local jobs, errors = {}, {}
for i = 1, #ARGV do
  local queue, backup = KEYS[2 * i - 1], KEYS[2 * i]
  local moved = {}
  for _ = 1, tonumber(ARGV[i]) do
    local job = redis.pcall('RPOPLPUSH', queue, backup)
    if type(job) == 'table' and job.err then
      errors[#errors + 1] = { i, job.err }
      break
    end
    if not job then break end
    moved[#moved + 1] = job
  end
  jobs[i] = moved
end
return { jobs, errors }
