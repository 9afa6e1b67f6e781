// The course harnesses' Result (docs/games/q.md §1.9): [[winner names sorted by string<],
// [misbehaving names in elimination order]].
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "core/json.h"
#include "referee/match.h"

namespace arbiter::q::harness {

inline Json course_result(const MatchResult& result, const std::vector<std::string>& names) {
  std::vector<std::string> winners;
  for (Seat s : result.winners) winners.push_back(names[s]);
  std::sort(winners.begin(), winners.end());
  std::vector<std::string> ejected;
  for (const auto& e : result.ejections) ejected.push_back(names[e.seat]);
  return Json::array({winners, ejected});
}

}  // namespace arbiter::q::harness
