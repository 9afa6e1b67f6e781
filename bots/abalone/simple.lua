-- simple.lua: the baseline team (docs/games/abalone.md). Every piece spawns to the limit while
-- spawning is allowed; then, before each of its team's resolutions, it commits a random direction
-- toward an empty neighbouring hex.

local T_EMPTY = 1

local function piece()
  -- Spawning only works during the team's first turn; spawn() returns false once it no longer can.
  while spawn(piece) do end
  while true do
    local around = scan()
    local empty = {}
    for dir = 1, 6 do
      if around[dir] == T_EMPTY then empty[#empty + 1] = dir end
    end
    if #empty > 0 then commit(empty[math.random(#empty)]) else commit(0) end
    wait_my_turn()
  end
end

return piece
