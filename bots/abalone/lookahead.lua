-- lookahead.lua: a Concurrent Abalone team that looks one resolution ahead (docs/games/abalone.md).
--
-- Every piece spawns while it may (14 pieces). At each of its team's turns the pieces:
--   1. publish their hexes and scan the board together (chunks claimed with cas), then wait on
--      a barrier sized to the live pieces;
--   2. each try their own moves on a copy of the board: a step to an empty neighbour, or a push
--      they head with one or two teammates lined up behind. A move is played, judged, undone. The judgement looks at the position the enemy will answer:
--      which of our pieces the enemy could push off at its next resolution (a piece on the rim
--      with more enemies lined up behind it than teammates), which of its pieces we could push
--      off at ours, a kill or an outward push now, and where our pieces stand (inner rings and
--      teammates around are better). Only moves better than standing still are proposed;
--   3. the lowest-numbered piece picks the best proposals that share no piece and no hex (so the
--      order in which the chains resolve cannot matter), playing each on its own copy of the
--      board and dropping one that together with those before it leaves the position worse
--      than judged alone (while more than CHECK_UNTIL cycles are left before the resolution). The
--      plan grows one whole move at a time; every piece commits its part when the plan is done,
--      or at the last cycle before the resolution whatever the plan holds by then.
-- Only the enemy's next reply is looked at: the search is one of our moves deep against every
-- push the enemy could answer with. Deterministic: integer-indexed tables, no randomness.

local EMPTY, OWN, ENEMY, OFF = 1, 2, 3, 4

local KILL = 1000    -- pushing an enemy off now
local LOSS = 700     -- one of ours the enemy could push off at its next resolution
local THREAT = 120   -- one of theirs we could push off at our next resolution
local OUTWARD = 40   -- a push, per ring it moves the front enemy towards the rim
local PUSH = 20      -- any push that keeps the enemy on the board
local RING_W = {[0] = 12, 10, 7, 3, -6}  -- own piece by ring (4 = rim)
local MATE = 4       -- per teammate next to a moved piece
local NEAR = 3       -- per enemy next to a moved piece
local CHUNK = 8
-- The leader checks the plan's moves together only while more cycles than this are left before
-- the resolution (one check can take up to 4 cycles); later moves go into the plan unchecked.
local CHECK_UNTIL = 5

-- Geometry: hex (r, d) is cell (r + 4) * 9 + d + 5; 0 is "off the board". Directions 1..6 are
-- (dr, dd) = (0,1) (1,1) (1,0) (0,-1) (-1,-1) (-1,0).
local DR = {0, 1, 1, 0, -1, -1}
local DD = {1, 1, 0, -1, -1, 0}
local OPP = {4, 5, 6, 1, 2, 3}
local CELLS, R, D, RING, NB, RIM = {}, {}, {}, {}, {}, {}

local function onboard(r, d)
  return r >= -4 and r <= 4 and d >= -4 and d <= 4 and r - d >= -4 and r - d <= 4
end
local function cell(r, d) return (r + 4) * 9 + d + 5 end

for r = -4, 4 do
  for d = -4, 4 do
    if onboard(r, d) then
      local c = cell(r, d)
      CELLS[#CELLS + 1] = c
      R[c], D[c] = r, d
      RING[c] = math.max(math.abs(r), math.abs(d), math.abs(r - d))
    end
  end
end
for dir = 1, 6 do
  local t = {[0] = 0}
  for _, c in ipairs(CELLS) do
    local r, d = R[c] + DR[dir], D[c] + DD[dir]
    t[c] = onboard(r, d) and cell(r, d) or 0
  end
  NB[dir] = t
end
for _, c in ipairs(CELLS) do
  if RING[c] == 4 then RIM[#RIM + 1] = c end
end
local NCELLS, NRIM = #CELLS, #RIM

-- Can `them` push the piece of `us` on rim hex c off the board at their next resolution? Along
-- a direction that leaves the board from c: c and at most one more of `us` behind it, then
-- more of `them` lined up behind those (2 push 1, 3 push 2).
local function exposed(B, c, us, them)
  for d = 1, 6 do
    if NB[d][c] == 0 then
      local back = NB[OPP[d]]
      local x, m = back[c], 1
      if B[x] == us then m, x = 2, back[x] end
      if B[x] == them then
        local y = back[x]
        if m == 1 then
          if B[y] == them then return true end
        elseif B[y] == them and B[back[y]] == them then
          return true
        end
      end
    end
  end
  return false
end

-- The position's value for us, as far as the enemy's reply and our next turn go: our pieces
-- on the rim it could push off, and its pieces on the rim we could.
local function exposure(B)
  local v = 0
  for i = 1, NRIM do
    local c = RIM[i]
    local o = B[c]
    if o == OWN then
      if exposed(B, c, OWN, ENEMY) then v = v - LOSS end
    elseif o == ENEMY then
      if exposed(B, c, ENEMY, OWN) then v = v + THREAT end
    end
  end
  return v
end

-- Where an own piece stands: its ring, teammates and enemies around it.
local function standing(B, c)
  local v = RING_W[RING[c]]
  for d = 1, 6 do
    local o = B[NB[d][c]]
    if o == OWN then v = v + MATE elseif o == ENEMY then v = v + NEAR end
  end
  return v
end

local function reserve_id()
  while true do
    local n = shared.nid
    if cas(shared, "nid", n, n + 1) then return n + 1 end
  end
end

-- This piece's proposals on board B (its own copy, changed and restored): each {value, dir,
-- ids, cells, ex, set}, the value relative to standing still (`base`, the exposure of the board
-- as it is), ex the part of it that is exposure, set the hexes the move changes and what they
-- become (hex, code, hex, code, ...).
local function proposals(B, owner, id, x, base)
  local list = {}
  for d = 1, 6 do
    local ahead, back = NB[d], NB[OPP[d]]
    local h1 = ahead[x]
    local o1 = B[h1]
    if o1 == EMPTY then
      local before = standing(B, x)
      B[x], B[h1] = EMPTY, OWN
      local ex = exposure(B) - base
      local v = ex + standing(B, h1) - before
      B[x], B[h1] = OWN, EMPTY
      if v > 0 then
        list[#list + 1] = {value = v, dir = d, ids = {id}, cells = {x, h1}, ex = ex,
                           set = {x, EMPTY, h1, OWN}}
      end
    elseif o1 == ENEMY then
      -- e enemies in a row, then an empty hex or the edge; k own pieces in line behind.
      local h2 = ahead[h1]
      local e, h3 = 0, 0
      if h2 == 0 or B[h2] == EMPTY then
        e = 1
      elseif B[h2] == ENEMY then
        h3 = ahead[h2]
        if h3 == 0 or B[h3] == EMPTY then e = 2 end
      end
      local s1 = back[x]
      local s2 = back[s1]
      if e > 0 and B[s1] == OWN and (e == 1 or B[s2] == OWN) then
        local tail, front, dest = s1, h1, h2
        if e == 2 then tail, front, dest = s2, h2, h3 end
        -- Play it: the tail hex empties, the head takes h1, the front enemy goes to dest.
        B[tail], B[h1] = EMPTY, OWN
        if dest ~= 0 then B[dest] = ENEMY end
        local ex = exposure(B) - base
        local v = ex
        if dest == 0 then
          v = v + KILL
        else
          v = v + PUSH + OUTWARD * (RING[dest] - RING[front])
        end
        if dest ~= 0 then B[dest] = EMPTY end
        B[tail], B[h1] = OWN, ENEMY
        if v > 0 then
          local ids, cells = {id, owner[s1]}, {x, s1, h1, h2}
          if e == 2 then
            ids[3] = owner[s2]
            cells[5], cells[6] = s2, h3
          end
          local set = {tail, EMPTY, h1, OWN}
          if dest ~= 0 then set[5], set[6] = dest, ENEMY end
          list[#list + 1] = {value = v, dir = d, ids = ids, cells = cells, ex = ex, set = set}
        end
      end
    end
  end
  return list
end

-- The leader's plan (round.moves): the best proposals whose pieces and hexes are all still free. Keys sort in
-- C (numbers only): value * 1024 + index, so the index is key % 1024.
local function plan(round)
  local recs, keys, n = {}, {}, 0
  for id = 1, shared.nid do
    local list = round.cand[id]
    if list then
      for i = 1, #list do
        n = n + 1
        recs[n] = list[i]
        keys[n] = list[i].value * 1024 + n
      end
    end
  end
  table.sort(keys)
  -- The plan grows one whole move at a time in round.moves, so a teammate that stops waiting
  -- at the last cycle commits what is there, never half of a push; the leader stops adding
  -- when its teammates may have committed.
  local used, claimed, moves = {}, {[0] = false}, round.moves
  -- Moves are judged one by one; together two may expose what neither does alone (a teammate
  -- behind a rim piece steps away while another steps next to it). The leader plays the plan
  -- on its own copy and drops a move that makes the position worse than its own judgement
  -- said, while time allows.
  local B = {[0] = OFF}
  local src = round.board
  for i = 1, NCELLS do
    local c = CELLS[i]
    B[c] = src[c]
  end
  local now = round.base
  for k = n, 1, -1 do
    local _, left = gamestat()
    if left <= 1 then break end
    local rec = recs[keys[k] % 1024]
    local free = true
    for _, p in ipairs(rec.ids) do if used[p] then free = false end end
    for _, c in ipairs(rec.cells) do if claimed[c] then free = false end end
    if free and left > CHECK_UNTIL then
      local set, old = rec.set, {}
      for i = 1, #set, 2 do old[i] = B[set[i]]; B[set[i]] = set[i + 1] end
      local after = exposure(B)
      if after < now + rec.ex then
        free = false
        for i = #set - 1, 1, -2 do B[set[i]] = old[i] end
      else
        now = after
      end
    end
    if free then
      for _, p in ipairs(rec.ids) do used[p] = true end
      for _, c in ipairs(rec.cells) do if c ~= 0 then claimed[c] = true end end
      moves[#moves + 1] = rec
    end
  end
  round.ready = true
end

-- The direction the plan gives piece `id`, or 0.
local function my_move(round, id)
  local moves = round.moves
  for i = 1, #moves do
    local rec = moves[i]
    for _, p in ipairs(rec.ids) do
      if p == id then return rec.dir end
    end
  end
  return 0
end

local function play_turn(id)
  local turn = gamestat()
  local round = shared.round
  if round == nil or round.turn ~= turn then
    local fresh = {turn = turn, bar = barrier.new(teamstat()), board = {[0] = OFF}, owner = {},
                   pos = {}, cursor = 0, cand = {}, moves = {}, ready = false}
    cas(shared, "round", round, fresh)
    round = shared.round
  end
  local r, d = mystat()
  local x = cell(r, d)
  round.pos[id] = x
  round.owner[x] = id
  local B = round.board
  while true do
    local k = round.cursor
    if k >= NCELLS then break end
    if cas(round, "cursor", k, k + CHUNK) then
      for i = k + 1, math.min(k + CHUNK, NCELLS) do
        local c = CELLS[i]
        B[c] = inspect(R[c], D[c])
      end
    end
  end
  barrier.wait(round.bar)
  if round.base == nil then round.base = exposure(B) end
  -- Trial moves are played on a copy: a step may end at its budget in the middle of one, and
  -- the teammates stepped next must not see the shared board half changed.
  local mine = {[0] = OFF}
  for i = 1, NCELLS do
    local c = CELLS[i]
    mine[c] = B[c]
  end
  round.cand[id] = proposals(mine, round.owner, id, x, round.base)
  barrier.wait(round.bar)
  local leader
  for i = 1, shared.nid do
    if round.pos[i] then leader = i; break end
  end
  if leader == id then plan(round) end
  while not round.ready do
    local _, left = gamestat()
    if left <= 1 then break end
    yield()
  end
  commit(my_move(round, id))
end

local function piece(id)
  while true do
    local child = reserve_id()
    if not spawn(function() piece(child) end) then break end
  end
  while true do
    wait_my_turn()
    play_turn(id)
  end
end

return function()
  shared.nid = 1
  piece(1)
end
