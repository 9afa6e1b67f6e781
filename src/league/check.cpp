#include "league/check.h"

#include <condition_variable>
#include <mutex>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "arena/registry.h"
#include "arena/seating.h"
#include "core/printable.h"
#include "core/protocol.h"
#include "core/shell_words.h"
#include "referee/game_log.h"

namespace arbiter::league {
namespace {

constexpr const char* kCandidate = "candidate";
constexpr std::size_t kTranscriptRecords = 6;
constexpr std::size_t kRecordBytes = 400;

// Which check an ejection fails.
std::string check_of(const Ejection& e) {
  switch (e.why) {
    case Why::foul:
      return "legal";
    case Why::memory_limit:
    case Why::process_limit:
    case Why::output_limit:
    case Why::cpu_limit:
    case Why::time_bank:
      return "limits";
    default:
      return e.call == "setup" ? "starts" : "answers";
  }
}

// The candidate's side of the log, the last records up to its first failed call.
std::string transcript_of(const std::string& log, Seat seat) {
  std::vector<std::string> records;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    auto j = parse_json(line);
    if (!j || !j->is_object() || j->value("type", "") != "call" || j->value("seat", -1) != seat)
      continue;
    const std::string verdict = j->value("verdict", "");
    std::string text = fmt::format("-> {} {}", j->value("call", "?"),
                                   j->contains("args") ? dump((*j)["args"]) : "");
    if (text.size() > kRecordBytes) text = text.substr(0, kRecordBytes) + " ...";
    std::string reply = j->contains("reply")               ? dump((*j)["reply"])
                        : j->contains("malformed_excerpt") ? dump((*j)["malformed_excerpt"])
                        : j->contains("detail")            ? "(" + j->value("detail", "") + ")"
                                                           : "(no reply)";
    if (reply.size() > kRecordBytes) reply = reply.substr(0, kRecordBytes) + " ...";
    records.push_back(printable_line(text) + "\n<- " + printable_line(reply) + "  [" +
                      printable_line(verdict) + "]");
    if (verdict != "ok") break;
  }
  if (records.size() > kTranscriptRecords)
    records.erase(records.begin(), records.end() - kTranscriptRecords);
  std::string out;
  for (const auto& r : records) out += r + "\n";
  return out;
}

// A seat count and the candidate's seat in it.
struct Place {
  std::size_t seats;
  std::size_t position;
};

}  // namespace

bool CheckReport::ok() const {
  for (const auto& c : checks)
    if (!c.ok || !c.reached) return false;
  return !checks.empty();
}

std::string CheckReport::first_failure() const {
  for (const auto& c : checks)
    if (!c.ok) return c.name + ": " + c.detail;
  return {};
}

CheckReport check_bot(const Manifest& manifest, const std::filesystem::path& dir,
                      const CheckOptions& options) {
  CheckReport report;
  for (const char* name : {"starts", "answers", "legal", "limits", "exits"})
    report.checks.push_back({name, true, true, {}});
  const auto failed = [&](const std::string& name, const std::string& detail,
                          const std::string& transcript) {
    for (auto& c : report.checks)
      if (c.name == name && c.ok) {
        c.ok = false;
        c.detail = detail;
        if (report.transcript.empty()) report.transcript = transcript;
      }
  };
  const GameEntry* game = find_game(manifest.game);
  if (game == nullptr) {
    failed("starts", fmt::format("no game \"{}\"", manifest.game), "");
    return report;
  }
  std::vector<Place> seatings;
  for (std::size_t n = game->min_seats; n <= game->max_seats; ++n) {
    if (!game->check_config(Json(), n)) continue;
    for (std::size_t p = 0; p < n; ++p) seatings.push_back({n, p});
  }
  ProgramTerms terms = apply_manifest(manifest, options.terms);
  terms.dir = dir;
  const std::string command = "cmd:" + join_shell_words(manifest.run);
  const int matches = std::max<int>(options.matches, static_cast<int>(seatings.size()));
  const auto began = std::chrono::steady_clock::now();
  for (int m = 0; m < matches && !seatings.empty(); ++m) {
    if (std::chrono::steady_clock::now() - began > options.time) {
      failed("answers",
             fmt::format("the check took over {} s, its time cap, after {} of {} matches: the "
                         "bot answers too slowly to be checked",
                         std::chrono::duration_cast<std::chrono::seconds>(options.time).count(), m,
                         matches),
             "");
      break;
    }
    const Place at = seatings[static_cast<std::size_t>(m) % seatings.size()];
    PlaySpec spec;
    spec.seed = 1000 + static_cast<std::uint64_t>(m);
    for (std::size_t s = 0, house = static_cast<std::size_t>(m); s < at.seats; ++s) {
      if (s == at.position) {
        spec.roster.push_back({kCandidate, command, terms});
      } else {
        const std::string& bot = game->house_bots[house++ % game->house_bots.size()];
        spec.roster.push_back({fmt::format("house{}", s), bot});
      }
    }
    spec.hosting.program = terms;
    spec.hosting.program_key = std::string(16, 'k');  // the same program seeds every run
    spec.options.per_call = options.per_call;
    ProgramRecords programs;
    spec.hosting.programs = &programs;
    std::ostringstream log_text;
    GameLog log(&log_text);
    spec.options.log = &log;
    const std::string where =
        fmt::format("match {} ({} seats, seat {})", m + 1, at.seats, at.position);
    // The check's time cap holds inside a match too: past it, the bot is stopped.
    std::mutex mu;
    std::condition_variable over;
    bool done = false;
    bool cut = false;
    std::thread watchdog([&] {
      std::unique_lock lock(mu);
      if (!over.wait_until(lock, began + options.time, [&] { return done; })) {
        cut = true;
        programs.stop_all();
      }
    });
    auto outcome = play_match(*game, spec);
    {
      std::lock_guard lock(mu);
      done = true;
    }
    over.notify_all();
    watchdog.join();
    if (cut) {
      failed("answers",
             fmt::format("the check took over {} s, its time cap, in match {} of {}: the bot "
                         "answers too slowly to be checked",
                         std::chrono::duration_cast<std::chrono::seconds>(options.time).count(),
                         m + 1, matches),
             "");
      break;
    }
    const auto collected = programs.collect();
    ++report.matches;
    if (!outcome) {
      failed("starts", fmt::format("{}: {}", where, outcome.error().message), "");
      break;
    }
    const Seat seat = static_cast<Seat>(at.position);
    bool ejected = false;
    for (const Ejection& e : outcome->result.ejections) {
      if (e.seat != seat) continue;
      ejected = true;
      failed(check_of(e),
             fmt::format("{}: ejected during {} ({}: {})", where, e.call, to_string(e.why),
                         printable_line(e.detail)),
             transcript_of(log_text.str(), seat));
    }
    if (!ejected)
      for (const auto& p : collected)
        if (p.seat == kCandidate && !p.exited)
          failed("exits",
                 fmt::format(
                     "{}: still running {} ms after its match ended and its input "
                     "closed (a bot exits when its stdin ends)",
                     where,
                     std::chrono::duration_cast<std::chrono::milliseconds>(wire::kLastMessageGrace)
                         .count()),
                 "");
    if (options.say)
      options.say(fmt::format("{}: {}", where, ejected ? "ejected" : "played to the end"));
    if (ejected && !report.checks.front().ok) {
      // A bot that does not start says nothing of the other checks.
      for (auto& c : report.checks)
        if (c.ok) c.reached = false;
      break;
    }
  }
  return report;
}

std::string CheckReport::text() const {
  std::string out;
  for (const auto& c : checks)
    out += fmt::format("{} {:<8}{}\n",
                       !c.ok       ? "FAIL"
                       : c.reached ? "ok  "
                                   : "--  ",
                       c.name,
                       !c.ok       ? " " + printable_line(c.detail)
                       : c.reached ? ""
                                   : " not tried");
  if (!transcript.empty())
    out += "the wire, up to the first failure (-> what arbiter sent, <- the reply):\n" + transcript;
  out += fmt::format("{} ({} matches)\n", ok() ? "every check passed" : "the bot fails the check",
                     matches);
  return out;
}

Gate check_gate(CheckOptions options, std::function<void(const CheckReport&)> report) {
  return [options = std::move(options), report = std::move(report)](
             const tournament::BotVersion& version,
             const std::filesystem::path& dir) -> Expected<void> {
    auto manifest = decode_manifest(version.manifest);
    if (!manifest) return fail(manifest.error().message);
    const CheckReport checked = check_bot(*manifest, dir, options);
    if (report) report(checked);
    if (!checked.ok()) return fail(checked.first_failure());
    return {};
  };
}

}  // namespace arbiter::league
