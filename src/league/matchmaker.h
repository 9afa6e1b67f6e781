// The ladder's matchmaker: which sets of entrants meet in the next round. A pure function of the
// entrants' standing and the round's seed, so a ladder stopped anywhere makes the same choices
// when it resumes from the same store (docs/ladder.md, "Matchmaking").
//
// Each round seats every chosen entrant at most once, so no entrant can take more than its
// share. Entrants are taken in order of priority:
//   2 while it is placing (fewer than `placement` games played or under way)
// + sigma / sigma0 (how unsure its rating still is: 1 for a newcomer)
// + wait / n (matches since it last played, over the number of entrants: about 1 after the
//   wait an even share gives), which grows without bound, so no one is starved.
// Each taken entrant is seated with k-1 opponents from the 8 free entrants nearest to it in
// rating, drawn with weights that favour close ratings and long waits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "league/skill.h"

namespace arbiter::league {

struct Contender {
  std::size_t entrant = 0;  // its index in the ladder
  Skill skill;
  std::int64_t played = 0;  // rated games plus matches under way
  // The index of the last match it was seated in (rated or under way); -1: none yet.
  std::int64_t last_index = -1;
};

struct RoundTerms {
  std::int64_t next_index = 0;  // the index the round's first match will get
  std::size_t seats_min = 2;
  std::size_t seats_max = 2;
  std::size_t groups = 1;       // sets of entrants wanted (fewer when too few are free)
  std::int64_t placement = 10;  // a newcomer's priority games
  std::uint64_t seed = 0;       // the round's own seed (its draws)
};

// The sets of entrants that meet in the round, each in seat order before rotation (the caller
// seats every rotation of a set). `contenders` are the entrants that may play (none benched),
// in any order; the result does not depend on their order. Fewer than seats_min contenders:
// no groups. Time O(n log n + groups) for n contenders.
std::vector<std::vector<std::size_t>> match_round(const std::vector<Contender>& contenders,
                                                  const RoundTerms& terms,
                                                  const SkillParams& params = {});

}  // namespace arbiter::league
