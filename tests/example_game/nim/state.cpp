#include "state.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "core/rng.h"

namespace arbiter::nim {

State State::start(const Config& config) {
  State s;
  s.config_ = config;
  s.heaps_ = config.heaps;
  return s;
}

// Over when every heap is empty (the last mover won) or fewer than two seats are left.
bool State::over() const {
  if (in_count() < 2) return true;
  return std::all_of(heaps_.begin(), heaps_.end(), [](int h) { return h == 0; });
}

Seats State::to_move() const {
  if (over()) return {};
  return {turn_};
}

Seats State::turn_order() const {
  Seats out;
  for (Seat p : {0, 1})
    if (in_[p]) out.push_back(p);
  return out;
}

View State::view(Seat p) const { return View{heaps_, config_.max_take, p}; }

std::optional<Foul> State::check(Seat p, const Action& a) const {
  if (over() || p != turn_) return Foul{"not-your-turn", fmt::format("it is seat {}'s turn", turn_)};
  if (a.heap < 0 || a.heap >= static_cast<int>(heaps_.size()))
    return Foul{"no-such-heap", fmt::format("heap {} does not exist (there are {})", a.heap,
                                            heaps_.size())};
  if (a.take < 1 || a.take > config_.max_take)
    return Foul{"bad-take", fmt::format("take {}: a move takes 1 to {} objects", a.take,
                                        config_.max_take)};
  if (a.take > heaps_[a.heap])
    return Foul{"too-many", fmt::format("take {} from heap {}, which holds {}", a.take, a.heap,
                                        heaps_[a.heap])};
  return std::nullopt;
}

void State::apply(Seat p, const Action& a) {
  heaps_[a.heap] -= a.take;
  last_mover_ = p;
  turn_ = 1 - p;
}

void State::eject(Seat p) {
  if (p < 0 || p > 1) return;
  in_[p] = false;
}

// The seat left alone wins; otherwise whoever took the last object wins.
Standings State::standings() const {
  Standings st;
  if (in_count() == 1) {
    st.winners.push_back(in_[0] ? 0 : 1);
  } else if (in_count() == 2 && last_mover_) {
    st.winners.push_back(*last_mover_);
    st.losers.push_back(1 - *last_mover_);
  } else if (in_count() == 2) {
    // Every heap empty from the start: the seat to move cannot move and loses.
    st.winners.push_back(1 - turn_);
    st.losers.push_back(turn_);
  }
  st.scores = {in_[0] && !st.winners.empty() && st.winners[0] == 0 ? 1 : 0,
               in_[1] && !st.winners.empty() && st.winners[0] == 1 ? 1 : 0};
  return st;
}

State State::scramble_hidden(Seat, Rng&) const { return *this; }

}  // namespace arbiter::nim
