-- clear-stretch: the rest of a clear (clear-detach.lua), a stretch per call: takes up to ARGV[2]
-- jobs off a clearing key, forgets them in the job index where it still has them in the cleared
-- place, and names the unique locks they held, which the caller lets go of.
-- KEYS[1]  the clearing key (a list, or a sorted set: a set's, or a fair queue's groups' jobs)
-- KEYS[2]  job index <ns>:nexq:jobs
-- ARGV[1]  what the index calls the place: queued (a queue), schedule, retry or dead
-- ARGV[2]  how many jobs to take at most
-- ARGV[3]  '1' when members are a fair queue's (<group>\0<seq>\0<job>)
-- Returns { jobs taken, { unique_key, jid, ... } of the unique jobs among them, jobs left }.
-- The cluster rule (_prelude.lua): the length is read first; the removal (LTRIM, ZREMRANGEBYRANK, or
-- DEL when it takes the rest) is the key's last command and the call's first write.
local most = tonumber(ARGV[2])
local kind = redis.call('TYPE', KEYS[1]).ok
if kind == 'none' then return { 0, {}, 0 } end
if kind ~= 'list' and kind ~= 'zset' then
  return redis.error_reply('WRONGTYPE nexq: ' .. KEYS[1] .. ' holds a ' .. kind .. ', not a list or a sorted set')
end
local isList = kind == 'list'
local length = redis.call(isList and 'LLEN' or 'ZCARD', KEYS[1])
local take = math.min(length, most)
if take <= 0 then return { 0, {}, length } end
local members = redis.call(isList and 'LRANGE' or 'ZRANGE', KEYS[1], 0, take - 1)
if take == length then
  redis.call('DEL', KEYS[1])
elseif isList then
  redis.call('LTRIM', KEYS[1], take, -1)
else
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, take - 1)
end
local jids, locks = {}, {}
for _, member in ipairs(members) do
  if ARGV[3] == '1' then
    local _, after = string.find(member, '^[^%z]*%z[^%z]*%z')
    member = after and string.sub(member, after + 1) or member
  end
  local jid, job = nexq_jid_of(member)
  if jid then jids[#jids + 1] = jid end
  if jid and type(job.unique_key) == 'string' then
    locks[#locks + 1] = job.unique_key
    locks[#locks + 1] = jid
  end
end
nexq_forget_all(KEYS[2], jids, ARGV[1])
return { take, locks, length - take }
