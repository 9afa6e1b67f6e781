#include "games/q/state.h"

#include <algorithm>
#include <cassert>
#include <limits>

#include <fmt/format.h>

namespace arbiter::q {
namespace {

template <class C>
void erase_value(C& c, Seat p) {
  c.erase(std::remove(c.begin(), c.end(), p), c.end());
}

// Removes one copy of each placed tile from `hand`. REQUIRES: the tiles are in the hand.
void remove_placed(Tiles& hand, const Placements& placements) {
  for (const auto& pl : placements) {
    auto it = std::find(hand.begin(), hand.end(), pl.tile);
    assert(it != hand.end());
    hand.erase(it);
  }
}

}  // namespace

State State::start(const Config& config, Rng& rng) {
  State s;
  s.bonuses_ = config.bonuses;
  if (config.table) {
    const Table& t = *config.table;
    s.map_ = t.map;
    for (const auto& seated : t.players) {
      s.hands_.push_back(seated.hand);
      s.scores_.push_back(seated.score);
    }
    s.pile_.assign(t.pile.begin(), t.pile.end());
  } else {
    Tiles all;
    all.reserve(kShapes * kColors * kCopiesPerKind);
    for (Tile kind : all_kinds())
      for (int i = 0; i < kCopiesPerKind; ++i) all.push_back(kind);
    rng.shuffle(all.begin(), all.end());
    s.pile_.assign(all.begin(), all.end());
    const int n = std::clamp(config.players, 1, kMaxPlayers);
    for (int p = 0; p < n; ++p) {
      Tiles hand(s.pile_.begin(), s.pile_.begin() + kHandSize);
      s.pile_.erase(s.pile_.begin(), s.pile_.begin() + kHandSize);
      s.hands_.push_back(std::move(hand));
      s.scores_.push_back(0);
    }
    s.map_.place({0, 0}, s.pile_.front());
    s.pile_.pop_front();
  }
  for (Seat p = 0; p < static_cast<Seat>(s.hands_.size()); ++p) s.order_.push_back(p);
  s.round_to_go_.assign(s.order_.begin(), s.order_.end());
  s.over_ = s.order_.empty();
  return s;
}

bool State::in_game(Seat p) const {
  return std::find(order_.begin(), order_.end(), p) != order_.end();
}

Seats State::to_move() const {
  if (over_ || order_.empty()) return {};
  return {order_.front()};
}

View State::view(Seat p) const {
  View v;
  v.map = map_;
  v.hand = hands_[p];
  v.score = scores_[p];
  v.pile = pile_.size();
  auto me = std::find(order_.begin(), order_.end(), p);
  if (me == order_.end()) {
    for (Seat o : order_) v.others.push_back(scores_[o]);
  } else {
    // The others in turn order after p, wrapping around.
    for (auto it = std::next(me); it != order_.end(); ++it) v.others.push_back(scores_[*it]);
    for (auto it = order_.begin(); it != me; ++it) v.others.push_back(scores_[*it]);
  }
  return v;
}

std::optional<Foul> State::check(Seat p, const Action& a) const {
  if (to_move() != Seats{p})
    return Foul{"not-your-turn", fmt::format("seat {} acted out of turn", p)};
  if (std::holds_alternative<Pass>(a)) return std::nullopt;
  if (std::holds_alternative<Replace>(a)) {
    if (pile_.size() < hands_[p].size())
      return Foul{"bad-ask-for-tiles", fmt::format("replace needs {} tiles but the referee has {}",
                                                   hands_[p].size(), pile_.size())};
    return std::nullopt;
  }
  return violation(map_, hands_[p], std::get<Placements>(a));
}

void State::apply(Seat p, const Action& a) {
  assert(!check(p, a));
  if (std::holds_alternative<Placements>(a)) {
    const auto& placements = std::get<Placements>(a);
    for (const Placement& pl : placements) map_.place(pl.coord, pl.tile);
    remove_placed(hands_[p], placements);
    const bool finished = hands_[p].empty();
    // Saturate: a pinned table may start a score anywhere below 2^63.
    if (__builtin_add_overflow(scores_[p], score(map_, placements, bonuses_, finished),
                               &scores_[p]))
      scores_[p] = std::numeric_limits<std::int64_t>::max();
    placed_in_round_ = true;
    if (finished) {
      over_ = true;  // §1.4: the game ends at once, no new tiles, no rotation
      return;
    }
    const std::size_t n = std::min(placements.size(), pile_.size());
    Tiles drawn(pile_.begin(), pile_.begin() + n);
    pile_.erase(pile_.begin(), pile_.begin() + n);
    dealt_ = {p, std::move(drawn)};
  } else if (std::holds_alternative<Replace>(a)) {
    Tiles& hand = hands_[p];
    pile_.insert(pile_.end(), hand.begin(), hand.end());
    const std::size_t n = hand.size();
    hand.clear();
    Tiles drawn(pile_.begin(), pile_.begin() + n);
    pile_.erase(pile_.begin(), pile_.begin() + n);
    dealt_ = {p, std::move(drawn)};
  }
  end_turn(p);
}

void State::end_turn(Seat p) {
  assert(!order_.empty() && order_.front() == p);
  order_.pop_front();
  order_.push_back(p);
  erase_value(round_to_go_, p);
  if (round_to_go_.empty()) end_round();
}

void State::end_round() {
  // §1.8: a round without a legal placement ends the game.
  if (!placed_in_round_ || order_.empty()) {
    over_ = true;
    return;
  }
  round_to_go_.assign(order_.begin(), order_.end());
  placed_in_round_ = false;
}

std::optional<Tiles> State::dealt(Seat p) const {
  if (dealt_ && dealt_->first == p) return dealt_->second;
  return std::nullopt;
}

void State::acknowledge(Seat p) {
  if (!dealt_ || dealt_->first != p) return;
  Tiles& hand = hands_[p];
  hand.insert(hand.begin(), dealt_->second.begin(), dealt_->second.end());  // new tiles in front
  dealt_.reset();
}

void State::eject(Seat p) {
  if (!in_game(p)) return;
  // §1.7: the tiles just drawn for a failed new-tiles call are lost; the hand goes to the pile.
  if (dealt_ && dealt_->first == p) dealt_.reset();
  pile_.insert(pile_.end(), hands_[p].begin(), hands_[p].end());
  hands_[p].clear();
  erase_value(order_, p);
  const bool had_turn_to_come =
      std::find(round_to_go_.begin(), round_to_go_.end(), p) != round_to_go_.end();
  erase_value(round_to_go_, p);
  if (order_.empty()) {
    over_ = true;
  } else if (had_turn_to_come && round_to_go_.empty() && !over_) {
    end_round();
  }
}

Standings State::standings() const {
  Standings st;
  st.scores = scores_;
  if (order_.empty()) return st;
  std::int64_t best = scores_[order_.front()];
  for (Seat p : order_) best = std::max(best, scores_[p]);
  for (Seat p : order_) (scores_[p] == best ? st.winners : st.losers).push_back(p);
  return st;
}

Table State::table() const {
  Table t;
  t.map = map_;
  for (Seat p : order_) t.players.push_back({scores_[p], hands_[p], std::nullopt});
  t.pile.assign(pile_.begin(), pile_.end());
  return t;
}

State State::scramble_hidden(Seat viewer, Rng& rng) const {
  State s = *this;
  // Pool every tile the viewer cannot see, shuffle, and hand the same counts back out.
  Tiles hidden(pile_.begin(), pile_.end());
  for (Seat p = 0; p < static_cast<Seat>(hands_.size()); ++p)
    if (p != viewer) hidden.insert(hidden.end(), hands_[p].begin(), hands_[p].end());
  rng.shuffle(hidden.begin(), hidden.end());
  auto next = hidden.begin();
  for (Seat p = 0; p < static_cast<Seat>(hands_.size()); ++p) {
    if (p == viewer) continue;
    std::copy_n(next, hands_[p].size(), s.hands_[p].begin());
    next += static_cast<std::ptrdiff_t>(hands_[p].size());
  }
  std::copy(next, hidden.end(), s.pile_.begin());
  if (s.dealt_ && s.dealt_->first != viewer) s.dealt_.reset();
  return s;
}

}  // namespace arbiter::q
