-- fetch: move up to N jobs from each queue into this node's backup list for it, in one round trip.
-- KEYS[1]       paused queues, hash <ns>:nexq:paused (queue -> in | out | all)
-- KEYS[3i-1]    queue list              <ns>:queue:<q>
-- KEYS[3i]      this node's backup list <ns>:queue:backup::<node>::<q>
-- KEYS[3i+1]    jobs running per node,  hash <ns>:nexq:running:<q> (node -> count), for global limits
-- ARGV[1]       this node's id
-- ARGV[3i-1]    how many jobs to move from queue i (its free slots on this node)
-- ARGV[3i]      queue name i
-- ARGV[3i+1]    queue i's limit across all nodes ('' for none)
-- Returns { jobs, errors }: jobs[i] is the array of raw jobs moved from queue i, oldest first;
-- errors is an array of { i, message } for queues whose keys could not be used (e.g. WRONGTYPE).
-- RPOPLPUSH is atomic per job, so a job is always in the queue or in the backup list, never neither;
-- a broken key of one queue fails that queue alone (pcall), never the jobs already moved for others.
-- A queue paused for output is skipped; a global limit counts every node's running jobs.
local jobs, errors = {}, {}
for i = 1, (#ARGV - 1) / 3 do
  local queue, backup, running = KEYS[3 * i - 1], KEYS[3 * i], KEYS[3 * i + 1]
  local wanted, name, limit = tonumber(ARGV[3 * i - 1]), ARGV[3 * i], ARGV[3 * i + 1]
  local moved = {}
  local paused = redis.call('HGET', KEYS[1], name)
  if paused == 'out' or paused == 'all' then
    wanted = 0
  elseif limit ~= '' then
    local total = 0
    for _, count in ipairs(redis.call('HVALS', running)) do total = total + tonumber(count) end
    wanted = math.min(wanted, tonumber(limit) - total)
  end
  for _ = 1, wanted do
    local job = redis.pcall('RPOPLPUSH', queue, backup)
    if type(job) == 'table' and job.err then
      errors[#errors + 1] = { i, job.err }
      break
    end
    if not job then break end
    moved[#moved + 1] = job
  end
  if limit ~= '' and #moved > 0 then
    redis.call('HINCRBY', running, ARGV[1], #moved)
  end
  jobs[i] = moved
end
return { jobs, errors }
