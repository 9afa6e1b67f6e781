#include "referee/match.h"

namespace arbiter {

std::string_view limit_by_name(LimitBy by) {
  return by == LimitBy::cpu ? "cpu" : "wall";
}

Json encode_result(const MatchResult& result) {
  Json ejections = Json::array();
  for (const auto& e : result.ejections)
    ejections.push_back(
        {{"seat", e.seat}, {"why", to_string(e.why)}, {"call", e.call}, {"detail", e.detail}});
  Json j = {{"type", "result"},
            {"winners", result.winners},
            {"ejections", ejections},
            {"scores", result.scores}};
  if (result.aborted) j["aborted"] = true;
  return j;
}

}  // namespace arbiter
