// The game-running course harnesses (M7-M9): a JState and a list of actors in, a Result out.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "games/q/bots.h"
#include "apps/q_course/course_input.h"
#include "apps/q_course/harness.h"
#include "apps/q_course/result.h"
#include "referee/turn_based.h"

namespace arbiter::q::harness {
namespace {

// The course's data includes maps at coordinates like 5.7e51 (Racket integers are unbounded).
// A game's outcome depends only on the order of coordinates, on which ones are adjacent, and on
// where the origin is (a cheat plays near it), so values beyond int32 are moved closer: distinct
// values keep their order and their distance up to kGap, which exceeds how far a map can grow in
// one game (1080 tiles), and 0 stays 0. Distinct integers beyond 2^53 that JSON parsing rounds
// to the same double are a known limitation.
constexpr double kGap = 4096;

void compress_axis(std::vector<Json*>& values) {
  std::vector<double> distinct{0.0};
  for (const Json* v : values) distinct.push_back(v->get<double>());
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  const auto zero = std::find(distinct.begin(), distinct.end(), 0.0) - distinct.begin();
  std::vector<std::int64_t> compressed(distinct.size(), 0);
  for (std::size_t i = zero + 1; i < distinct.size(); ++i)
    compressed[i] = compressed[i - 1] +
                    static_cast<std::int64_t>(std::min(distinct[i] - distinct[i - 1], kGap));
  for (std::size_t i = zero; i-- > 0;)
    compressed[i] = compressed[i + 1] -
                    static_cast<std::int64_t>(std::min(distinct[i + 1] - distinct[i], kGap));
  for (Json* v : values) {
    const auto at = std::lower_bound(distinct.begin(), distinct.end(), v->get<double>());
    *v = compressed[at - distinct.begin()];
  }
}

bool out_of_range(const Json& v) {
  if (!v.is_number()) return false;
  const double d = v.get<double>();
  return v.is_number_float() || d > 1e9 || d < -1e9;
}

// Rewrites a JMap's indices when any is out of range; leaves malformed input alone for the
// decoder to reject.
Json with_compressed_coordinates(Json map) {
  if (!map.is_array()) return map;
  std::vector<Json*> rows, columns;
  bool needed = false;
  for (Json& row : map) {
    if (!row.is_array() || row.empty() || !row[0].is_number()) return map;
    rows.push_back(&row[0]);
    needed |= out_of_range(row[0]);
    for (std::size_t i = 1; i < row.size(); ++i) {
      if (!row[i].is_array() || row[i].empty() || !row[i][0].is_number()) return map;
      columns.push_back(&row[i][0]);
      needed |= out_of_range(row[i][0]);
    }
  }
  if (!needed) return map;
  for (Json* v : rows)
    if (v->is_number_float() && *v != std::floor(v->get<double>())) return map;
  compress_axis(rows);
  compress_axis(columns);
  return map;
}

Expected<Json> run_game(std::string_view harness, const std::vector<Json>& in, Dialect dialect,
                        Bonuses bonuses, const GameOptions& options) {
  if (in.size() != 2)
    return fail(
        fmt::format("{}: expected 2 JSON values (JState, JActors), got {}", harness, in.size()));
  // The JState is decoded where it lies unless its map must be rewritten (a pile of a thousand
  // tiles is not worth copying on every game).
  const Json& given = in[0];
  std::optional<Json> rewritten;
  if (given.is_object() && given.contains("map")) {
    const Json& map = given["map"];
    Json fixed = with_compressed_coordinates(keep_later_cells(map));
    if (fixed != map) {
      rewritten = given;
      (*rewritten)["map"] = std::move(fixed);
    }
  }
  auto table = decode_table(rewritten ? *rewritten : given);
  if (!table) return fail(fmt::format("{}: {}", harness, table.error().message));
  auto actors = decode_actors(in[1], dialect);
  if (!actors) return fail(fmt::format("{}: {}", harness, actors.error().message));
  if (table->players.size() != actors->size())
    return fail(fmt::format("{}: the JState seats {} players but JActors names {}", harness,
                            table->players.size(), actors->size()));
  if (actors->size() > static_cast<std::size_t>(kMaxPlayers))
    return fail(
        fmt::format("{}: at most {} players, got {}", harness, kMaxPlayers, actors->size()));

  Config config;
  config.players = static_cast<int>(actors->size());
  config.bonuses = bonuses;
  config.table = std::move(*table);

  std::vector<std::string> names;
  std::vector<PlayerPtr<Q>> players;
  for (const auto& spec : *actors) {
    names.push_back(spec.name);
    players.push_back(make_actor(spec));
  }
  RefereeOptions referee;
  referee.per_call = options.per_call;
  // Every actor is house code; one scripted to hang needs the worker thread the referee can walk
  // away from. The others return on their own, so they run on the referee's thread: the same
  // verdicts (a late answer is still a timeout), without a thread handoff per call.
  const bool may_hang = std::any_of(actors->begin(), actors->end(),
                                    [](const ActorSpec& a) { return a.hang_after > 0; });
  referee.isolation = may_hang ? Isolation::thread : Isolation::inline_call;
  std::optional<GameLog> log;
  if (options.observe != nullptr) {
    log.emplace(options.observe);
    referee.log = &*log;
  }
  const MatchResult result = play_turn_based<Q>(config, /*seed=*/0, names, players, referee);

  return course_result(result, names);
}

}  // namespace

Expected<Json> xgames(const std::vector<Json>& in, const GameOptions& options) {
  return run_game("xgames", in, Dialect::m7, Bonuses{.q = 6, .finish = 6}, options);
}

Expected<Json> xgames_with_observer(const std::vector<Json>& in, const GameOptions& options) {
  return run_game("xgames-with-observer", in, Dialect::m8, Bonuses{.q = 8, .finish = 4}, options);
}

Expected<Json> xbaddies(const std::vector<Json>& in, const GameOptions& options) {
  return run_game("xbaddies", in, Dialect::m9, Bonuses{.q = 8, .finish = 4}, options);
}

}  // namespace arbiter::q::harness
