// Nim's house bots: "random" (any legal move) and "optimal" (the nim-sum strategy: it wins every
// position that can be won). Both are Players of Nim, seeded from the match seed's seat branch.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/player.h"
#include "core/rng.h"
#include "state.h"

namespace arbiter::nim {

enum class BotKind { random, optimal };

// "random" or "optimal"; anything else is an Error naming the choices.
Expected<BotKind> parse_bot(std::string_view text);

// A legal move in `view` (REQUIRES: some heap is not empty), uniformly among all legal moves.
Action random_move(const View& view, Rng& rng);
// The winning move if the position is won for the mover, else a random legal move. With at
// most k objects per move, a heap of h objects counts as h mod (k + 1) (its Grundy value); the
// position is lost for the mover exactly when those values XOR to zero.
Action optimal_move(const View& view, Rng& rng);

// The bot's Player, for any game G whose View and Action are Nim's (the Nim bundle in game.h).
template <class G>
class Bot final : public Player<G> {
 public:
  Bot(std::string name, BotKind kind, std::uint64_t seed)
      : name_(std::move(name)), kind_(kind), rng_(seed) {}
  std::string name() override { return name_; }
  void setup(const View&) override {}
  Action take_turn(const View& view) override {
    return kind_ == BotKind::optimal ? optimal_move(view, rng_) : random_move(view, rng_);
  }
  void win(bool) override {}

 private:
  std::string name_;
  BotKind kind_;
  Rng rng_;
};

}  // namespace arbiter::nim
