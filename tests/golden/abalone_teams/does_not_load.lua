-- does_not_load.lua: a golden-log team (tests/golden/README.md) whose chunk is not valid Lua, so
-- it does not load: the team forfeits at setup (an exception), and the other team wins at once.
return function()
  commit(1
end
