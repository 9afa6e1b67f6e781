#include "arena/abalone.h"

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "arena/seating.h"
#include "core/file.h"
#include "games/abalone/bots.h"
#include "games/abalone/game.h"
#include "games/abalone/spectator.h"
#include "referee/lockstep.h"
#include "remote/child_process.h"
#include "remote/fd_channel.h"
#include "remote/tcp.h"
#include "remote/wire.h"

namespace arbiter {

std::vector<std::string> abalone_house_bots() {
  std::vector<std::string> names;
  for (const auto& team : abalone::house_teams()) names.push_back(team.name);
  return names;
}

std::string abalone_bot_syntax() {
  std::string teams;
  for (const auto& name : abalone_house_bots()) teams += (teams.empty() ? "" : " | ") + name;
  return teams + " (house Lua teams) | PATH.lua | lua:PATH (a Lua team file)";
}

namespace {

using abalone::Commitment;
using abalone::Team;

constexpr std::size_t kMaxTeamFile = std::size_t{1} << 20;
constexpr Duration kGuiWrite = std::chrono::seconds(2);  // a viewer that reads slower is dropped

// The world's config and the runtime's constants, from one JSON object.
struct AbaloneConfig {
  abalone::Config world;
  abalone::Runtime runtime;
};

Json encode_abalone_config(const AbaloneConfig& c) {
  Json j = abalone::encode_config(c.world);
  j["step_budget"] = c.runtime.step_budget;
  j["action_cost"] = c.runtime.action_cost;
  j["memory_mb"] = c.runtime.memory_limit >> 20;
  j["watchdog_ms"] =
      std::chrono::duration_cast<std::chrono::milliseconds>(c.runtime.watchdog).count();
  return j;
}

Expected<AbaloneConfig> decode_abalone_config(const Json& given) {
  Json j = given.is_null() ? Json::object() : given;
  if (!j.is_object()) return fail("the Abalone config must be a JSON object, got " + excerpt(j));
  AbaloneConfig c;
  // Takes `key` out of j (the rest goes to the world's decoder) as an integer in lo..hi.
  auto take = [&j](const char* key, std::int64_t lo, std::int64_t hi,
                   std::int64_t fallback) -> Expected<std::int64_t> {
    if (!j.contains(key)) return fallback;
    auto v = to_int(j[key], key);
    j.erase(key);
    if (!v) return std::unexpected(v.error());
    if (*v < lo || *v > hi) return fail(fmt::format("{}: {} is outside {}..{}", key, *v, lo, hi));
    return *v;
  };
  auto budget = take("step_budget", 1, 1'000'000, c.runtime.step_budget);
  if (!budget) return std::unexpected(budget.error());
  auto cost = take("action_cost", 0, 1'000'000, c.runtime.action_cost);
  if (!cost) return std::unexpected(cost.error());
  auto memory = take("memory_mb", 1, 4096, static_cast<std::int64_t>(c.runtime.memory_limit >> 20));
  if (!memory) return std::unexpected(memory.error());
  auto watchdog = take(
      "watchdog_ms", 1, 60'000,
      std::chrono::duration_cast<std::chrono::milliseconds>(c.runtime.watchdog).count());
  if (!watchdog) return std::unexpected(watchdog.error());
  auto world = abalone::decode_config(j);
  if (!world) return std::unexpected(world.error());
  c.world = *world;
  c.runtime.step_budget = static_cast<int>(*budget);
  c.runtime.action_cost = static_cast<int>(*cost);
  c.runtime.memory_limit = static_cast<std::size_t>(*memory) << 20;
  c.runtime.watchdog = std::chrono::milliseconds(*watchdog);
  return c;
}

// The Lua source a house or file seat names; nothing for a seat that is played from outside.
// The team file a seat names ("" for a house team), or why the bot text names none.
Expected<std::string> team_file(const std::string& bot) {
  if (abalone::find_house_team(bot) != nullptr) return std::string();
  if (bot.starts_with("lua:")) return bot.substr(4);
  if (bot.ends_with(".lua")) return bot;
  return fail(
      fmt::format("bot \"{}\": expected {}, cmd:PROGRAM or tcp", bot, abalone_bot_syntax()));
}

Expected<std::optional<std::string>> lua_source(const std::string& bot) {
  if (bot == "tcp" || bot.starts_with("cmd:")) return std::optional<std::string>();
  if (const auto* house = abalone::find_house_team(bot)) return house->source;
  auto path = team_file(bot);
  if (!path) return std::unexpected(path.error());
  auto text = read_file(*path, kMaxTeamFile);
  if (!text) return fail("the team file " + text.error().message);
  return std::optional<std::string>(std::move(*text));
}

// An outside team of §8: the referee's OutsideSeat (referee/lockstep.h) asked in the game's
// terms. Decoding the answers is here; the scheduler judges them against the world.
class OutsideTeam final : public abalone::ExternalTeam {
 public:
  explicit OutsideTeam(OutsideSeat& seat) : seat_(seat) {}

  std::expected<std::int64_t, Ejection> setup(const Json& view) override {
    return seat_.call<std::int64_t>("setup", wire::kSetup, Json::array({view}),
                                    [](const Json& reply) -> Expected<std::int64_t> {
                                      if (!reply.is_number_integer())
                                        return fail("setup reply: expected the number of pieces "
                                                    "to spawn, got " + excerpt(reply));
                                      return reply.get<std::int64_t>();
                                    });
  }

  std::expected<std::vector<Commitment>, Ejection> take_turn(const Json& view) override {
    return seat_.call<std::vector<Commitment>>(
        "take_turn", wire::kTakeTurn, Json::array({view}),
        [](const Json& reply) -> Expected<std::vector<Commitment>> {
          auto commitments = abalone::decode_commitments(reply);
          if (!commitments) return fail("take-turn reply: " + commitments.error().message);
          return commitments;
        });
  }

  void ejected(const Ejection& ejection) override { seat_.ejected(ejection); }

 private:
  OutsideSeat& seat_;
};

// The §7 stream to a viewer, fed by the match's observer hook (the frames): one connection, each
// command a line; a viewer that is gone or does not keep up is dropped and the match goes on.
class GuiStream final : public MatchObserver {
 public:
  static Expected<std::unique_ptr<GuiStream>> connect(const std::string& address) {
    auto at = parse_address(address, "--gui", /*any_port=*/false);
    if (!at) return std::unexpected(at.error());
    auto channel = tcp_connect(at->host, at->port,
                               Deadline::after(SteadyClock::instance(), std::chrono::seconds(5)),
                               Framing::lines);
    if (!channel) return fail(fmt::format("--gui {}: {}", address, channel.error().message));
    auto stream = std::unique_ptr<GuiStream>(new GuiStream);
    stream->channel_ = std::move(*channel);
    return stream;
  }

  void on_line(const Json&) override {}
  bool wants_frames() const override { return true; }
  void on_frame(const Json& frame) override {
    const Json& commands = field_or_null(frame, "gui");
    if (!commands.is_array()) return;
    for (const Json& command : commands)
      if (command.is_string()) write(command.get<std::string>());
  }

  void write(const std::string& command) {
    if (!problem_.empty()) return;
    // tcp_connect makes an FdChannel; the viewer's protocol is plain text, not JSON.
    auto* fd = static_cast<FdChannel*>(channel_.get());
    auto sent =
        fd->send_text(command + "\n", Deadline::after(SteadyClock::instance(), kGuiWrite));
    if (!sent) {
      problem_ = sent.error().detail;
      channel_->close();
    }
  }
  const std::string& problem() const { return problem_; }

 private:
  GuiStream() = default;
  std::unique_ptr<Channel> channel_;
  std::string problem_;
};

// What both play and replay run: the match through the lockstep referee, from the prepared
// teams.
struct Hosted {
  abalone::MatchSummary summary;
  MatchResult result;
};

Hosted host(const AbaloneConfig& config, std::uint64_t seed, const Json& header,
            std::array<abalone::TeamProgram, 2> teams, const std::array<OutsideSeat*, 2>& outside,
            GameLog* log) {
  std::array<std::unique_ptr<OutsideTeam>, 2> outside_teams;
  for (std::size_t i = 0; i < 2; ++i)
    if (outside[i] != nullptr) {
      outside_teams[i] = std::make_unique<OutsideTeam>(*outside[i]);
      teams[i].external = outside_teams[i].get();
    }
  Hosted out;
  out.result = run_lockstep(
      header, {outside[0], outside[1]}, log, [&](const LockstepRecord& record) {
        abalone::MatchEvents events;
        events.log = record.event;
        events.frame = record.frame;
        out.summary =
            abalone::play_match(config.world, config.runtime, seed, teams[0], teams[1], events);
        const auto& s = out.summary;
        LockstepEnd end;
        end.scores = {s.scores[0], s.scores[1]};
        end.ejected = {s.ejections[0], s.ejections[1]};
        if (s.result.winner) end.winner = static_cast<Seat>(abalone::team_index(*s.result.winner));
        return end;
      });
  return out;
}

Json match_header(std::uint64_t seed, const AbaloneConfig& config,
                  const std::vector<std::string>& names, const Json& teams) {
  return {{"type", "match"},          {"format", kGameLogFormat},
          {"game", "abalone"},        {"seed", seed},
          {"config", encode_abalone_config(config)},
          {"seats", names},           {"style", "lockstep"},
          {"teams", teams}};
}

}  // namespace

Expected<void> check_abalone_bot(const std::string& bot) {
  // The file is read once, when the match starts: a FIFO must not be drained by the check.
  auto path = team_file(bot);
  if (!path) return std::unexpected(path.error());
  if (path->empty()) return {};
  if (auto ok = check_readable_file(*path); !ok) return fail("the team file " + ok.error().message);
  return {};
}

Expected<void> check_abalone_config(const Json& config, std::size_t seats) {
  if (seats != 2) return fail(fmt::format("abalone is for 2 teams (black, white), got {}", seats));
  auto decoded = decode_abalone_config(config);
  if (!decoded) return std::unexpected(decoded.error());
  return {};
}

Expected<PlayOutcome> play_abalone(const PlaySpec& spec) {
  if (auto ok = check_abalone_config(spec.config, spec.roster.size()); !ok)
    return std::unexpected(ok.error());
  auto config = decode_abalone_config(spec.config);
  if (!config) return std::unexpected(config.error());
  config->runtime.clock = spec.options.clock;
  PlayOutcome outcome;
  auto names = seat_names(spec);
  if (!names) return std::unexpected(names.error());
  outcome.names = std::move(*names);

  std::array<abalone::TeamProgram, 2> teams;
  Json team_records = Json::array();
  for (std::size_t i = 0; i < 2; ++i) {
    auto source = lua_source(spec.roster[i].bot);
    if (!source)
      return fail(fmt::format("player {}: {}", spec.roster[i].name, source.error().message));
    teams[i].name = spec.roster[i].name;
    if (*source) {
      teams[i].source = std::move(**source);
      team_records.push_back({{"bot", spec.roster[i].bot}, {"source", teams[i].source}});
    } else {
      team_records.push_back({{"bot", spec.roster[i].bot}, {"external", true}});
    }
  }
  std::unique_ptr<GuiStream> gui;
  if (!spec.hosting.gui.empty()) {
    auto connected = GuiStream::connect(spec.hosting.gui);
    if (!connected) return std::unexpected(connected.error());
    gui = std::move(*connected);
  }
  // At the end, every program's channel closed and the program killed.
  std::vector<std::function<void()>> closers;
  struct Close {
    std::vector<std::function<void()>>& closers;
    ~Close() {
      for (auto& close : closers) close();
    }
  } close{closers};
  // The viewer watches through the observer hook, on the match's log or on a hub of its own.
  GameLog hub;
  GameLog* log = spec.options.log != nullptr ? spec.options.log : gui ? &hub : nullptr;
  if (gui) log->watch(*gui);
  struct Unwatch {
    GameLog* log;
    MatchObserver* observer;
    ~Unwatch() {
      if (log != nullptr && observer != nullptr) log->unwatch(*observer);
    }
  } unwatch{log, gui.get()};

  auto opened = open_remote_seats(spec);
  if (!opened) return std::unexpected(opened.error());
  std::array<std::unique_ptr<LiveSeat>, 2> live;
  for (std::size_t i = 0; i < 2; ++i) {
    auto& seat = (*opened)[i];
    if (!seat) continue;
    std::shared_ptr<Channel> channel = std::move(seat->channel);
    std::shared_ptr<ChildProcess> process = std::move(seat->process);
    auto ask = [channel, process](const Json& request) {
      auto reply = channel->exchange(request, *call_deadline());
      if (!reply) wire::throw_fault(reply.error(), process.get());
      return std::move(*reply);
    };
    // Told why, its channel closed so that it cannot answer late, its program stopped after the
    // grace to read the notice.
    auto tell = [channel, process](const Ejection& ejection) {
      if (channel) wire::tell_ejected(*channel, ejection);
      if (process) process->stop_after(wire::kLastMessageGrace);
    };
    live[i] = std::make_unique<LiveSeat>(static_cast<Seat>(i), log, ask, tell,
                                         *spec.options.clock,
                                         spec.options.per_call_of(static_cast<Seat>(i)),
                                         seat->failure);
    closers.push_back([channel, process] {
      if (channel) channel->close();
      if (process) process->kill();
    });
  }
  Hosted hosted =
      host(*config, spec.seed, match_header(spec.seed, *config, outcome.names, team_records),
           teams, {live[0].get(), live[1].get()}, log);
  outcome.result = std::move(hosted.result);

  const auto& s = hosted.summary;
  const auto& r = s.result;
  outcome.report.push_back(
      fmt::format("ended after {} cycles: {}{}", s.cycles, abalone::end_reason_name(r.reason),
                  r.winner ? fmt::format(", {} wins", abalone::team_name(*r.winner)) : ""));
  for (Team t : abalone::kTeams) {
    const std::size_t i = abalone::team_index(t);
    outcome.report.push_back(fmt::format("  {:<5}  {} ({}): score {}, {} pieces left{}",
                                         abalone::team_name(t), outcome.names[i],
                                         spec.roster[i].bot, s.scores[i], s.pieces[i],
                                         s.failure[i].empty() ? "" : " (forfeit: " + s.failure[i] + ")"));
  }
  if (gui && !gui->problem().empty())
    outcome.report.push_back("gui: the viewer was dropped: " + gui->problem());
  outcome.details = {{"reason", abalone::end_reason_name(r.reason)},
                     {"winner", r.winner ? Json(abalone::team_name(*r.winner)) : Json()},
                     {"cycles", s.cycles},
                     {"pieces", s.pieces}};
  return outcome;
}

Expected<ReplayReport> replay_abalone(const std::vector<Json>& log) {
  if (log.empty() || string_or(log[0], "type") != "match")
    return fail("the log does not start with a match header");
  const Json& header = log[0];
  if (string_or(header, "game") != "abalone")
    return fail(fmt::format("the log is of game \"{}\", not abalone", string_or(header, "game")));
  auto seed = to_natural(field_or_null(header, "seed"), "the log's seed");
  if (!seed) return std::unexpected(seed.error());
  auto config = decode_abalone_config(field_or_null(header, "config"));
  if (!config) return fail("the log's config: " + config.error().message);
  const Json& seats = field_or_null(header, "seats");
  const Json& team_records = field_or_null(header, "teams");
  if (!seats.is_array() || seats.size() != 2 || !team_records.is_array() ||
      team_records.size() != 2)
    return fail("the log's header needs two seats and two teams");
  std::vector<std::string> names;
  for (const Json& n : seats) {
    if (!n.is_string()) return fail("the log's seat names must be strings");
    names.push_back(n.get<std::string>());
  }
  GameLog replayed(nullptr, true);
  auto script = std::make_shared<detail::ReplayScript>();
  auto calls = detail::load_calls(log, *script, 2);
  if (!calls) return std::unexpected(calls.error());
  script->names = names;
  std::array<abalone::TeamProgram, 2> teams;
  std::array<std::unique_ptr<ScriptedSeat>, 2> scripted;
  for (std::size_t i = 0; i < 2; ++i) {
    const Json& record = team_records[i];
    teams[i].name = names[i];
    if (record.is_object() && record.contains("source") && record["source"].is_string()) {
      teams[i].source = record["source"].get<std::string>();
    } else if (record.is_object() && field_or_null(record, "external") == Json(true)) {
      scripted[i] = std::make_unique<ScriptedSeat>(static_cast<Seat>(i), &replayed, script);
    } else {
      return fail(fmt::format("the log's team {} has neither a source nor \"external\"", i));
    }
  }
  Hosted hosted = host(*config, *seed, match_header(*seed, *config, names, team_records), teams,
                       {scripted[0].get(), scripted[1].get()}, &replayed);
  ReplayReport report;
  report.result = hosted.result;
  report.calls = *calls;
  if (auto difference = first_difference(log, replayed.lines())) {
    const std::string& divergence = script->divergence;
    report.difference = divergence.empty() ? *difference : divergence + "; " + *difference;
  } else {
    report.identical = true;
  }
  return report;
}

GameEntry abalone_entry() {
  return GameEntry{
      .name = "abalone",
      .summary =
          "Concurrent Abalone: every piece a sandboxed Lua thread, stepped in lockstep "
          "(2 teams: black, white)",
      .bots = abalone_bot_syntax(),
      .house_bots = abalone_house_bots(),
      .min_seats = 2,
      .max_seats = 2,
      .streams_gui = true,
      .seat_per_call = true,
      .seats_text = "2 teams (black, white)",
      .check_bot = check_abalone_bot,
      .check_config = check_abalone_config,
      .play = play_abalone,
      .replay = replay_abalone,
      .spectate = abalone::spectator_line};
}

}  // namespace arbiter
