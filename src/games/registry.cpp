#include "games/registry.h"

#include <fmt/format.h>

#include "games/q/actors.h"
#include "referee/turn_based.h"

namespace arbiter {
namespace {

// Q bots: STRATEGY[+cheat=JCheat | +raise=JExn | +hang=JExn/K], e.g. "ldasg", "dag+cheat=no-fit",
// "dag+hang=take-turn/3": the course's house strategies and scripted bad actors.
Expected<q::ActorSpec> q_bot(const std::string& name, const std::string& bot) {
  Json spec = Json::array({name});
  const auto plus = bot.find('+');
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
  auto decoded = q::decode_actor_spec(spec, q::Dialect::m9);
  if (!decoded) return fail(fmt::format("bot \"{}\": {}", bot, decoded.error().message));
  return decoded;
}

Expected<PlayOutcome> play_q(const PlaySpec& spec) {
  Json config = spec.config.is_null() ? Json::object() : spec.config;
  if (!config.is_object())
    return fail("the Q config must be a JSON object, got " + excerpt(config));
  if (!config.contains("players")) config["players"] = spec.roster.size();
  auto decoded = q::Q::decode_config(config);
  if (!decoded) return fail(decoded.error().message);
  if (static_cast<std::size_t>(decoded->players) != spec.roster.size())
    return fail(fmt::format("the config seats {} players but {} were given", decoded->players,
                            spec.roster.size()));
  PlayOutcome outcome;
  std::vector<PlayerPtr<q::Q>> players;
  for (const auto& seat : spec.roster) {
    if (!q::valid_name(seat.name))
      return fail(fmt::format("player name \"{}\": use 1-20 letters or digits", seat.name));
    for (const auto& other : outcome.names)
      if (other == seat.name)
        return fail(fmt::format("player name \"{}\" is used twice", seat.name));
    auto actor = q_bot(seat.name, seat.bot);
    if (!actor) return fail(actor.error().message);
    outcome.names.push_back(seat.name);
    players.push_back(q::make_actor(*actor));
  }
  outcome.result = play_turn_based<q::Q>(*decoded, spec.seed, outcome.names, players, spec.options);
  return outcome;
}

}  // namespace

const std::vector<GameEntry>& registered_games() {
  static const std::vector<GameEntry> games{
      {.name = "q",
       .summary = "Q, the Qwirkle-like tile game of CS 4500 (2-4 players, hidden hands)",
       .bots = "dag | ldasg, optionally +cheat=CHEAT, +raise=METHOD or +hang=METHOD/K",
       .play = play_q,
       .replay = [](const std::vector<Json>& log) { return replay<q::Q>(log); }},
  };
  return games;
}

const GameEntry* find_game(std::string_view name) {
  for (const auto& g : registered_games())
    if (g.name == name) return &g;
  return nullptr;
}

}  // namespace arbiter
