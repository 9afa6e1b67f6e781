-- bad_commit.lua: a golden-log team (tests/golden/README.md) whose pieces break the bot API.
-- Every piece spawns while it may and steps in a random empty direction at its team's first
-- three turns; then each calls commit(9), a direction that does not exist: a Lua error that ends
-- that bot (the enemy scores one for each), until the enemy reaches the winning score.
local T_EMPTY = 1

local function piece()
  while spawn(piece) do end
  for _ = 1, 3 do
    local around = scan()
    local empty = {}
    for dir = 1, 6 do
      if around[dir] == T_EMPTY then empty[#empty + 1] = dir end
    end
    if #empty > 0 then commit(empty[math.random(#empty)]) else commit(0) end
    wait_my_turn()
  end
  commit(9)
end

return piece
