-- Prepended to every nexq script (see ../scripts.ts). A Redis script that fails half way keeps
-- what it already wrote, so a script that takes a job from one key and writes it to another
-- checks first that it can write there: a key of the wrong type fails the whole call, unchanged.
local function nexq_expect_type(key, wanted)
  local actual = redis.call('TYPE', key).ok
  if actual ~= 'none' and actual ~= wanted then
    error({ err = 'WRONGTYPE nexq: ' .. key .. ' holds a ' .. actual .. ', not a ' .. wanted })
  end
end

-- The job index (<ns>:nexq:jobs, jid -> where) holds one tab-separated location per job:
--   queued<TAB>queue | running<TAB>queue<TAB>node | schedule<TAB>score | retry<TAB>score | dead<TAB>score
-- The jid of a raw job, or nil when it cannot be read (such a job is not indexed).
local function nexq_jid_of(raw)
  local ok, job = pcall(cjson.decode, raw)
  if ok and type(job) == 'table' and type(job.jid) == 'string' and job.jid ~= '' then
    return job.jid, job
  end
  return nil
end

-- Records where `jid` is now (a nil or '' jid is not indexed).
local function nexq_index(index, jid, location)
  if jid and jid ~= '' then
    redis.call('HSET', index, jid, location)
  end
end

-- Forgets a job that is done: its location and its delivery count.
local function nexq_forget(index, deliveries, jid)
  if jid and jid ~= '' then
    redis.call('HDEL', index, jid)
    redis.call('HDEL', deliveries, jid)
  end
end

-- Checks, before anything moves, that every running hash KEYS[first..] is a hash (or absent), so
-- giving the slots back cannot fail half way.
local function nexq_expect_slots(first)
  for i = first, #KEYS do
    nexq_expect_type(KEYS[i], 'hash')
  end
end

-- Gives back one running slot of `node` in each hash KEYS[first..]: a queue's or a class's limit
-- across nodes (see fetch.lua).
local function nexq_release_slots(first, node)
  if node == '' then return end
  for i = first, #KEYS do
    if redis.call('HINCRBY', KEYS[i], node, -1) <= 0 then
      redis.call('HDEL', KEYS[i], node)
    end
  end
end
