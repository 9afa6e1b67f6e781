#include "games/registry_abalone.h"

#include <deque>
#include <memory>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "core/file.h"
#include "games/abalone/house_teams.h"
#include "games/abalone/match.h"
#include "games/registry_seating.h"
#include "referee/call_runner.h"
#include "referee/guarded_call.h"
#include "remote/child_process.h"
#include "remote/fd_channel.h"
#include "remote/tcp.h"
#include "remote/wire.h"

namespace arbiter {
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
  return fail(fmt::format("bot \"{}\": expected {}, cmd:PROGRAM or tcp", bot, kAbaloneBots));
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

// A team played through the §8 protocol. Decoding, judging the shape of answers and logging the
// calls are shared by the live team (a channel) and its replay (the recorded calls).
class ExternalSeat : public abalone::ExternalTeam {
 public:
  ExternalSeat(Seat seat, GameLog* log) : seat_(seat), log_(log) {}

  std::expected<std::int64_t, Ejection> setup(const Json& view) override {
    return call<std::int64_t>("setup", wire::kSetup, Json::array({view}),
                              [](const Json& reply) -> Expected<std::int64_t> {
                                if (!reply.is_number_integer())
                                  return fail("setup reply: expected the number of pieces to "
                                              "spawn, got " + excerpt(reply));
                                return reply.get<std::int64_t>();
                              });
  }

  std::expected<std::vector<Commitment>, Ejection> take_turn(const Json& view) override {
    return call<std::vector<Commitment>>(
        "take_turn", wire::kTakeTurn, Json::array({view}),
        [](const Json& reply) -> Expected<std::vector<Commitment>> {
          auto commitments = abalone::decode_commitments(reply);
          if (!commitments) return fail("take-turn reply: " + commitments.error().message);
          return commitments;
        });
  }

  // The end of the match, for a team that is still in it: its ejection if it fails the call.
  std::optional<Ejection> win(bool won) {
    auto heard = call<Unit>("win", wire::kWin, Json::array({won}),
                            [](const Json& reply) -> Expected<Unit> {
                              if (reply != wire::kVoid)
                                return fail("win reply must be \"void\", got " + excerpt(reply));
                              return Unit{};
                            });
    if (heard) return std::nullopt;
    return heard.error();
  }

  bool failed() const { return failed_; }

  // The team is out (a failed call or a foul the scheduler judged): no call follows.
  void ejected(const Ejection& ejection) final {
    failed_ = true;
    told(ejection);
  }

 protected:
  // How the team hears that it is out; a replayed team does not.
  virtual void told(const Ejection& ejection) { (void)ejection; }
  // One exchange with the team: its reply, or why it failed (already logged by the caller).
  virtual std::expected<Json, Ejection> exchange(const char* call, std::string_view method,
                                                 const Json& args, Duration& elapsed) = 0;
  Seat seat_;

 private:
  // One logged call: the reply decoded by `decode` (a failure there is malformed), or why the
  // call failed. The log's verdict is the final one.
  template <class T, class Decode>
  std::expected<T, Ejection> call(const char* call, std::string_view method, Json args,
                                  Decode decode) {
    Json record = {{"type", "call"}, {"seat", seat_}, {"call", call}, {"args", args}};
    Duration elapsed{};
    auto reply = exchange(call, method, args, elapsed);
    std::expected<T, Ejection> out = std::unexpected(Ejection{});
    if (reply) {
      record["reply"] = *reply;
      auto decoded = decode(*reply);
      if (decoded)
        out = std::move(*decoded);
      else
        out = std::unexpected(Ejection{seat_, Why::malformed, call, decoded.error().message});
    } else {
      out = std::unexpected(reply.error());
    }
    record["verdict"] = out ? std::string("ok") : std::string(to_string(out.error().why));
    if (!out) {
      record["detail"] = out.error().detail;
      failed_ = true;
    }
    record["elapsed_us"] = std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count();
    if (log_ != nullptr) log_->write(record);
    return out;
  }

  GameLog* log_;
  bool failed_ = false;
};

// An external team over a channel (a child process or a tcp client); every call goes through
// guarded_call under the per-call limit.
class WireSeat final : public ExternalSeat {
 public:
  WireSeat(Seat seat, GameLog* log, std::unique_ptr<Channel> channel,
           std::shared_ptr<ChildProcess> process, std::string failure, const Clock& clock,
           Duration per_call)
      : ExternalSeat(seat, log),
        channel_(std::move(channel)),
        process_(std::move(process)),
        failure_(std::move(failure)),
        clock_(clock),
        per_call_(per_call) {}
  ~WireSeat() override {
    if (channel_) channel_->close();
    if (process_) process_->kill();
  }

 private:
  std::expected<Json, Ejection> exchange(const char* call, std::string_view method,
                                         const Json& args, Duration& elapsed) override {
    if (!failure_.empty()) return std::unexpected(Ejection{seat_, Why::hang_up, call, failure_});
    const Deadline deadline = Deadline::after(clock_, per_call_);
    auto outcome = guarded_call(seat_, call, runner_, deadline,
                                [channel = channel_, request = wire::call(method, args),
                                 process = process_] {
                                  auto reply = channel->exchange(request, *call_deadline());
                                  if (!reply) wire::throw_fault(reply.error(), process.get());
                                  return std::move(*reply);
                                });
    elapsed = outcome.elapsed;
    if (!outcome.value) {
      // A team that failed once is done; it hears why in ejected(), which follows at once.
      failure_ = outcome.value.error().detail;
      return std::unexpected(outcome.value.error());
    }
    return std::move(*outcome.value);
  }

  // Told why, its channel closed so that it cannot answer late, its program stopped after the
  // grace to read the notice.
  void told(const Ejection& ejection) override {
    if (failure_.empty()) failure_ = ejection.detail;
    wire::tell_ejected(*channel_, ejection);
    if (process_) process_->stop_after(wire::kLastMessageGrace);
  }

  std::shared_ptr<Channel> channel_;
  std::shared_ptr<ChildProcess> process_;
  std::string failure_;  // set once the seat cannot be called any more
  const Clock& clock_;
  Duration per_call_;
  CallRunner runner_{Isolation::inline_call};
};

// An external team in a replay: answers each call from the recorded one after checking that the
// referee asked the same thing.
class ReplaySeat final : public ExternalSeat {
 public:
  ReplaySeat(Seat seat, GameLog* log, std::deque<Json> calls, std::string* divergence)
      : ExternalSeat(seat, log), calls_(std::move(calls)), divergence_(divergence) {}

 private:
  std::expected<Json, Ejection> exchange(const char* call, std::string_view, const Json& args,
                                         Duration&) override {
    auto diverge = [&](std::string what) -> std::expected<Json, Ejection> {
      if (divergence_->empty()) *divergence_ = fmt::format("seat {}: {}", seat_, what);
      return std::unexpected(Ejection{seat_, Why::exception, call, "replay diverged: " + what});
    };
    if (calls_.empty()) return diverge(fmt::format("{} is not in the log", call));
    Json record = std::move(calls_.front());
    calls_.pop_front();
    if (string_or(record, "call") != call)
      return diverge(fmt::format("the referee calls {} where the log has {}", call,
                                 string_or(record, "call")));
    if (field_or_null(record, "args") != args)
      return diverge(fmt::format("{} gets other arguments than recorded", call));
    // A recorded reply is answered again, so that decoding judges it as it did then.
    if (record.contains("reply")) return record["reply"];
    const std::string verdict = string_or(record, "verdict");
    auto why = why_from_string(verdict);
    if (!why) return diverge(fmt::format("unknown verdict \"{}\"", verdict));
    return std::unexpected(Ejection{seat_, *why, call, string_or(record, "detail")});
  }

  std::deque<Json> calls_;
  std::string* divergence_;
};

// The §7 stream to a viewer: one connection, each command a line; a viewer that is gone or does
// not keep up is dropped and the match goes on.
class GuiStream {
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

// What both play and replay run: the match with its log lines, from the prepared teams.
struct Hosted {
  abalone::MatchSummary summary;
  MatchResult result;
};

Hosted host(const AbaloneConfig& config, std::uint64_t seed,
            const std::array<abalone::TeamProgram, 2>& teams,
            const std::array<ExternalSeat*, 2>& external, GameLog* log, GuiStream* gui) {
  abalone::MatchEvents events;
  if (log != nullptr) events.log = [log](const Json& e) { log->write(e); };
  if (gui != nullptr) events.gui = [gui](const std::string& line) { gui->write(line); };
  Hosted out;
  out.summary = abalone::play_match(config.world, config.runtime, seed, teams[0], teams[1], events);
  const auto& s = out.summary;
  out.result.scores = {s.scores[0], s.scores[1]};
  for (const auto& e : s.ejections)
    if (e) out.result.ejections.push_back(*e);
  // External teams still in the game hear how it ended; only a winner that heard it wins.
  for (std::size_t i = 0; i < 2; ++i) {
    const bool won = s.result.winner && abalone::team_index(*s.result.winner) == i;
    if (external[i] != nullptr && !external[i]->failed()) {
      if (auto ejection = external[i]->win(won)) {
        external[i]->ejected(*ejection);
        out.result.ejections.push_back(*ejection);
        continue;
      }
    }
    if (won) out.result.winners.push_back(static_cast<Seat>(i));
  }
  if (log != nullptr) log->write(encode_result(out.result));
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
  std::array<std::unique_ptr<WireSeat>, 2> wire_seats;
  std::array<ExternalSeat*, 2> external{nullptr, nullptr};
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
  auto opened = open_remote_seats(spec);
  if (!opened) return std::unexpected(opened.error());
  for (std::size_t i = 0; i < 2; ++i) {
    auto& seat = (*opened)[i];
    if (!seat) continue;
    wire_seats[i] = std::make_unique<WireSeat>(
        static_cast<Seat>(i), spec.options.log, std::move(seat->channel), std::move(seat->process),
        seat->failure, *spec.options.clock, spec.options.per_call);
    external[i] = wire_seats[i].get();
    teams[i].external = external[i];
  }
  std::unique_ptr<GuiStream> gui;
  if (!spec.hosting.gui.empty()) {
    auto connected = GuiStream::connect(spec.hosting.gui);
    if (!connected) return std::unexpected(connected.error());
    gui = std::move(*connected);
  }
  if (spec.options.log != nullptr)
    spec.options.log->write(match_header(spec.seed, *config, outcome.names, team_records));
  Hosted hosted = host(*config, spec.seed, teams, external, spec.options.log, gui.get());
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
  std::array<std::deque<Json>, 2> calls;
  for (const Json& line : log)
    if (string_or(line, "type") == "call") {
      auto seat = to_int(field_or_null(line, "seat"), "a call's seat");
      if (!seat || *seat < 0 || *seat > 1) return fail("a call line names no seat 0 or 1");
      calls[static_cast<std::size_t>(*seat)].push_back(line);
    }

  GameLog replayed(nullptr, true);
  std::string divergence;
  std::array<abalone::TeamProgram, 2> teams;
  std::array<std::unique_ptr<ReplaySeat>, 2> replay_seats;
  std::array<ExternalSeat*, 2> external{nullptr, nullptr};
  for (std::size_t i = 0; i < 2; ++i) {
    const Json& record = team_records[i];
    teams[i].name = names[i];
    if (record.is_object() && record.contains("source") && record["source"].is_string()) {
      teams[i].source = record["source"].get<std::string>();
    } else if (record.is_object() && field_or_null(record, "external") == Json(true)) {
      replay_seats[i] = std::make_unique<ReplaySeat>(static_cast<Seat>(i), &replayed,
                                                     std::move(calls[i]), &divergence);
      external[i] = replay_seats[i].get();
      teams[i].external = external[i];
    } else {
      return fail(fmt::format("the log's team {} has neither a source nor \"external\"", i));
    }
  }
  replayed.write(match_header(*seed, *config, names, team_records));
  Hosted hosted = host(*config, *seed, teams, external, &replayed, nullptr);
  ReplayReport report;
  report.result = hosted.result;
  for (const Json& line : log) report.calls += string_or(line, "type") == "call";
  if (auto difference = first_difference(log, replayed.lines())) {
    report.difference = divergence.empty() ? *difference : divergence + "; " + *difference;
  } else {
    report.identical = true;
  }
  return report;
}

}  // namespace arbiter
