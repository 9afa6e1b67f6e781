#include "bots.h"

#include <fmt/format.h>

namespace arbiter::nim {

Expected<BotKind> parse_bot(std::string_view text) {
  if (text == "random") return BotKind::random;
  if (text == "optimal") return BotKind::optimal;
  return fail(fmt::format("bot \"{}\": unknown Nim bot (random or optimal)", text));
}

Action random_move(const View& view, Rng& rng) {
  std::vector<Action> moves;
  for (int h = 0; h < static_cast<int>(view.heaps.size()); ++h)
    for (int t = 1; t <= std::min(view.heaps[h], view.max_take); ++t) moves.push_back({h, t});
  if (moves.empty()) return {0, 1};  // no legal move: the game is over anyway
  return moves[rng.below(moves.size())];
}

Action optimal_move(const View& view, Rng& rng) {
  const int k1 = view.max_take + 1;
  int sum = 0;
  for (int h : view.heaps) sum ^= h % k1;
  if (sum != 0) {
    for (int h = 0; h < static_cast<int>(view.heaps.size()); ++h) {
      const int grundy = view.heaps[h] % k1;
      const int target = grundy ^ sum;
      if (target < grundy) return {h, grundy - target};  // 1 <= grundy - target <= max_take
    }
  }
  return random_move(view, rng);
}

}  // namespace arbiter::nim
