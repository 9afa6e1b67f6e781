#include "games/q/bots.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

#include "core/interrupt.h"
#include "core/names.h"
#include "core/seat_name.h"

namespace arbiter::q {
namespace {

constexpr NameTable<Method, 4> kMethods{{
    {Method::setup, "setup"},
    {Method::take_turn, "take-turn"},
    {Method::new_tiles, "new-tiles"},
    {Method::win, "win"},
}};

constexpr NameTable<Cheat, 5> kCheats{{
    {Cheat::non_adjacent_coordinate, "non-adjacent-coordinate"},
    {Cheat::tile_not_owned, "tile-not-owned"},
    {Cheat::not_a_line, "not-a-line"},
    {Cheat::bad_ask_for_tiles, "bad-ask-for-tiles"},
    {Cheat::no_fit, "no-fit"},
}};

bool in_one_line(const Placements& ps) {
  auto same_row = std::all_of(ps.begin(), ps.end(),
                              [&](const Placement& p) { return p.coord.row == ps[0].coord.row; });
  auto same_col = std::all_of(ps.begin(), ps.end(), [&](const Placement& p) {
    return p.coord.column == ps[0].coord.column;
  });
  return same_row || same_col;
}

// The not-a-line cheat (docs/games/q.md §4.2): some order of the hand's tiles placed one by one,
// each at a free spot next to the map where it fits (on the map grown by the earlier ones), that is
// not in one row or column. Depth-first over collinear prefixes, bounded so that a hand with
// nothing to find cannot make the search explode.
class NonLineSearch {
 public:
  explicit NonLineSearch(const View& view) : map_(view.map), left_(view.hand) {}

  std::optional<Placements> run() {
    if (dfs()) return so_far_;
    return std::nullopt;
  }

 private:
  bool dfs() {
    if (++nodes_ > kNodeLimit) return false;
    Tiles tried;
    for (std::size_t i = 0; i < left_.size(); ++i) {
      const Tile t = left_[i];
      if (std::find(tried.begin(), tried.end(), t) != tried.end()) continue;
      tried.push_back(t);
      for (Coord c : map_.candidates(t)) {
        so_far_.push_back({c, t});
        if (so_far_.size() >= 2 && !in_one_line(so_far_)) return true;
        const Map saved = map_;
        map_.place(c, t);
        left_.erase(left_.begin() + static_cast<std::ptrdiff_t>(i));
        const bool found = dfs();
        left_.insert(left_.begin() + static_cast<std::ptrdiff_t>(i), t);
        map_ = saved;
        if (found) return true;
        so_far_.pop_back();
      }
    }
    return false;
  }

  static constexpr int kNodeLimit = 20000;
  Map map_;
  Tiles left_;
  Placements so_far_;
  int nodes_ = 0;
};

std::optional<Action> non_line_sequence(const View& view) {
  auto found = NonLineSearch(view).run();
  if (found) return *found;
  return std::nullopt;
}

// One seat's in-process player, possibly scripted to misbehave.
class Actor final : public Player<Q> {
 public:
  explicit Actor(ActorSpec spec) : spec_(std::move(spec)) {}

  std::string name() override { return spec_.name; }

  void setup(const View&) override {
    // The course's counters reset at setup; a setup that fails counts itself as call 1.
    calls_ = 0;
    misbehave_if_due(Method::setup);
  }

  Action take_turn(const View& view) override {
    Action normal = turn(spec_.strategy, view);
    misbehave_if_due(Method::take_turn);
    if (spec_.cheat) {
      if (auto cheat = cheat_action(view)) return *cheat;
    }
    return normal;
  }

  void new_tiles(const Tiles&) override { misbehave_if_due(Method::new_tiles); }
  void win(bool) override { misbehave_if_due(Method::win); }

 private:
  void misbehave_if_due(Method m) {
    if (spec_.fails_on != m) return;
    ++calls_;
    if (spec_.hang_after == 0)
      throw std::runtime_error(fmt::format("{} raised (scripted)", to_string(m)));
    if (calls_ == spec_.hang_after) {
      hang_until_abandoned();
      throw std::runtime_error("abandoned");
    }
  }

  std::optional<Action> cheat_action(const View& view) const {
    switch (*spec_.cheat) {
      case Cheat::non_adjacent_coordinate: {
        const auto players = static_cast<std::int32_t>(view.others.size() + 1);
        return Placements{{{players + 1, 0}, {Shape::circle, Color::orange}}};
      }
      case Cheat::tile_not_owned: {
        for (Tile kind : all_kinds()) {
          if (std::find(view.hand.begin(), view.hand.end(), kind) != view.hand.end()) continue;
          auto spots = view.map.candidates(kind);
          if (spots.empty()) throw std::runtime_error("no spot for the tile it does not own");
          return Placements{{spots.front(), kind}};
        }
        return std::nullopt;  // owns every kind: plays normally
      }
      case Cheat::not_a_line:
        if (view.hand.size() < 2) return std::nullopt;
        return non_line_sequence(view);
      case Cheat::bad_ask_for_tiles:
        if (view.pile < view.hand.size()) return Replace{};
        return std::nullopt;
      case Cheat::no_fit:
        for (Tile t : view.hand)
          for (Coord c : view.map.free_neighbours())
            if (!view.map.fits(c, t)) return Placements{{c, t}};
        return std::nullopt;
    }
    return std::nullopt;
  }

  ActorSpec spec_;
  int calls_ = 0;
};

}  // namespace

std::string_view to_string(Method m) {
  return name_of(kMethods, m);
}

std::string_view to_string(Cheat c) {
  return name_of(kCheats, c);
}

Expected<ActorSpec> decode_actor_spec(const Json& j, Dialect dialect, bool lax_names) {
  if (!j.is_array() || j.size() < 2 || j.size() > 4)
    return fail("JActorSpec: expected [name, strategy, ...] with 2 to 4 items, got " + excerpt(j));
  ActorSpec spec;
  if (!j[0].is_string() || !(lax_names || valid_seat_name(j[0].get<std::string>())))
    return fail(fmt::format("JActorSpec: the name {}: {}", excerpt(j[0]), kSeatNameRule));
  spec.name = j[0].get<std::string>();
  auto strategy = j[1].is_string() ? strategy_from_string(j[1].get<std::string>()) : std::nullopt;
  if (!strategy)
    return fail(
        fmt::format("JActorSpec {}: unknown strategy {} (dag or ldasg)", spec.name, excerpt(j[1])));
  spec.strategy = *strategy;
  if (j.size() == 2) return spec;

  if (!j[2].is_string())
    return fail(fmt::format("JActorSpec {}: bad third item {}", spec.name, excerpt(j[2])));
  const std::string third = j[2].get<std::string>();
  if (third == "a cheat") {
    if (dialect == Dialect::m7)
      return fail(fmt::format("JActorSpec {}: cheats are not allowed here", spec.name));
    if (j.size() != 4 || !j[3].is_string())
      return fail(
          fmt::format("JActorSpec {}: \"a cheat\" must be followed by a JCheat", spec.name));
    auto cheat = from_name(kCheats, j[3].get<std::string>());
    if (!cheat)
      return fail(fmt::format("JActorSpec {}: unknown cheat {}", spec.name, excerpt(j[3])));
    spec.cheat = cheat;
    return spec;
  }
  auto method = from_name(kMethods, third);
  if (!method)
    return fail(fmt::format("JActorSpec {}: unknown method {}", spec.name, excerpt(j[2])));
  spec.fails_on = method;
  if (j.size() == 3) return spec;
  if (dialect != Dialect::m9)
    return fail(fmt::format("JActorSpec {}: counted failures are not allowed here", spec.name));
  auto count = to_int(j[3], fmt::format("JActorSpec {}: count", spec.name));
  if (!count) return fail(count.error().message);
  if (*count < 1 || *count > 7)
    return fail(fmt::format("JActorSpec {}: count must be 1 to 7, got {}", spec.name, *count));
  spec.hang_after = static_cast<int>(*count);
  return spec;
}

Expected<std::vector<ActorSpec>> decode_actors(const Json& j, Dialect dialect, bool lax_names) {
  if (!j.is_array() || j.empty())
    return fail("JActors: expected a non-empty array, got " + excerpt(j));
  std::vector<ActorSpec> specs;
  for (const auto& item : j) {
    auto spec = decode_actor_spec(item, dialect, lax_names);
    if (!spec) return fail(spec.error().message);
    for (const auto& other : specs)
      if (other.name == spec->name)
        return fail(fmt::format("JActors: the name {} appears twice", spec->name));
    specs.push_back(std::move(*spec));
  }
  return specs;
}

Json encode_actor_spec(const ActorSpec& spec) {
  Json j = {spec.name, std::string(to_string(spec.strategy))};
  if (spec.cheat) {
    j.push_back("a cheat");
    j.push_back(std::string(to_string(*spec.cheat)));
  } else if (spec.fails_on) {
    j.push_back(std::string(to_string(*spec.fails_on)));
    if (spec.hang_after > 0) j.push_back(spec.hang_after);
  }
  return j;
}

std::shared_ptr<Player<Q>> make_actor(const ActorSpec& spec) {
  return std::make_shared<Actor>(spec);
}

Expected<ActorSpec> parse_bot(const std::string& name, std::string_view text) {
  const std::string bot(text);
  Json spec = Json::array({name});
  const auto plus = bot.find('+');
  if (!strategy_from_string(bot.substr(0, plus)))
    return fail(fmt::format("bot \"{}\": unknown strategy \"{}\" (dag or ldasg)", bot,
                            bot.substr(0, plus)));
  spec.push_back(bot.substr(0, plus));
  if (plus != std::string::npos) {
    const std::string extra = bot.substr(plus + 1);
    const auto eq = extra.find('=');
    const std::string kind = extra.substr(0, eq);
    const std::string arg = eq == std::string::npos ? "" : extra.substr(eq + 1);
    if (kind == "cheat") {
      spec.push_back("a cheat");
      spec.push_back(arg);
    } else if (kind == "raise") {
      spec.push_back(arg);
    } else if (kind == "hang") {
      const auto slash = arg.find('/');
      spec.push_back(arg.substr(0, slash));
      int k = 1;
      if (slash != std::string::npos) {
        try {
          k = std::stoi(arg.substr(slash + 1));
        } catch (const std::exception&) {
          return fail(fmt::format("bot \"{}\": hang=METHOD/K needs a number K", bot));
        }
      }
      spec.push_back(k);
    } else {
      return fail(
          fmt::format("bot \"{}\": unknown modifier \"{}\" (cheat=, raise=, hang=)", bot, kind));
    }
  }
  auto decoded = decode_actor_spec(spec, Dialect::m9);
  if (!decoded) {
    // The course decoder's words name the JActorSpec; here the bot text is the subject.
    std::string why = decoded.error().message;
    if (const std::string prefix = fmt::format("JActorSpec {}: ", name); why.starts_with(prefix))
      why.erase(0, prefix.size());
    return fail(fmt::format("bot \"{}\": {}", bot, why));
  }
  return decoded;
}

}  // namespace arbiter::q
