-- Prepended to every nexq script (see ../scripts.ts). A Redis script that fails half way keeps
-- what it already wrote, so a script that takes a job from one key and writes it to another
-- checks first that it can write there: a key of the wrong type fails the whole call, unchanged.
local function nexq_expect_type(key, wanted)
  local actual = redis.call('TYPE', key).ok
  if actual ~= 'none' and actual ~= wanted then
    error({ err = 'WRONGTYPE nexq: ' .. key .. ' holds a ' .. actual .. ', not a ' .. wanted })
  end
end
