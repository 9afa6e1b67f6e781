// The Dominosa race: its rules and its wire messages.
#include "games/dominosa/game.h"

#include <stdexcept>

#include <fmt/format.h>

#include "games/dominosa/generator.h"

namespace arbiter::dominosa {
namespace {

Duration seconds(double s) {
  return std::chrono::duration_cast<Duration>(std::chrono::duration<double>(s));
}

}  // namespace

RaceState RaceState::start(const RaceConfig& config, Rng& rng) {
  GenerateOptions options;
  options.n = config.n;
  options.level = config.level;
  options.seed = rng.next();
  auto made = generate(options);
  if (!made)
    throw std::runtime_error(fmt::format("no {} Dominosa puzzle of n = {} was found",
                                         to_string(config.level), config.n));
  RaceState s;
  s.config_ = config;
  s.puzzle_ = std::move(made->puzzle);
  s.in_.assign(config.players, true);
  s.invalid_.assign(config.players, 0);
  return s;
}

Seats RaceState::seats() const {
  Seats out;
  for (int p = 0; p < config_.players; ++p)
    if (in_[p]) out.push_back(p);
  return out;
}

Reaction<Verdict> RaceState::receive(Seat p, const Solution& s, Duration at) {
  Reaction<Verdict> r;
  std::string problem = solution_problem(puzzle_, s);
  if (problem.empty()) {
    r.notices.push_back({p, {"accepted"}});
    winner_ = p;
    solved_at_ = at;
    over_ = true;
    return r;
  }
  r.notices.push_back({p, {std::move(problem)}});
  if (++invalid_[p] > config_.max_invalid)
    r.foul = Foul{"too-many-invalid",
                  fmt::format("{} wrong solutions (at most {})", invalid_[p], config_.max_invalid)};
  return r;
}

Reaction<Verdict> RaceState::tick(Duration at) {
  if (!over_ && at >= seconds(config_.max_seconds)) over_ = true;
  return {};
}

Duration RaceState::deadline() const {
  return seconds(config_.max_seconds);
}

void RaceState::eject(Seat p) {
  if (p < 0 || p >= config_.players || !in_[p]) return;
  in_[p] = false;
  if (seats().empty()) over_ = true;
}

Standings RaceState::standings() const {
  Standings s;
  s.scores.assign(config_.players, 0);
  for (Seat p : seats()) {
    if (winner_ && p == *winner_) {
      s.winners.push_back(p);
      s.scores[p] = 1;
    } else {
      s.losers.push_back(p);
    }
  }
  return s;
}

Json encode(const RaceConfig& c) {
  return {{"players", c.players},         {"n", c.n},
          {"level", to_string(c.level)},  {"max_seconds", c.max_seconds},
          {"max_invalid", c.max_invalid}, {"max_rate", c.max_rate},
          {"max_bytes", c.max_bytes}};
}

Expected<RaceConfig> decode_race_config(const Json& j) {
  constexpr std::string_view what = "Dominosa race config";
  if (auto ok = only_keys(
          j, {"players", "n", "level", "max_seconds", "max_invalid", "max_rate", "max_bytes"},
          what);
      !ok)
    return std::unexpected(ok.error());
  RaceConfig c;
  struct IntField {
    const char* key;
    int* slot;
    int lo, hi;
  };
  for (const IntField& f : {IntField{"players", &c.players, 1, 8}, IntField{"n", &c.n, 1, 200},
                            IntField{"max_invalid", &c.max_invalid, 0, 1'000'000},
                            IntField{"max_rate", &c.max_rate, 1, 1'000'000},
                            IntField{"max_bytes", &c.max_bytes, 64, 1 << 24}}) {
    if (!j.contains(f.key)) continue;
    auto v = int_field(j, f.key, f.lo, f.hi, what);
    if (!v) return std::unexpected(v.error());
    *f.slot = *v;
  }
  if (j.contains("level")) {
    auto text = arbiter::to_string(j["level"], fmt::format("{}: level", what));
    if (!text) return std::unexpected(text.error());
    auto level = level_from_string(*text);
    if (!level)
      return fail(
          fmt::format("{}: level must be trivial, basic, hard, extreme or ambiguous, got {}", what,
                      excerpt(j["level"])));
    c.level = *level;
  }
  if (j.contains("max_seconds")) {
    const Json& v = j["max_seconds"];
    if (!v.is_number() || !(v.get<double>() > 0) || v.get<double>() > 86400)
      return fail(fmt::format("{}: max_seconds must be above 0 and at most 86400, got {}", what,
                              excerpt(v)));
    c.max_seconds = v.get<double>();
  }
  return c;
}

namespace {

Expected<const Json*> args_of(const Json& j, std::string_view name) {
  if (!j.is_array() || j.size() != 2 || j[0] != name || !j[1].is_array() || j[1].size() != 1)
    return fail(
        fmt::format("expected [\"{}\", [...]] with one argument, got {}", name, excerpt(j)));
  return &j[1][0];
}

}  // namespace

Expected<Solution> DominosaRace::decode_message(const Json& j) {
  auto arg = args_of(j, "submit");
  if (!arg) return std::unexpected(arg.error());
  auto s = arbiter::to_string(**arg, "submit: the solution");
  if (!s) return std::unexpected(s.error());
  return *s;
}

Expected<Verdict> DominosaRace::decode_notice(const Json& j) {
  auto arg = args_of(j, "verdict");
  if (!arg) return std::unexpected(arg.error());
  auto s = arbiter::to_string(**arg, "verdict");
  if (!s) return std::unexpected(s.error());
  return Verdict{*s};
}

Expected<RaceView> DominosaRace::decode_setup(const Json& j) {
  auto arg = args_of(j, "setup");
  if (!arg) return std::unexpected(arg.error());
  auto p = parse_json_puzzle(**arg);
  if (!p) return std::unexpected(p.error());
  return RaceView{std::move(*p)};
}

}  // namespace arbiter::dominosa
