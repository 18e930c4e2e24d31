-- queue-page: the jobs of a queue behind one of them, next to run first, read in one step so the
-- page is exact while nodes fetch from one end and producers push at the other.
-- KEYS[1]  the queue list <ns>:queue:<q> (pushed on the left, fetched from the right)
-- ARGV[1]  the anchor's jid: the page starts behind it ('' to start at the next job to run)
-- ARGV[2]  how many jobs to return
-- ARGV[3]  how many jobs to search for the anchor, from the right
-- Returns { 1 when the anchor was found (or none was asked for) else 0, jobs... }. An anchor not
-- found was fetched (every job ahead of it too) or deleted: the page starts at the right end.
-- The cluster rule (_prelude.lua): it only reads.
nexq_expect_type(KEYS[1], 'list')
local anchor, want, most = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local from, found = 0, 1
if anchor ~= '' then
  found = 0
  local needle = cjson.encode(anchor)
  local length = redis.call('LLEN', KEYS[1])
  local searched = 0
  while found == 0 and searched < math.min(length, most) do
    local chunk = redis.call('LRANGE', KEYS[1], -(searched + 1000), -(searched + 1))
    for i = #chunk, 1, -1 do
      local raw = chunk[i]
      if string.find(raw, needle, 1, true) and nexq_jid_of(raw) == anchor then
        from, found = searched + (#chunk - i) + 1, 1
        break
      end
    end
    searched = searched + #chunk
    if #chunk == 0 then break end
  end
end
local page = redis.call('LRANGE', KEYS[1], -(from + want), -(from + 1))
local reply = { found }
for i = #page, 1, -1 do reply[#reply + 1] = page[i] end
return reply
