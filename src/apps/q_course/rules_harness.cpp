// The rules harnesses of milestones 3-6 (xmap, xlegal, xscore, xstrategy): decode the input
// values, ask the rules, encode the answer.
#include <fmt/format.h>

#include "games/q/codec.h"
#include "apps/q_course/course_input.h"
#include "apps/q_course/harness.h"
#include "games/q/placement.h"
#include "games/q/strategy.h"

namespace arbiter::q::harness {
namespace {

Expected<void> expect_count(const std::vector<Json>& in, std::string_view harness,
                            std::string_view shapes) {
  if (in.size() != 2)
    return fail(fmt::format("{}: expected 2 JSON values ({}), got {}", harness, shapes, in.size()));
  return {};
}

std::unexpected<Error> within(std::string_view harness, const Error& e) {
  return fail(fmt::format("{}: {}", harness, e.message));
}

}  // namespace

Expected<Json> xmap(const std::vector<Json>& in) {
  if (auto ok = expect_count(in, "xmap", "JMap, JTile"); !ok) return std::unexpected(ok.error());
  auto map = decode_map(keep_later_cells(in[0]));
  if (!map) return within("xmap", map.error());
  auto tile = decode_tile(in[1]);
  if (!tile) return within("xmap", tile.error());
  Json out = Json::array();
  for (Coord c : map->candidates(*tile)) out.push_back(encode_coord(c));
  return out;
}

Expected<Json> xlegal(const std::vector<Json>& in) {
  if (auto ok = expect_count(in, "xlegal", "JPub, JPlacements"); !ok)
    return std::unexpected(ok.error());
  auto view = decode_view(keep_later_cells_of_map(in[0]));
  if (!view) return within("xlegal", view.error());
  auto placements = decode_placements(in[1]);
  if (!placements) return within("xlegal", placements.error());
  auto after = extend(view->map, view->hand, *placements);
  if (!after) return Json(false);
  return encode_map(*after);
}

Expected<Json> xscore(const std::vector<Json>& in) {
  if (auto ok = expect_count(in, "xscore", "JMap, JPlacements"); !ok)
    return std::unexpected(ok.error());
  auto map = decode_map(keep_later_cells(in[0]));
  if (!map) return within("xscore", map.error());
  auto placements = decode_placements(in[1]);
  if (!placements) return within("xscore", placements.error());
  // score() presumes the placed cells are on the map; say so instead of scoring nonsense. Only
  // the cells are checked: scoring reads the map's tiles, and one accepted test-fest case
  // (5/grade/2/1) names a tile in its placements that differs from the map's tile there.
  for (std::size_t i = 0; i < placements->size(); ++i) {
    const Coord c = (*placements)[i].coord;
    if (!map->occupied(c))
      return fail(
          fmt::format("xscore: placement {} at ({}, {}) is not on the map", i, c.row, c.column));
  }
  return Json(score(*map, *placements, Bonuses{.q = 6, .finish = 0}, /*finished=*/false));
}

Expected<Json> xstrategy(const std::vector<Json>& in) {
  if (auto ok = expect_count(in, "xstrategy", "JStrategy and JPub, in either order"); !ok)
    return std::unexpected(ok.error());
  // The course's tests put the strategy first in most cases and the JPub first in some.
  const bool strategy_first = in[0].is_string();
  const Json& jstrategy = strategy_first ? in[0] : in[1];
  const Json& jpub = strategy_first ? in[1] : in[0];
  if (!jstrategy.is_string())
    return fail(fmt::format("xstrategy: expected a JStrategy (\"dag\" or \"ldasg\"), got {} and {}",
                            excerpt(in[0]), excerpt(in[1])));
  auto strategy = strategy_from_string(jstrategy.get<std::string>());
  if (!strategy)
    return fail(fmt::format("xstrategy: unknown strategy {} (expected \"dag\" or \"ldasg\")",
                            excerpt(jstrategy)));
  auto view = decode_view(keep_later_cells_of_map(jpub));
  if (!view) return within("xstrategy", view.error());
  Step s = step(*strategy, view->map, view->hand, view->pile);
  if (std::holds_alternative<Pass>(s)) return Json("pass");
  if (std::holds_alternative<Replace>(s)) return Json("replace");
  return encode_placement(std::get<Placement>(s));
}

}  // namespace arbiter::q::harness
