// The house teams of Concurrent Abalone: bots/abalone/*.lua, compiled into the binary at build
// time (the file name without .lua is the team's name), so that `simple` and `team` can be
// named from any directory.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace arbiter::abalone {

struct HouseTeam {
  std::string name;    // "simple", "team"
  std::string source;  // the Lua chunk
};

// In name order.
const std::vector<HouseTeam>& house_teams();
// The team called `name`, or null.
const HouseTeam* find_house_team(std::string_view name);

}  // namespace arbiter::abalone
