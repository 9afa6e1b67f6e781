// The worker pool, tournament creation and Swiss advancement.
#include "tournament/worker.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <condition_variable>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <semaphore>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "arena/registry.h"
#include "arena/seating.h"
#include "core/calibration.h"
#include "core/rng.h"
#include "referee/game_log.h"
#include "remote/host_load.h"
#include "tournament/latency.h"
#include "tournament/live_feed.h"
#include "tournament/schedule.h"
#include "tournament/standings.h"

namespace arbiter::tournament {

Expected<std::int64_t> create_tournament(Store& store, const TournamentSpec& spec) {
  if (auto ok = validate_spec(spec); !ok) return std::unexpected(ok.error());
  return store.create_tournament(spec.name, spec.game, encode_spec(spec), planned_matches(spec),
                                 initial_jobs(spec));
}

Expected<TournamentSpec> load_spec(Store& store, std::int64_t tournament) {
  auto record = store.find_tournament(tournament);
  if (!record) return std::unexpected(record.error());
  if (!record->has_value()) return fail(fmt::format("no tournament {} in the store", tournament));
  auto spec = decode_spec((*record)->spec);
  if (!spec) return fail(fmt::format("tournament {}: {}", tournament, spec.error().message));
  return spec;
}

bool has_tcp_entrants(const TournamentSpec& spec) {
  return std::any_of(spec.players.begin(), spec.players.end(),
                     [](const Entrant& e) { return e.bot == "tcp"; });
}

namespace {

// Whether the job seats a tcp entrant.
bool seats_tcp(const TournamentSpec& spec, const Job& job) {
  for (std::size_t e : seated(job.spec))
    if (e < spec.players.size() && spec.players[e].bot == "tcp") return true;
  return false;
}

// Every entrant as a seat.
std::vector<Seating> entrant_seats(const TournamentSpec& spec) {
  std::vector<Seating> seats;
  for (const Entrant& entrant : spec.players)
    seats.push_back({entrant.name, entrant.bot, entrant.program, entrant.artifact});
  return seats;
}

}  // namespace

Expected<void> check_entrants_start(const TournamentSpec& spec,
                                    const std::vector<PrivateFile>& private_paths) {
  Hosting hosting;
  hosting.program = spec.program;
  hosting.private_paths = private_paths;
  const std::vector<Seating> everyone = entrant_seats(spec);
  for (const Seating& seat : everyone)
    if (auto ok = check_program_start(seat, everyone, hosting); !ok) return ok;
  return {};
}

JobResult play_job(const TournamentSpec& spec, const Job& job,
                   const std::filesystem::path& stderr_dir,
                   const std::vector<MatchObserver*>& observers, const RemoteDesk* remote,
                   const std::vector<PrivateFile>& private_paths, BotShelf* shelf,
                   const std::string& cpus) {
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  auto error = [&](std::string message) {
    return JobResult{Json{{"error", std::move(message)}}, "", elapsed()};
  };
  const GameEntry* game = find_game(spec.game);
  if (game == nullptr) return error(fmt::format("unknown game \"{}\"", spec.game));
  PlaySpec play;
  for (std::size_t e : seated(job.spec)) {
    if (e >= spec.players.size()) return error("the job seats an entrant the tournament lacks");
    const Entrant& entrant = spec.players[e];
    play.roster.push_back({entrant.name, entrant.bot, entrant.program, entrant.artifact});
  }
  if (play.roster.empty()) return error("the job seats no one");
  if (!job.spec.contains("seed") || !job.spec["seed"].is_number_unsigned())
    return error("the job has no seed");
  play.seed = job.spec["seed"].get<std::uint64_t>();
  play.config = spec.config;
  // Limits in reference seconds hold this machine's bots to the reference's work.
  const double factor = spec.per_call_ref ? this_machine_factor() : 1.0;
  const auto scaled = [&](std::int64_t ms) {
    return std::chrono::milliseconds(
        std::max<std::int64_t>(1, std::llround(static_cast<double>(ms) * factor)));
  };
  if (spec.per_call_ref) play.options.speed_factor = factor;
  play.options.per_call = scaled(spec.per_call_ms);
  play.options.limit_by = spec.limit_by;
  play.options.backstop = spec.backstop;
  if (spec.load_check) play.options.host_load = ProcHostLoad::instance();
  play.options.time_control = spec.clock;
  // Entrants with limits of their own.
  for (std::size_t e : seated(job.spec)) {
    const Entrant& entrant = spec.players[e];
    play.options.seat_per_call.push_back(
        entrant.per_call_ms ? std::optional<Duration>(scaled(*entrant.per_call_ms)) : std::nullopt);
    play.options.seat_time_control.push_back(entrant.clock);
  }
  play.hosting.stderr_dir = stderr_dir;
  // The other entrants' stderr directories too (the seated ones' are kept by the arena).
  play.hosting.private_paths = referee_files(
      Hosting{.program = spec.program, .private_paths = private_paths}, entrant_seats(spec));
  play.hosting.program = spec.program;
  play.hosting.program_key = spec.program_key;
  play.hosting.shelf = shelf;
  play.hosting.cpus = cpus;
  play.hosting.stderr_prefix = fmt::format("t{}-m{}-", job.tournament, job.index);
  if (std::any_of(play.roster.begin(), play.roster.end(),
                  [](const Seating& seat) { return seat.bot == "tcp"; })) {
    if (remote == nullptr)
      return error("this match seats a tcp entrant, and this worker has no address for tcp "
                   "clients (tournament run or resume --listen HOST:PORT)");
    play.hosting.listen_host = remote->host;
    play.hosting.listen_port = remote->port;
    play.hosting.accept_timeout = remote->accept_timeout;
    for (const Seating& seat : play.roster)
      if (auto it = remote->tokens.find(seat.name); it != remote->tokens.end())
        play.hosting.tokens[seat.name] = it->second;
  }
  ProgramRecords programs;
  play.hosting.programs = &programs;
  std::ostringstream log_text;
  GameLog log(&log_text);
  for (MatchObserver* o : observers)
    if (o != nullptr) log.watch(*o);
  play.options.log = &log;
  try {
    auto outcome = play_match(*game, play);
    if (!outcome) return error(outcome.error().message);
    Json result = encode_result(outcome->result);
    result.erase("type");
    if (!outcome->details.is_null()) result["details"] = outcome->details;
    std::string text = log_text.str();
    result["latency"] = seat_latency(text, play.roster.size());
    if (spec.per_call_ref) result["speed_factor"] = factor;
    JobResult done{std::move(result), std::move(text), elapsed(), Json()};
    for (const ProgramStderr& p : programs.collect()) {
      if (done.stderr_tails.is_null()) done.stderr_tails = Json::array();
      done.stderr_tails.push_back({{"seat", p.seat}, {"bytes", p.bytes}, {"tail", p.tail}});
      if (p.bytes > 0) done.result["stderr_bytes"][p.seat] = p.bytes;
      if (!p.log_error.empty()) done.result["stderr_log_errors"].push_back(p.log_error);
    }
    return done;
  } catch (const std::exception& e) {
    return error(std::string("the match failed: ") + e.what());
  }
}

Expected<bool> finished(Store& store, std::int64_t tournament) {
  auto p = store.progress(tournament);
  if (!p) return std::unexpected(p.error());
  return p->done >= p->planned || p->concluded.has_value();
}

Expected<std::optional<SprtState>> check_sprt(Store& store, std::int64_t tournament,
                                              const TournamentSpec& spec, SprtWalk* walk) {
  if (!spec.sprt || spec.players.size() != 2 || spec.seats != 2) return std::nullopt;
  std::optional<SprtWalk> fresh;
  if (walk == nullptr) walk = &fresh.emplace(spec);
  // Only the rows the walk has not passed yet: a few per call, however long the run.
  auto results = store.results(tournament, walk->next_index());
  if (!results) return std::unexpected(results.error());
  walk->advance(*results);
  const SprtState& state = walk->state();
  if (state.verdict != SprtVerdict::undecided) {
    auto ok = store.conclude(
        tournament, fmt::format("SPRT: {} after {} {}, LLR {:.2f}", sprt_verdict_name(state.verdict),
                                state.counted, spec.sprt->pentanomial ? "pairs" : "games",
                                state.llr));
    if (!ok) return std::unexpected(ok.error());
  }
  return state;
}

Expected<void> advance(Store& store, std::int64_t tournament, const TournamentSpec& spec) {
  if (spec.schedule != Schedule::swiss) return {};
  auto p = store.progress(tournament);
  if (!p) return std::unexpected(p.error());
  const std::int64_t per_round = swiss_round_size(spec);
  if (p->enqueued >= p->planned || p->done < p->enqueued || per_round == 0) return {};
  auto results = store.results(tournament);
  if (!results) return std::unexpected(results.error());
  // Pairings drawn from a row that cannot be believed would carry its damage forward.
  for (const StoredResult& r : *results)
    if (auto why = row_damage(spec, r); !why.empty())
      return fail(fmt::format("damaged: tournament {} match {}: {}; the next Swiss round is not "
                              "added (see arbiter tournament verify {})",
                              tournament, r.index, why, tournament));
  const std::int64_t round = p->enqueued / per_round;
  auto added = store.add_jobs(tournament, swiss_round(spec, round, *results));
  if (!added) return std::unexpected(added.error());
  return {};
}

std::string default_worker_id() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) std::snprintf(host, sizeof host, "unknown");
  const auto now = std::chrono::system_clock::now().time_since_epoch().count();
  const auto nonce = Rng::derive(static_cast<std::uint64_t>(now), "worker",
                                 static_cast<std::uint64_t>(getpid()));
  return fmt::format("{}:{}:{:06x}", host, getpid(), nonce & 0xffffff);
}

namespace {

// A zombie is dead too: a killed coordinator whose parent has not reaped it (no init in a
// container, a shell that went away) still answers kill(pid, 0).
bool process_alive(pid_t pid) {
  if (kill(pid, 0) != 0 && errno == ESRCH) return false;
  std::ifstream stat(fmt::format("/proc/{}/stat", pid));
  std::string line;
  if (!std::getline(stat, line)) return true;  // no /proc: trust kill()
  const auto close = line.rfind(')');
  return close == std::string::npos || close + 2 >= line.size() || line[close + 2] != 'Z';
}

}  // namespace

Expected<std::int64_t> release_dead_local_workers(Store& store, std::int64_t tournament) {
  auto leases = store.leases(tournament);
  if (!leases) return std::unexpected(leases.error());
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) return 0;
  std::set<std::string> dead;
  for (const Lease& l : *leases) {
    const auto first = l.worker.find(':');
    const auto second = l.worker.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    if (l.worker.substr(0, first) != host) continue;
    long pid = 0;
    try {
      pid = std::stol(l.worker.substr(first + 1, second - first - 1));
    } catch (const std::exception&) {
      continue;
    }
    if (pid > 0 && !process_alive(static_cast<pid_t>(pid))) dead.insert(l.worker);
  }
  std::int64_t released = 0;
  for (const auto& worker : dead) {
    auto n = store.release(worker);
    if (!n) return std::unexpected(n.error());
    released += *n;
  }
  return released;
}

namespace {
std::atomic<std::int64_t> g_abandoned{0};
}  // namespace

std::int64_t abandoned_matches() {
  return g_abandoned.load();
}

std::chrono::milliseconds match_limit(const TournamentSpec& spec) {
  using namespace std::chrono;
  // The most any one seat may take: the slowest entrant's limits.
  const auto seat_bound = [&](std::int64_t per_call_ms, const std::optional<TimeControl>& clock) {
    milliseconds bound = milliseconds(per_call_ms) * 200;
    if (clock) bound += duration_cast<milliseconds>(clock->bank + clock->first_grace);
    return bound;
  };
  milliseconds per_seat = seat_bound(spec.per_call_ms, spec.clock);
  for (const Entrant& e : spec.players)
    per_seat = std::max(per_seat, seat_bound(e.per_call_ms.value_or(spec.per_call_ms),
                                             e.clock ? e.clock : spec.clock));
  if (spec.per_call_ref)
    per_seat = duration_cast<milliseconds>(per_seat * std::max(1.0, this_machine_factor()));
  // Judged on CPU time, a call may take up to the backstop on the wall clock.
  if (spec.limit_by == LimitBy::cpu)
    per_seat = duration_cast<milliseconds>(per_seat * spec.backstop);
  const std::int64_t seats = spec.ladder ? spec.ladder->seats_max : spec.seats;
  return std::max<milliseconds>(minutes(5), per_seat * std::max<std::int64_t>(seats, 1));
}

namespace {

// Retries a store call a few times with growing pauses: a busy SQLite file or a PostgreSQL
// restart should not end a long tournament.
template <class F>
auto with_retries(F&& call) -> decltype(call()) {
  auto result = call();
  for (int attempt = 1; !result && attempt < 6; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100 << attempt));
    result = call();
  }
  return result;
}

class Pool {
 public:
  Pool(Store& store, const WorkerOptions& options) : store_(store), options_(options) {}

  Expected<WorkerReport> run() {
    const int threads = options_.threads > 0
                            ? options_.threads
                            : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    std::thread heartbeat([this] { renew_leases(); });
    if (options_.live_period.count() > 0) feed_ = std::make_unique<LiveFeed>(store_);
    std::thread feeder([this] { feed_live_lines(); });
    std::vector<std::thread> pool;
    for (int i = 0; i < threads; ++i) pool.emplace_back([this] { work(); });
    for (auto& t : pool) t.join();
    {
      std::lock_guard lock(mu_);
      done_ = true;
    }
    wake_.notify_all();
    heartbeat.join();
    feeder.join();
    if (feed_) report_.live_write_failures = feed_->failures();
    if (options_.pin) report_.pinned_at_once = options_.pin->peak_holders();
    auto released = store_.release(options_.id);
    if (!failure_.empty()) return fail(failure_);
    if (!released) return std::unexpected(released.error());
    return report_;
  }

 private:
  bool stopping() {
    std::lock_guard lock(mu_);
    return done_ || !failure_.empty() || (options_.stop != nullptr && options_.stop->load());
  }

  void give_up(const std::string& message) {
    std::lock_guard lock(mu_);
    if (failure_.empty()) failure_ = message;
    done_ = true;
    wake_.notify_all();
  }

  Expected<TournamentSpec> spec_of(std::int64_t tournament) {
    {
      std::lock_guard lock(mu_);
      if (auto it = specs_.find(tournament); it != specs_.end()) return it->second;
    }
    auto spec = with_retries([&] { return load_spec(store_, tournament); });
    if (!spec) return spec;
    // Checked again here, where it is played: a program may exist where it was created and not
    // on this machine; the worker stops rather than storing every match as unplayable.
    if (auto ok = validate_spec(*spec); !ok)
      return fail(fmt::format("tournament {} cannot be played by this worker: {}", tournament,
                              ok.error().message));
    if (has_tcp_entrants(*spec) && !options_.remote)
      return fail(fmt::format("tournament {} has tcp entrants, whose clients connect to the one "
                              "process that plays it: arbiter tournament resume {} --listen "
                              "HOST:PORT",
                              tournament, tournament));
    std::lock_guard lock(mu_);
    return specs_.emplace(tournament, *spec).first->second;
  }

  // The spec `job` is played from. A ladder's entrants grow: a job seating one this process has
  // not seen yet loads the spec again.
  Expected<TournamentSpec> spec_for(const Job& job) {
    auto spec = spec_of(job.tournament);
    if (!spec || spec->schedule != Schedule::ladder) return spec;
    const auto seats = seated(job.spec);
    if (std::all_of(seats.begin(), seats.end(),
                    [&](std::size_t e) { return e < spec->players.size(); }))
      return spec;
    {
      std::lock_guard lock(mu_);
      specs_.erase(job.tournament);
    }
    return spec_of(job.tournament);
  }

  // True when there is nothing left to wait for. Also adds any Swiss round that is due: the
  // worker that completed the previous round may have died before adding it.
  Expected<bool> all_finished() {
    std::vector<std::int64_t> ids{options_.only};
    if (options_.only == 0) {
      auto all = store_.tournaments();
      if (!all) return std::unexpected(all.error());
      ids.clear();
      for (const auto& t : *all) ids.push_back(t.id);
    }
    bool all_done = true;
    for (std::int64_t id : ids) {
      auto f = finished(store_, id);
      if (!f) return f;
      if (*f) continue;
      all_done = false;
      if (store_.worker_only()) continue;  // rounds are the organizer's to add
      auto spec = spec_of(id);
      if (!spec) return std::unexpected(spec.error());
      if (auto advanced = advance(store_, id, *spec); !advanced)
        return std::unexpected(advanced.error());
    }
    return options_.until_finished && all_done;
  }

  void work() {
    while (!stopping()) {
      const auto asked = std::chrono::steady_clock::now();
      auto jobs = with_retries([&] {
        return store_.claim(options_.id, std::max(1, options_.batch), options_.lease,
                            options_.only);
      });
      if (!jobs) return give_up(jobs.error().message);
      if (!jobs->empty()) {
        const std::chrono::duration<double, std::milli> took =
            std::chrono::steady_clock::now() - asked;
        std::lock_guard lock(mu_);
        if (report_.claim_ms.size() < 100'000) report_.claim_ms.push_back(took.count());
      }
      if (jobs->empty()) {
        auto over = all_finished();
        if (!over) return give_up(over.error().message);
        if (*over) return;
        // Wait for new jobs (Swiss rounds, other creators) or for leases of dead workers to run out.
        // Short waits: the last matches of this process's other threads end the tournament.
        store_.wait_for_work(std::min<std::chrono::milliseconds>(options_.lease / 2,
                                                                 std::chrono::milliseconds(100)));
        continue;
      }
      for (const Job& job : *jobs) {
        if (stopping()) return;  // the unplayed rest is released by run()
        auto spec = spec_for(job);
        if (!spec) return give_up(spec.error().message);
        if (concluded(job.tournament)) continue;  // claimed before the verdict: not played
        auto played = play_counted(*spec, job);
        if (!played) return;  // stopped: the unplayed rest, this one too, is released by run()
        const JobResult& result = *played;
        auto first = with_retries([&] { return store_.complete(job.id, options_.id, result); });
        if (!first) return give_up(first.error().message);
        {
          std::lock_guard lock(mu_);
          ++report_.played;
          ++(*first ? report_.stored : report_.duplicates);
          if (result.result.contains("error")) ++report_.errors;
          if (const Json& errors = field_or_null(result.result, "stderr_log_errors");
              errors.is_array())
            for (const Json& e : errors)
              if (e.is_string() && report_.write_errors.size() < 10)
                report_.write_errors.push_back(e.get<std::string>());
        }
        if (options_.on_result) options_.on_result(job, result, *first);
        if (store_.worker_only()) continue;  // verdicts and rounds are the organizer's
        if (spec->sprt) {
          // One walk per tournament, shared by this process's threads, taken in turns.
          std::lock_guard turn(sprt_mu_);
          auto& walk = walks_.try_emplace(job.tournament, *spec).first->second;
          auto sprt =
              with_retries([&] { return check_sprt(store_, job.tournament, *spec, &walk); });
          if (!sprt) return give_up(sprt.error().message);
          if (*sprt && (*sprt)->verdict != SprtVerdict::undecided) {
            std::lock_guard lock(mu_);
            concluded_.insert(job.tournament);
          }
        }
        if (auto advanced = with_retries([&] { return advance(store_, job.tournament, *spec); });
            !advanced)
          return give_up(advanced.error().message);
      }
    }
  }

  // Plays `job`; a match in which a call timed out while the host was overloaded is voided and
  // played again once the host is calm, at most kLoadReplays times (the last one counts). The
  // result lists the voided plays ("voided": their ejections under load).
  std::optional<JobResult> play_counted(const TournamentSpec& spec, const Job& job) {
    Json voided = Json::array();
    for (int attempt = 0;; ++attempt) {
      auto played = play_bounded(spec, job);
      if (!played) return played;
      Json under_load = Json::array();
      if (const Json& ejections = field_or_null(played->result, "ejections"); ejections.is_array())
        for (const Json& e : ejections)
          if (string_or(e, "why") == to_string(Why::timeout_under_load)) under_load.push_back(e);
      if (under_load.empty() || attempt == kLoadReplays) {
        if (!voided.empty()) played->result["voided"] = std::move(voided);
        return played;
      }
      voided.push_back({{"ejections", std::move(under_load)}, {"seconds", played->seconds}});
      {
        std::lock_guard lock(mu_);
        ++report_.voided;
      }
      if (!wait_for_calm()) return std::nullopt;
    }
  }

  // Waits until the host has not been overloaded for a second (at most 30 s). False when
  // stopped meanwhile.
  bool wait_for_calm() {
    const HostLoad* load = ProcHostLoad::instance();
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < until) {
      if (stopping()) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
      const auto reading = load ? load->over_last(std::chrono::seconds(1)) : std::nullopt;
      if (!reading || !reading->overloaded()) return true;
    }
    return !stopping();
  }

  // Plays `job` on a thread of its own and waits for it until the match limit, or until
  // stop_grace after a stop. Nothing when stopped first; at the limit, the error result.
  std::optional<JobResult> play_bounded(const TournamentSpec& spec, const Job& job) {
    struct Match {
      std::mutex mu;
      std::condition_variable done;
      std::optional<JobResult> result;
    };
    auto match = std::make_shared<Match>();
    auto play = options_.play;
    auto watch = options_.watch;
    // A match with tcp seats waits here for its turn on the port, before its limit starts; it
    // gives the turn back when it ends, even if it is abandoned first.
    std::shared_ptr<std::binary_semaphore> port_turn;
    if (options_.remote && seats_tcp(spec, job)) {
      port_turn = options_.remote->port_turns;
      while (!port_turn->try_acquire_for(std::chrono::milliseconds(50)))
        if (stopping()) return std::nullopt;
    }
    // A pinned match waits here for its CPUs, before its limit starts; its thread gives them
    // back when it ends, even if it is abandoned first (its programs are dead by then).
    std::optional<std::vector<int>> pinned;
    if (options_.pin && !play) {
      const GameEntry* game = find_game(spec.game);
      const std::size_t need =
          game == nullptr ? 0 : cpus_needed(*game, spec, seated(job.spec), options_.pin->size());
      if (need > 0) {
        pinned = options_.pin->take(need, [this] { return stopping(); });
        if (!pinned) {
          if (port_turn) port_turn->release();
          return std::nullopt;
        }
      }
    }
    // Made here rather than on the match's thread: a match abandoned at its limit may outlive
    // the feed, and its observer then feeds nothing.
    std::shared_ptr<MatchObserver> fed = feed_ ? feed_->watch(spec.game, job) : nullptr;
    std::thread thread([match, play, watch, fed = std::move(fed), spec, job,
                        dir = options_.stderr_dir, remote = options_.remote, port_turn,
                        hidden = options_.private_paths, shelf = options_.shelf, pin = options_.pin,
                        pinned]() mutable {
      JobResult result;
      if (play) {
        result = play(spec, job, dir);
      } else {
        std::unique_ptr<MatchObserver> observer = watch ? watch(spec, job) : nullptr;
        result = play_job(spec, job, dir, {observer.get(), fed.get()}, remote ? &*remote : nullptr,
                          hidden, shelf, pinned ? format_cpu_list(*pinned) : std::string());
      }
      if (port_turn) port_turn->release();
      if (pinned) pin->give_back(*pinned);
      // The feed's lines of this match are written or dropped before its result is stored.
      fed.reset();
      std::lock_guard lock(match->mu);
      match->result = std::move(result);
      match->done.notify_all();
    });
    using Clock = std::chrono::steady_clock;
    auto limit = options_.match_limit.count() > 0 ? options_.match_limit : match_limit(spec);
    if (port_turn) limit += options_.remote->accept_timeout;  // the wait for its clients
    const auto started = Clock::now();
    std::optional<Clock::time_point> stop_by;
    std::unique_lock lock(match->mu);
    for (;;) {
      // The stop flag is set from a signal handler, which cannot notify: look every 50 ms.
      if (match->done.wait_for(lock, std::chrono::milliseconds(50),
                               [&] { return match->result.has_value(); })) {
        lock.unlock();
        thread.join();
        return std::move(match->result);
      }
      const auto now = Clock::now();
      if (!stop_by && stopping()) stop_by = now + options_.stop_grace;
      if (stop_by && now >= *stop_by) {
        abandon(thread, &WorkerReport::cut_short);
        return std::nullopt;
      }
      if (now - started >= limit) {
        abandon(thread, &WorkerReport::over_limit);
        JobResult r;
        r.result = {{"error", fmt::format("match-time-limit: the match was still running after "
                                          "{} s and was abandoned",
                                          std::chrono::duration_cast<std::chrono::seconds>(limit)
                                              .count())}};
        r.seconds = std::chrono::duration<double>(now - started).count();
        return r;
      }
    }
  }

  void abandon(std::thread& thread, std::int64_t WorkerReport::*count) {
    thread.detach();
    g_abandoned.fetch_add(1);
    std::lock_guard lock(mu_);
    ++(report_.*count);
    ++report_.stray_threads;
  }

  void feed_live_lines() {
    if (!feed_) return;
    std::unique_lock lock(mu_);
    while (!done_) {
      if (wake_.wait_for(lock, options_.live_period, [&] { return done_; })) return;
      lock.unlock();
      (void)feed_->flush();  // a failure is counted by the feed; its lines go at the next beat
      lock.lock();
    }
  }

  void renew_leases() {
    std::unique_lock lock(mu_);
    while (!done_) {
      if (wake_.wait_for(lock, options_.lease / 3, [&] { return done_; })) return;
      lock.unlock();
      (void)store_.renew(options_.id, options_.lease);  // a miss is retried at the next beat
      lock.lock();
    }
  }

  Store& store_;
  const WorkerOptions& options_;
  std::mutex mu_;
  std::condition_variable wake_;
  bool done_ = false;
  std::string failure_;
  WorkerReport report_;
  std::map<std::int64_t, TournamentSpec> specs_;
  std::unique_ptr<LiveFeed> feed_;
  std::mutex sprt_mu_;
  std::map<std::int64_t, SprtWalk> walks_;  // the SPRT of each tournament with one, so far
  std::set<std::int64_t> concluded_;        // tournaments this process saw decided (mu_)

  bool concluded(std::int64_t tournament) {
    std::lock_guard lock(mu_);
    return concluded_.contains(tournament);
  }
};

}  // namespace

double quantile(std::vector<double> samples, double q) {
  if (samples.empty()) return 0;
  const auto rank = static_cast<std::size_t>(
      std::ceil(std::clamp(q, 0.0, 1.0) * static_cast<double>(samples.size())));
  const std::size_t at = rank == 0 ? 0 : rank - 1;
  std::nth_element(samples.begin(), samples.begin() + static_cast<std::ptrdiff_t>(at),
                   samples.end());
  return samples[at];
}

Expected<WorkerReport> run_worker(Store& store, const WorkerOptions& options) {
  Pool pool(store, options);
  return pool.run();
}

}  // namespace arbiter::tournament
