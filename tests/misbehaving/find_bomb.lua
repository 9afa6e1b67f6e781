-- find_bomb.lua: a hostile Abalone team (tests/e2e/tournament_e2e.py). Every piece searches an
-- 8 MiB haystack of 'a' for 2 MiB of 'a' followed by 'b', as a plain find, again and again.
-- Lua's own plain find compares the needle at every position: hours of work inside one C call,
-- where no instruction budget or step watchdog could stop it. The sandbox searches in linear
-- time and charges the bytes to the piece's budget, so the team only loses its own time.
local function piece()
  local h = string.rep("a", 1 << 20)
  h = h .. h .. h .. h
  h = h .. h
  local n = h:sub(1, 2 << 20) .. "b"
  while true do
    string.find(h, n, 1, true)
    commit(0)
    wait_my_turn()
  end
end

return piece
