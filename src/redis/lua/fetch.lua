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
-- The script is atomic, so a job is always in the queue or in the backup list, never neither; a
-- broken key of one queue fails that queue alone (checked before anything moves), never the others.
-- A queue paused for output is skipped; a global limit counts every node's running jobs.
local jobs, errors = {}, {}
for i = 1, (#ARGV - 1) / 3 do
  local queue, backup, running = KEYS[3 * i - 1], KEYS[3 * i], KEYS[3 * i + 1]
  local wanted, name, limit = tonumber(ARGV[3 * i - 1]), ARGV[3 * i], ARGV[3 * i + 1]
  local moved = {}
  local paused = redis.pcall('HGET', KEYS[1], name)
  local counts = limit ~= '' and redis.pcall('HVALS', running) or {}
  if type(paused) == 'table' and paused.err then
    errors[#errors + 1] = { i, paused.err }
    wanted = 0
  elseif counts.err then
    errors[#errors + 1] = { i, counts.err }
    wanted = 0
  elseif paused == 'out' or paused == 'all' then
    wanted = 0
  elseif limit ~= '' then
    local total = 0
    for _, count in ipairs(counts) do total = total + (tonumber(count) or 0) end
    wanted = math.min(wanted, tonumber(limit) - total)
  end
  if wanted > 0 then
    -- Up to `wanted` jobs from the consumer (right) end, oldest last; then off the queue and onto
    -- the backup list as one RPOPLPUSH per job would leave them (the oldest deepest). Three
    -- commands per queue, whatever the count: the fetch costs next to nothing per job.
    -- Push before trim: if the backup key is broken the push fails and nothing has moved.
    local taken = redis.pcall('LRANGE', queue, -wanted, -1)
    if type(taken) == 'table' and taken.err then
      errors[#errors + 1] = { i, taken.err }
    elseif #taken > 0 then
      for k = #taken, 1, -1 do moved[#moved + 1] = taken[k] end
      local pushed = redis.pcall('LPUSH', backup, unpack(moved))
      if type(pushed) == 'table' and pushed.err then
        errors[#errors + 1] = { i, pushed.err }
        moved = {}
      else
        redis.call('LTRIM', queue, 0, -(#taken + 1))
      end
    end
  end
  if limit ~= '' and #moved > 0 then
    redis.call('HINCRBY', running, ARGV[1], #moved)
  end
  jobs[i] = moved
end
return { jobs, errors }
