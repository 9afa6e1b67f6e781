// The milestone-10 harnesses (docs/games/q.md §5): xserver signs up TCP clients and referees one
// game with them; xclients runs the course's clients, including its name-triggered bad proxies.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <initializer_list>
#include <memory>
#include <thread>

#include <fmt/format.h>

#include "core/interrupt.h"
#include "core/seat_name.h"
#include "games/q/bots.h"
#include "apps/q_course/course_input.h"
#include "apps/q_course/harness.h"
#include "apps/q_course/result.h"
#include "referee/turn_based.h"
#include "remote/fd_channel.h"
#include "remote/remote_player.h"
#include "remote/tcp.h"

namespace arbiter::q::harness {
namespace {

using Millis = std::chrono::milliseconds;

Millis scaled(double seconds, double scale) {
  return Millis(std::llround(seconds * scale * 1000));
}

Deadline after(Millis d) {
  return Deadline::after(SteadyClock::instance(), d);
}

// Every one of `keys` and no other.
Expected<void> exact_keys(const Json& j, std::initializer_list<std::string_view> keys,
                          std::string_view what) {
  if (auto ok = arbiter::only_keys(j, keys, what); !ok) return ok;
  for (std::string_view key : keys)
    if (!j.contains(key)) return fail(fmt::format("{}: missing field \"{}\"", what, key));
  return {};
}

// A natural number field no larger than `max`.
Expected<std::uint64_t> bounded(const Json& j, std::string_view key, std::uint64_t max,
                                std::string_view what) {
  auto n = to_natural(j.at(key), fmt::format("{}: {}", what, key));
  if (!n) return std::unexpected(n.error());
  if (*n > max) return fail(fmt::format("{}: {} must be at most {}, got {}", what, key, max, *n));
  return *n;
}

struct ServerConfig {
  std::uint16_t port = 0;
  std::uint64_t tries = 0;
  std::uint64_t wait = 0;    // seconds per sign-up period
  std::uint64_t signup = 0;  // seconds for a connection to send its name
  bool quiet = true;
  Table state0;
  Bonuses bonuses;
  std::uint64_t per_turn = 6;
  bool observe = false;
};

Expected<ServerConfig> decode_server_config(const Json& j) {
  constexpr std::string_view what = "ServerConfig";
  if (auto ok = exact_keys(
          j, {"port", "server-tries", "server-wait", "wait-for-signup", "quiet", "ref-spec"}, what);
      !ok)
    return std::unexpected(ok.error());
  ServerConfig c;
  auto port = bounded(j, "port", 65535, what);
  auto tries = bounded(j, "server-tries", 9, what);
  auto wait = bounded(j, "server-wait", 29, what);
  auto signup = bounded(j, "wait-for-signup", 9, what);
  auto quiet = to_bool(j.at("quiet"), "ServerConfig: quiet");
  for (const auto* e : {&port, &tries, &wait, &signup})
    if (!*e) return std::unexpected(e->error());
  if (!quiet) return std::unexpected(quiet.error());
  c.port = static_cast<std::uint16_t>(*port);
  c.tries = *tries;
  c.wait = *wait;
  c.signup = *signup;
  c.quiet = *quiet;

  constexpr std::string_view ref = "RefereeConfig";
  const Json& r = j.at("ref-spec");
  if (auto ok = exact_keys(r, {"state0", "quiet", "config-s", "per-turn", "observe"}, ref); !ok)
    return std::unexpected(ok.error());
  // A state0 without players (the course's default server config) deals each player who signs
  // up a hand from its tiles, in sign-up order; decoded here with a stand-in player, left out.
  Json given = keep_later_cells_of_map(r.at("state0"));
  const bool deal =
      given.is_object() && given.contains("players") && given["players"] == Json::array();
  if (deal) given["players"] = Json::array({Json{{"score", 0}, {"tile*", Json::array()}}});
  auto state0 = decode_table(given);
  if (!state0) return fail("RefereeConfig: state0: " + state0.error().message);
  c.state0 = std::move(*state0);
  if (deal) c.state0.players.clear();
  auto per_turn = bounded(r, "per-turn", 6, ref);
  if (!per_turn) return std::unexpected(per_turn.error());
  c.per_turn = *per_turn;
  auto observe = to_bool(r.at("observe"), "RefereeConfig: observe");
  if (!observe) return std::unexpected(observe.error());
  c.observe = *observe;
  if (auto q = to_bool(r.at("quiet"), "RefereeConfig: quiet"); !q)
    return std::unexpected(q.error());
  const Json& s = r.at("config-s");
  if (auto ok = exact_keys(s, {"qbo", "fbo"}, "RefereeStateConfig"); !ok)
    return std::unexpected(ok.error());
  auto qbo = bounded(s, "qbo", 10, "RefereeStateConfig");
  auto fbo = bounded(s, "fbo", 10, "RefereeStateConfig");
  if (!qbo) return std::unexpected(qbo.error());
  if (!fbo) return std::unexpected(fbo.error());
  c.bonuses = {.q = static_cast<std::int64_t>(*qbo), .finish = static_cast<std::int64_t>(*fbo)};
  return c;
}

struct SignedUp {
  std::string name;
  std::unique_ptr<Channel> channel;
  std::uint64_t connected = 0;  // the order of its connection
};

void say(const NetOptions& options, bool quiet, const std::string& line) {
  if (!quiet && options.diagnostics != nullptr) *options.diagnostics << line << std::endl;
}

// Sign-up (docs/games/q.md §5): every connection has wait-for-signup from connecting to send its
// name, and names are read from all connections at once (remote/tcp.h's SignUpDesk), so a silent
// one delays nobody; periods of server-wait seconds, at most server-tries of them; the game
// starts at once with 4 players, or at the end of a period with 2 or more. The players are in
// the order they connected, as with the course's server, which reads one connection at a time.
std::vector<SignedUp> sign_up(TcpListener& listener, const ServerConfig& c,
                              const NetOptions& options) {
  SignUpDesk desk(listener, Framing::values,
                  {.wait = scaled(static_cast<double>(c.signup), options.time_scale),
                   .max_pending = options.max_pending,
                   .max_pending_per_host = options.max_pending_per_host});
  std::vector<SignedUp> players;
  for (std::uint64_t period = 0; period < c.tries; ++period) {
    const Deadline period_end = after(scaled(static_cast<double>(c.wait), options.time_scale));
    while (players.size() < static_cast<std::size_t>(kMaxPlayers)) {
      auto arrival = desk.next(period_end);
      if (!arrival || !*arrival) break;
      const ChannelResult<Json>& name = (*arrival)->hello;
      if (name && name->is_string() && valid_seat_name(name->get<std::string>())) {
        players.push_back(
            {name->get<std::string>(), std::move((*arrival)->channel), (*arrival)->number});
      } else {
        say(options, c.quiet,
            fmt::format("improper sign-up: {}", name ? excerpt(*name) : name.error().detail));
        (*arrival)->channel->close();
      }
    }
    if (players.size() >= static_cast<std::size_t>(kMinPlayers)) {
      std::ranges::sort(players, {}, &SignedUp::connected);
      return players;
    }
  }
  return {};
}

}  // namespace

Expected<Json> xserver(const Json& server_config, std::optional<std::uint16_t> port,
                       const NetOptions& options) {
  auto config = decode_server_config(server_config);
  if (!config) return fail("xserver: " + config.error().message);
  auto listener = TcpListener::listen(options.host, port.value_or(config->port));
  if (!listener) return fail("xserver: " + listener.error().message);
  const Json nobody = Json::array({Json::array(), Json::array()});

  std::vector<SignedUp> signed_up = sign_up(**listener, *config, options);
  (*listener)->close();
  if (signed_up.empty()) return nobody;
  // The course's referee refuses sign-ups that do not match state0 or repeat a name.
  std::vector<std::string> names;
  for (const auto& p : signed_up) names.push_back(p.name);
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  const bool deal = config->state0.players.empty();
  if ((!deal && signed_up.size() != config->state0.players.size()) ||
      std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    return nobody;

  Config game;
  game.players = static_cast<int>(signed_up.size());
  game.bonuses = config->bonuses;
  game.table = config->state0;
  if (deal) {
    Tiles& pile = game.table->pile;
    for (std::size_t i = 0; i < signed_up.size(); ++i) {
      const std::size_t n = std::min(kHandSize, pile.size());
      game.table->players.push_back(
          {0, Tiles(pile.begin(), pile.begin() + static_cast<std::ptrdiff_t>(n)), std::nullopt});
      pile.erase(pile.begin(), pile.begin() + static_cast<std::ptrdiff_t>(n));
    }
  }
  std::vector<PlayerPtr<Q>> players;
  for (auto& p : signed_up)
    players.push_back(std::make_shared<RemotePlayer<Q>>(p.name, std::move(p.channel), nullptr,
                                                        /*tell_ejection=*/false));
  RefereeOptions referee;
  referee.per_call = scaled(static_cast<double>(config->per_turn), options.time_scale);
  std::optional<GameLog> log;
  if (config->observe && options.observe != nullptr) {
    log.emplace(options.observe);
    referee.log = &*log;
  }
  const MatchResult result = play_turn_based<Q>(game, /*seed=*/0, names, players, referee);
  return course_result(result, names);
}

namespace {

// What one client of xclients does.
enum class Script { play, diverge_before_sending, send_name_then_loop };

struct ClientPlan {
  ActorSpec actor;
  Script script = Script::play;
};

// The course client's name-triggered bad proxies (docs/games/q.md §5): each spoils one reply.
std::optional<std::string> spoiled_reply(const std::string& name, std::string_view method,
                                         Json& reply) {
  if ((name == "nonSetup" && method == wire::kSetup) ||
      (name == "nonNewTiles" && method == wire::kNewTiles) ||
      (name == "nonWin" && method == wire::kWin))
    return std::string("void\n");  // not JSON
  if (name == "illTT" && method == wire::kTakeTurn) {
    std::string text = dump(reply);
    text.pop_back();  // a value that never completes
    return std::string(4095, ' ') + text + "\n";
  }
  if (name == "invTTBadString" && method == wire::kTakeTurn && reply.is_array() && !reply.empty()) {
    reply[0]["oord"] = reply[0]["coordinate"];
    reply[0].erase("coordinate");
  }
  return std::nullopt;
}

Deadline forever() {
  return after(std::chrono::hours(24 * 365));
}

// The client's side of one game on an open connection, scripted by `plan`.
void play_client(const ClientPlan& plan, Channel& channel) {
  auto* raw = dynamic_cast<FdChannel*>(&channel);
  const std::string& name = plan.actor.name;
  if (plan.script == Script::diverge_before_sending) {
    while (channel.receive(forever())) {
    }
    return;
  }
  if (!channel.send(Json(name), forever())) return;
  if (plan.script == Script::send_name_then_loop) {
    while (channel.receive(forever())) {  // reads, never answers
    }
    return;
  }
  auto player = make_actor(plan.actor);
  try {
    for (;;) {
      auto message = channel.receive(forever());
      if (!message) return;  // the server closed the connection
      const Json& m = *message;
      if (!m.is_array() || m.size() != 2 || !m[0].is_string() || !m[1].is_array() || m[1].empty())
        throw std::runtime_error("unexpected message from the server");
      const std::string method = m[0].get<std::string>();
      const Json& args = m[1];
      Json reply = std::string(wire::kVoid);
      if (method == wire::kSetup || method == wire::kTakeTurn) {
        auto view = decode_view(keep_later_cells_of_map(args[0]));
        if (!view) throw std::runtime_error(view.error().message);
        if (method == wire::kSetup)
          player->setup(*view);
        else
          reply = encode_action(player->take_turn(*view));
      } else if (method == wire::kNewTiles) {
        auto tiles = decode_tiles(args[0]);
        if (!tiles) throw std::runtime_error(tiles.error().message);
        player->new_tiles(*tiles);
      } else if (method == wire::kWin && args[0].is_boolean()) {
        player->win(args[0].get<bool>());
      } else {
        throw std::runtime_error("unknown call " + method);
      }
      auto text = spoiled_reply(name, method, reply);
      const auto sent = text && raw != nullptr ? raw->send_text(*text, forever())
                                               : channel.send(reply, forever());
      if (!sent || method == wire::kWin) {
        if (method == wire::kWin) {
          while (channel.receive(forever())) {  // wait for the server to close
          }
        }
        return;
      }
    }
  } catch (const std::exception&) {
    channel.close();  // a crashing client drops its connection
  }
}

// Plays one client to its end; the reason it never got connected, if it did not.
std::optional<std::string> run_client(const ClientPlan& plan, const std::string& host,
                                      std::uint16_t port, double scale) {
  std::unique_ptr<Channel> channel;
  std::string why;
  for (int attempt = 0; attempt < 10 && !channel; ++attempt) {
    auto connected = tcp_connect(host, port, after(scaled(1, scale)), Framing::values);
    if (connected) {
      channel = std::move(*connected);
    } else {
      why = connected.error().message;
      std::this_thread::sleep_for(scaled(1, scale));
    }
  }
  if (!channel) return why;
  play_client(plan, *channel);
  return std::nullopt;
}
}  // namespace

Expected<std::vector<std::string>> xclients(const std::vector<Json>& in,
                                            std::optional<std::uint16_t> port,
                                            const NetOptions& options) {
  if (in.empty() || in.size() > 2)
    return fail(
        fmt::format("xclients: expected a ClientConfig and at most one scenario string, got "
                    "{} JSON values",
                    in.size()));
  const Json& j = in[0];
  if (auto ok = exact_keys(j, {"port", "host", "wait", "quiet", "players"}, "ClientConfig"); !ok)
    return fail("xclients: " + ok.error().message);
  auto config_port = bounded(j, "port", 65535, "ClientConfig");
  auto wait = bounded(j, "wait", 9, "ClientConfig");
  auto host = arbiter::to_string(j.at("host"), "ClientConfig: host");
  auto quiet = to_bool(j.at("quiet"), "ClientConfig: quiet");
  auto actors = decode_actors(j.at("players"), Dialect::m9, /*lax_names=*/true);
  if (!config_port) return fail("xclients: " + config_port.error().message);
  if (!wait) return fail("xclients: " + wait.error().message);
  if (!host) return fail("xclients: " + host.error().message);
  if (!quiet) return fail("xclients: " + quiet.error().message);
  if (!actors) return fail("xclients: " + actors.error().message);

  std::vector<ClientPlan> plans;
  for (const auto& a : *actors) plans.push_back({a, Script::play});
  if (in.size() == 2) {
    const std::string scenario = in[1].is_string() ? in[1].get<std::string>() : "";
    if (scenario == "divergeBeforeSending")
      plans.push_back({{.name = scenario}, Script::diverge_before_sending});
    else if (scenario == "sendnameloop")
      plans.push_back({{.name = scenario}, Script::send_name_then_loop});
    else
      return fail(
          "xclients: the trailing value must be \"divergeBeforeSending\" or "
          "\"sendnameloop\", got " +
          excerpt(in[1]));
  }

  const std::uint16_t target = port.value_or(static_cast<std::uint16_t>(*config_port));
  struct Tally {
    std::atomic<int> finished{0};
    std::mutex mu;
    std::vector<std::string> unconnected;  // "NAME: REASON"
  };
  auto tally = std::make_shared<Tally>();
  for (const auto& plan : plans) {
    std::this_thread::sleep_for(scaled(static_cast<double>(*wait), options.time_scale));
    std::thread([plan, host = *host, target, scale = options.time_scale, tally] {
      if (auto why = run_client(plan, host, target, scale)) {
        std::lock_guard lock(tally->mu);
        tally->unconnected.push_back(fmt::format("{}: {}", plan.actor.name, *why));
      }
      tally->finished.fetch_add(1);
    }).detach();
  }
  // Done when every client has finished or is hung on purpose (a looping actor).
  const int n = static_cast<int>(plans.size());
  while (tally->finished.load() + hanging_threads() < n)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::lock_guard lock(tally->mu);
  return tally->unconnected;
}

}  // namespace arbiter::q::harness
