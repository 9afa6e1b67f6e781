#include "games/registry.h"

#include <fmt/format.h>

#include "games/battleship/bots.h"
#include "games/battleship/game.h"
#include "games/q/actors.h"
#include "referee/turn_based.h"
#include "remote/remote_player.h"
#include "remote/tcp.h"

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

// How long a tcp connection has to send its name before it is dropped.
constexpr Duration kSignUpWait = std::chrono::seconds(2);

std::vector<std::string> split_words(const std::string& text) {
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    std::size_t j = i;
    while (j < text.size() && text[j] != ' ') ++j;
    if (j > i) words.push_back(text.substr(i, j - i));
    i = j;
  }
  return words;
}

// The roster's names, by seat: 1-20 letters or digits (they name stderr files), all distinct.
Expected<std::vector<std::string>> seat_names(const PlaySpec& spec) {
  std::vector<std::string> names;
  for (const auto& seat : spec.roster) {
    if (!q::valid_name(seat.name))
      return fail(fmt::format("player name \"{}\": use 1-20 letters or digits", seat.name));
    for (const auto& other : names)
      if (other == seat.name)
        return fail(fmt::format("player name \"{}\" is used twice", seat.name));
    names.push_back(seat.name);
  }
  return names;
}

// Builds the players of a roster for game G: remote seats ("cmd:", "tcp") the same way for
// every game, house bots through `house(seating, seat)`. TCP seats are accepted in seat order.
template <Game G, class House>
Expected<std::vector<PlayerPtr<G>>> seat_players(const PlaySpec& spec, House house) {
  std::vector<PlayerPtr<G>> players(spec.roster.size());
  std::vector<std::size_t> tcp_seats;
  for (std::size_t i = 0; i < spec.roster.size(); ++i) {
    const Seating& seat = spec.roster[i];
    if (seat.bot == "tcp") {
      tcp_seats.push_back(i);
    } else if (seat.bot.starts_with("cmd:")) {
      ChildSpec child;
      child.argv = split_words(seat.bot.substr(4));
      if (child.argv.empty())
        return fail(fmt::format("player {}: cmd: needs a program", seat.name));
      child.limits = spec.hosting.limits;
      if (!spec.hosting.stderr_dir.empty())
        child.stderr_log = spec.hosting.stderr_dir / (seat.name + ".stderr");
      auto process = ChildProcess::spawn(child);
      if (!process) {
        players[i] = std::make_shared<UnstartedPlayer<G>>(seat.name, process.error().message);
        continue;
      }
      auto channel = (*process)->take_channel(Framing::lines);
      players[i] =
          std::make_shared<RemotePlayer<G>>(seat.name, std::move(channel), std::move(*process));
    } else {
      auto bot = house(seat, static_cast<Seat>(i));
      if (!bot) return fail(bot.error().message);
      players[i] = std::move(*bot);
    }
  }
  if (tcp_seats.empty()) return players;
  auto listener = TcpListener::listen(spec.hosting.listen_host, spec.hosting.listen_port);
  if (!listener) return fail(listener.error().message);
  if (spec.hosting.on_listen) spec.hosting.on_listen((*listener)->port(), tcp_seats.size());
  for (std::size_t i : tcp_seats) {
    const Seating& seat = spec.roster[i];
    const Deadline deadline = Deadline::after(SteadyClock::instance(), spec.hosting.accept_timeout);
    // Sign-up: the client introduces itself with its name, as a JSON string. A connection that
    // does not (a stray client, a port scanner) is closed and the seat waits for the next one.
    std::unique_ptr<Channel> signed_up;
    while (!signed_up && !deadline.passed()) {
      auto accepted = (*listener)->accept(deadline, Framing::lines);
      if (!accepted) return fail(accepted.error().message);
      if (!*accepted) break;
      std::unique_ptr<Channel> channel = std::move(**accepted);
      const Deadline name_deadline = Deadline::after(
          SteadyClock::instance(), std::min<Duration>(kSignUpWait, deadline.remaining()));
      auto hello = channel->receive(name_deadline);
      if (hello && hello->is_string())
        signed_up = std::move(channel);
      else
        channel->close();
    }
    if (signed_up)
      players[i] = std::make_shared<RemotePlayer<G>>(seat.name, std::move(signed_up));
    else
      players[i] = std::make_shared<UnstartedPlayer<G>>(
          seat.name,
          fmt::format("no tcp client signed up within {} ms", spec.hosting.accept_timeout.count()));
  }
  return players;
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
  auto names = seat_names(spec);
  if (!names) return fail(names.error().message);
  outcome.names = std::move(*names);
  auto players =
      seat_players<q::Q>(spec, [](const Seating& seat, Seat) -> Expected<PlayerPtr<q::Q>> {
        auto actor = q_bot(seat.name, seat.bot);
        if (!actor) return fail(actor.error().message);
        return q::make_actor(*actor);
      });
  if (!players) return fail(players.error().message);
  outcome.result =
      play_turn_based<q::Q>(*decoded, spec.seed, outcome.names, *players, spec.options);
  return outcome;
}

Expected<PlayOutcome> play_battleship(const PlaySpec& spec) {
  using battleship::Battleship;
  if (spec.roster.size() != 2)
    return fail(fmt::format("battleship is for 2 players, {} were given", spec.roster.size()));
  auto config = Battleship::decode_config(spec.config.is_null() ? Json::object() : spec.config);
  if (!config) return fail(config.error().message);
  // The codec only checks that the fleet has room; make sure a legal placement exists at all, so
  // that a match cannot start in which every placement is a foul.
  Rng probe(1);
  if (!battleship::random_fleet(*config, probe))
    return fail("Battleship config: no legal placement of the fleet fits on the grid");
  PlayOutcome outcome;
  auto names = seat_names(spec);
  if (!names) return fail(names.error().message);
  outcome.names = std::move(*names);
  auto players = seat_players<Battleship>(
      spec, [&](const Seating& seat, Seat index) -> Expected<PlayerPtr<Battleship>> {
        auto bot = battleship::parse_bot(seat.bot);
        if (!bot) return fail(bot.error().message);
        return battleship::make_bot<Battleship>(seat.name, *bot, seat_seed(spec.seed, index));
      });
  if (!players) return fail(players.error().message);
  outcome.result =
      play_turn_based<Battleship>(*config, spec.seed, outcome.names, *players, spec.options);
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
      {.name = "battleship",
       .summary = "Battleship: two hidden fleets, alternating shots (2 players)",
       .bots = "random | hunt | tracker | density, optionally +uniform or +evasive (placement)",
       .play = play_battleship,
       .replay = [](const std::vector<Json>& log) { return replay<battleship::Battleship>(log); }},
  };
  return games;
}

const GameEntry* find_game(std::string_view name) {
  for (const auto& g : registered_games())
    if (g.name == name) return &g;
  return nullptr;
}

}  // namespace arbiter
