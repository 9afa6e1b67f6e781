#include "server/console_api.h"

#include <fmt/format.h>

#include "arena/bot_shelf.h"
#include "arena/registry.h"
#include "core/printable.h"
#include "league/bots.h"
#include "tournament/schedule.h"
#include "tournament/spec.h"
#include "tournament/worker.h"

namespace arbiter::server {
namespace {

// Whether `bot` names what a web form may seat in `game`: one of its house bots, or a stored
// bot (bot:NAME or bot:NAME@V); never a program, a tcp seat or a file (a Lua team).
bool seatable_from_the_web(const std::string& game, const std::string& bot) {
  if (is_stored_bot(bot)) return parse_stored_bot(bot).has_value();
  return bot.size() <= 64 && is_house_bot(game, bot);
}

// The most matches one tournament from the console may plan: a form is one click, and every
// planned match is a stored job that the public pages read.
constexpr std::int64_t kMostMatches = 10'000;

}  // namespace

ApiReply ConsoleApi::create_tournament(const Json& body) {
  if (!body.is_object())
    return api_error(400, "give {\"name\", \"game\", \"schedule\", \"rounds\", \"entrants\"}");
  auto spec = tournament::new_tournament_spec();
  auto name = text_field(body, "name", "tournament");
  auto game = text_field(body, "game", "");
  auto schedule = text_field(body, "schedule", "round-robin");
  auto rounds = number_field(body, "rounds", 1, 1, 1000);
  auto seats = number_field(body, "seats", 2, 1, 8);
  if (!name) return api_error(400, name.error().message);
  if (!game) return api_error(400, game.error().message);
  if (!schedule) return api_error(400, schedule.error().message);
  if (!rounds) return api_error(400, rounds.error().message);
  if (!seats) return api_error(400, seats.error().message);
  if (!console_name(*name))
    return api_error(400, "a tournament's name is 1 to 40 letters, digits, '_' and '-'");
  if (*schedule != "round-robin" && *schedule != "swiss")
    return api_error(400, "\"schedule\" is round-robin or swiss from the console");
  auto parsed = tournament::parse_schedule(*schedule);
  if (!parsed) return api_error(400, parsed.error().message);
  spec.name = *name;
  spec.game = *game;
  spec.schedule = *parsed;
  spec.rounds = *rounds;
  spec.seats = *seats;
  const Json entrants = body.contains("entrants") ? body["entrants"] : Json::array();
  if (!entrants.is_array() || entrants.size() > 64)
    return api_error(400, "\"entrants\" is a list of at most 64 {\"name\", \"bot\"}");
  for (const Json& e : entrants) {
    auto seat = e.is_object() ? text_field(e, "name", "") : fail("an entrant is an object");
    auto bot = e.is_object() ? text_field(e, "bot", "") : fail("an entrant is an object");
    if (!seat || !bot) return api_error(400, "an entrant is {\"name\", \"bot\"} of strings");
    if (!seatable_from_the_web(spec.game, *bot))
      return api_error(400, fmt::format("entrant \"{}\": a house bot of the game or bot:NAME[@V] "
                                        "(no program runs from a web form)",
                                        printable_line(*seat)));
    spec.players.push_back({*seat, *bot});
  }
  if (auto ok = tournament::validate_spec(spec); !ok) return api_error(400, ok.error().message);
  if (const auto planned = tournament::planned_matches(spec); planned > kMostMatches)
    return api_error(400, fmt::format("{} matches: at most {} from the console (arbiter "
                                      "tournament create takes more)",
                                      planned, kMostMatches));
  if (auto ok = league::pin_entrants(store_, spec); !ok) return api_error(400, ok.error().message);
  auto id = tournament::create_tournament(store_, spec);
  if (!id) return store_failed(id.error());
  return {201,
          Json{{"id", *id}, {"name", spec.name}, {"matches", tournament::planned_matches(spec)}}};
}

}  // namespace arbiter::server
