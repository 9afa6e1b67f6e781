#include "games/q/game.h"

#include <fmt/format.h>

#include "core/seat_count.h"
#include "games/q/bots.h"
#include "games/q/strategy.h"

namespace arbiter::q {

Json Q::encode(const Config& c) {
  Json j = {{"players", c.players},
            {"bonuses", {{"q", c.bonuses.q}, {"finish", c.bonuses.finish}}}};
  if (c.table) j["table"] = encode_table(*c.table);
  return j;
}

Expected<Config> Q::decode_config(const Json& j) {
  if (auto ok = only_keys(j, {"players", "bonuses", "table"}, "Q config"); !ok)
    return std::unexpected(ok.error());
  Config c;
  if (j.contains("players")) {
    auto n = to_int(j["players"], "Q config: players");
    if (!n) return fail(n.error().message);
    if (*n < kMinPlayers || *n > kMaxPlayers)
      return fail(
          fmt::format("Q config: players must be {} to {}, got {}", kMinPlayers, kMaxPlayers, *n));
    c.players = static_cast<int>(*n);
  }
  if (j.contains("bonuses")) {
    const Json& b = j["bonuses"];
    for (auto [key, slot] :
         {std::pair{"q", &c.bonuses.q}, std::pair{"finish", &c.bonuses.finish}}) {
      auto v = member(b, key, "Q config: bonuses");
      if (!v) return fail(v.error().message);
      auto n = to_natural(**v, fmt::format("Q config: bonuses.{}", key));
      if (!n) return fail(n.error().message);
      if (*n > 1'000'000)
        return fail(fmt::format("Q config: bonuses.{} must be at most 1000000, got {}", key, *n));
      *slot = static_cast<std::int64_t>(*n);
    }
  }
  if (j.contains("table")) {
    auto t = decode_table(j["table"]);
    if (!t) return fail("Q config: table: " + t.error().message);
    if (t->players.size() > static_cast<std::size_t>(kMaxPlayers))
      return fail(fmt::format("Q config: a table seats at most {} players", kMaxPlayers));
    c.players = static_cast<int>(t->players.size());
    c.table = std::move(*t);
  }
  return c;
}

Action Q::sample_action(const View& view, Rng& rng) {
  switch (rng.below(6)) {
    case 0:
      return Pass{};
    case 1:
      return Replace{};
    case 2:
    case 3: {
      Placements ps;
      const auto spots = view.map.free_neighbours();
      const std::uint64_t n = 1 + rng.below(3);
      for (std::uint64_t i = 0; i < n && !view.hand.empty() && !spots.empty(); ++i)
        ps.push_back({spots[rng.below(spots.size())], view.hand[rng.below(view.hand.size())]});
      if (ps.empty()) return Pass{};
      return ps;
    }
    default:
      return turn(rng.below(2) ? Strategy::dag : Strategy::ldasg, view);
  }
}

Expected<void> Q::check_bot(std::string_view text) {
  auto bot = parse_bot("x", text);
  if (!bot) return std::unexpected(bot.error());
  return {};
}

Expected<std::shared_ptr<Player<Q>>> Q::make_bot(const std::string& name, std::string_view text,
                                                 std::uint64_t) {
  auto bot = parse_bot(name, text);
  if (!bot) return std::unexpected(bot.error());
  return make_actor(*bot);
}

Expected<Config> Q::config_for(const Json& given, std::size_t seats) {
  return seated_config(given, seats, "Q", [](const Json& j) { return decode_config(j); });
}

}  // namespace arbiter::q
