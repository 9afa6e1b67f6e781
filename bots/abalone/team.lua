-- team.lua: a coordinated Concurrent Abalone team (docs/games/abalone.md).
--
-- Every piece spawns while it may (14 pieces), then plays the same three-phase round at each of
-- its team's turns, coordinated through the team's `shared` table, `cas` and a barrier:
--   1. Publish and scan. Each piece writes its own position into the round's shared table and
--      helps read the board: pieces claim chunks of the 61 hexes with cas and inspect them.
--      A barrier (sized to the live pieces) waits until the whole board is known.
--   2. Propose. Each piece lists its own candidate moves with a value: pushes it would head with
--      1 or 2 teammates lined up behind it (2 vs 1, 3 vs 1 or 2; pushing an enemy off the rim
--      scores, pushing towards the rim is good, inwards is not), and single steps that improve
--      its place (closer to enemies near the rim, lined up with a teammate behind an enemy it
--      could push outwards, off the rim itself, and above all not on the rim in front of two
--      enemies that could push it off). A second wait on the barrier.
--   3. Plan and commit. The lowest-numbered piece picks the best candidates that touch disjoint
--      hexes and pieces (so the resolution order of the chains cannot matter) and publishes the
--      plan; every piece commits its part and sleeps until the enemy has moved.
-- Deterministic: integer-indexed tables only, and no randomness.

local EMPTY, OWN, ENEMY, OFF = 1, 2, 3, 4

-- Values of moves and places.
local KILL = 1000     -- pushing an enemy off the board
local PUSH = 40       -- any push that keeps the enemy on the board ...
local OUTWARD = 50    -- ... plus this per ring it moves the enemy towards the rim
local RIM = 30        -- own piece on the rim
local DANGER = 400    -- own piece on the rim with two enemies lined up behind it
local RING_W = {[0] = 0, 5, 10, 20, 30}  -- how attractive an enemy is, by its ring
local STEP_W = 8      -- per hex of distance to that enemy
local PAIR = 25       -- next to an enemy we could push outwards, with a teammate behind us
local ADJ = 8         -- the same without the teammate

-- Board geometry, computed once when the chunk loads and only read afterwards. A hex (r, d) is
-- the cell (r + 4) * 9 + d + 5 (1..81); cell 0 stands for "off the board".
local DR = {0, 1, 1, 0, -1, -1}   -- direction 1..6 as (dr, dd)
local DD = {1, 1, 0, -1, -1, 0}
local OPP = {4, 5, 6, 1, 2, 3}    -- the opposite direction
local CELLS = {}                  -- the 61 cells in reading order
local R, D, RING = {}, {}, {}     -- per cell: coordinates, distance from the centre (4 = rim)
local NB = {}                     -- NB[dir][cell]: the neighbouring cell, 0 off the board

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
local NCELLS = #CELLS
local CHUNK = 8  -- hexes a piece claims at a time while scanning

-- A fresh piece number (shared.nid counts them). Numbers follow creation order, like PIDs.
local function reserve_id()
  while true do
    local n = shared.nid
    if cas(shared, "nid", n, n + 1) then return n + 1 end
  end
end

-- How good hex y is for an own piece that now stands on x (x counts as empty).
local function place_value(B, y, x, enemies, ne)
  local v = 0
  if RING[y] == 4 then
    v = v - RIM
    -- Two enemies in line behind y, pointing off the board, would push us off.
    for d = 1, 6 do
      if NB[d][y] == 0 then
        local back = NB[OPP[d]]
        local e1 = back[y]
        if B[e1] == ENEMY and B[back[e1]] == ENEMY then v = v - DANGER end
      end
    end
  end
  -- Head for the most attractive enemy: near, and near the rim.
  local best = -1000000
  local ry, dy = R[y], D[y]
  for i = 1, ne do
    local e = enemies[i]
    local dr, dd = R[e] - ry, D[e] - dy
    local dist = dr - dd  -- hex distance: the largest of |dr|, |dd|, |dr - dd|
    if dist < 0 then dist = -dist end
    if dr < 0 then dr = -dr end
    if dd < 0 then dd = -dd end
    if dr > dist then dist = dr end
    if dd > dist then dist = dd end
    local s = RING_W[RING[e]] - STEP_W * dist
    if s > best then best = s end
  end
  v = v + best
  -- Enemies next to y that a push from y would move outwards; better with a teammate behind.
  for d = 1, 6 do
    local e = NB[d][y]
    if B[e] == ENEMY then
      local beyond = NB[d][e]
      if beyond == 0 or RING[beyond] > RING[e] then
        local s = NB[OPP[d]][y]
        if s ~= x and B[s] == OWN then v = v + PAIR else v = v + ADJ end
      end
    end
  end
  return v
end

-- This piece's candidate moves: pushes it heads and single steps. Each candidate lists the
-- pieces that commit (ids) and every hex the move reads or changes (cells).
local function candidates(round, id, x)
  local B, owner, enemies, ne = round.board, round.owner, round.enemies, round.ne
  local list = {}
  local here = place_value(B, x, x, enemies, ne)
  for d = 1, 6 do
    local ahead = NB[d]
    local h1 = ahead[x]
    if B[h1] == EMPTY then
      local v = place_value(B, h1, x, enemies, ne) - here
      if v > 0 then list[#list + 1] = {value = v, dir = d, ids = {id}, cells = {x, h1}} end
    elseif B[h1] == ENEMY then
      -- e enemies in a row, then an empty hex or the edge (dest; 0 = pushed off).
      local h2 = ahead[h1]
      local e, h3 = 0, 0
      if h2 == 0 or B[h2] == EMPTY then
        e = 1
      elseif B[h2] == ENEMY then
        h3 = ahead[h2]
        if h3 == 0 or B[h3] == EMPTY then e = 2 end
      end
      -- e + 1 pieces in line: this one and e teammates behind it.
      local back = NB[OPP[d]]
      local s1 = back[x]
      local s2 = back[s1]
      if e > 0 and B[s1] == OWN and (e == 1 or B[s2] == OWN) then
        local last, dest = h1, h2
        if e == 2 then last, dest = h2, h3 end
        local v
        if dest == 0 then
          v = KILL
        else
          v = PUSH + OUTWARD * (RING[dest] - RING[last])
        end
        if v > 0 then
          local ids, cells = {id, owner[s1]}, {x, s1, h1, h2}
          if e == 2 then
            ids[3] = owner[s2]
            cells[5], cells[6] = s2, h3
          end
          list[#list + 1] = {value = v, dir = d, ids = ids, cells = cells}
        end
      end
    end
  end
  return list
end

-- The leader's plan: the best candidates whose pieces and hexes are all still free. Keys sort
-- in C (numbers only): value * 1024 + index, so the index is key % 1024.
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
  local used, claimed, out = {}, {[0] = false}, round.plan
  for k = n, 1, -1 do
    local rec = recs[keys[k] % 1024]
    local free = true
    for _, p in ipairs(rec.ids) do if used[p] then free = false end end
    for _, c in ipairs(rec.cells) do if claimed[c] then free = false end end
    if free then
      for _, p in ipairs(rec.ids) do used[p] = true; out[p] = rec.dir end
      for _, c in ipairs(rec.cells) do if c ~= 0 then claimed[c] = true end end
    end
  end
  round.ready = true
end

-- One turn of one piece.
local function play_turn(id)
  local turn = gamestat()
  local pieces = teamstat()
  -- The round's shared table, installed with cas by the first piece to wake: its barrier for
  -- the live pieces, the board (cell -> object code), piece number <-> cell, the scan cursor,
  -- each piece's candidates and the plan (piece number -> direction).
  local round = shared.round
  if round == nil or round.turn ~= turn then
    local fresh = {turn = turn, bar = barrier.new(pieces), board = {[0] = OFF}, owner = {},
                   pos = {}, cursor = 0, cand = {}, plan = {}, ready = false}
    cas(shared, "round", round, fresh)
    round = shared.round
  end
  -- 1. Publish our position; scan chunks of the board until every hex is claimed.
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
  -- 2. The enemy list (whoever gets here first builds it), then our proposals.
  if round.enemies == nil then
    local en, ne = {}, 0
    for i = 1, NCELLS do
      local c = CELLS[i]
      if B[c] == ENEMY then ne = ne + 1; en[ne] = c end
    end
    round.ne = ne
    round.enemies = en
  end
  round.cand[id] = candidates(round, id, x)
  barrier.wait(round.bar)
  -- 3. The lowest-numbered live piece plans; everyone commits its part before the resolution.
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
  commit(round.plan[id] or 0)
end

local function piece(id)
  -- Spawning only works until the team's first resolution; spawn() says false from then on.
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
