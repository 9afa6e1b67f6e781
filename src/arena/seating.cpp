#include "arena/seating.h"

#include "arena/bot_shelf.h"

#include <algorithm>
#include <csignal>
#include <thread>

#include <fmt/format.h>

#include "arena/bot_shelf.h"
#include "core/entropy.h"
#include "core/file.h"
#include "core/seat_name.h"
#include "core/seed_tree.h"
#include "core/shell_words.h"
#include "referee/game_log.h"

namespace arbiter {
namespace {

// How long a tcp connection has to send its token before it is dropped.
constexpr Duration kSignUpWait = std::chrono::seconds(2);

}  // namespace

void ProgramRecords::add(std::string seat, std::shared_ptr<ChildProcess> process) {
  std::lock_guard lock(mu_);
  programs_.emplace_back(std::move(seat), std::move(process));
}

std::vector<ProgramStderr> ProgramRecords::collect(Duration grace) {
  std::lock_guard lock(mu_);
  std::vector<ProgramStderr> out;
  const Deadline deadline = Deadline::after(SteadyClock::instance(), grace);
  for (const auto& [seat, process] : programs_) {
    while (!process->exited() && !deadline.passed())
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    process->kill();
    // Ended by itself: anything but the SIGKILL of ours (its reaper's status says which).
    const auto code = process->exit_code();
    const bool exited = code && *code != 128 + SIGKILL;
    out.push_back({seat, process->stderr_bytes(), process->stderr_tail(),
                   process->stderr_log_error(), exited});
  }
  return out;
}

void ProgramRecords::stop_all() {
  std::lock_guard lock(mu_);
  for (const auto& [seat, process] : programs_) process->stop();
}

Expected<std::vector<std::string>> seat_names(const PlaySpec& spec) {
  std::vector<std::string> names;
  for (const auto& seat : spec.roster) {
    if (!valid_seat_name(seat.name)) return fail(seat_name_error(seat.name));
    for (const auto& other : names)
      if (other == seat.name)
        return fail(fmt::format("player name \"{}\" is used twice", seat.name));
    names.push_back(seat.name);
  }
  return names;
}

bool is_remote(const Seating& seat) {
  return seat.bot == "tcp" || seat.bot.starts_with("cmd:");
}

Expected<void> check_seating(const GameEntry& game, const Seating& seat, bool tcp_allowed,
                             const ProgramTerms* terms) {
  const std::filesystem::path dir = terms != nullptr ? terms->dir : std::filesystem::path();
  if (!valid_seat_name(seat.name)) return fail(seat_name_error(seat.name));
  const auto refuse = [&](const std::string& why) {
    return fail(fmt::format("player {}: {}", seat.name, why));
  };
  if (seat.bot.empty()) return refuse("no bot given");
  if (seat.bot == "tcp") {
    if (!tcp_allowed)
      return refuse(
          "tcp seats cannot play here (no one would connect for every match); use "
          "cmd:PROGRAM");
    return {};
  }
  if (is_stored_bot(seat.bot)) {
    // Whether the version exists is the shelf's to say, when the match takes it.
    if (auto ref = parse_stored_bot(seat.bot); !ref) return refuse(ref.error().message);
    return {};
  }
  if (seat.bot.starts_with("cmd:")) {
    auto words = split_shell_words(seat.bot.substr(4));
    if (!words) return refuse(words.error().message + " (quote as a shell does: cmd:python3 'my bot.py')");
    const auto& argv = *words;
    if (argv.empty()) return refuse("cmd: needs a program, e.g. cmd:python3 bot.py");
    // Relative paths point into the program's directory, as ChildProcess::spawn reads them.
    const auto in_dir = [&](const std::string& path) {
      return dir.empty() || std::filesystem::path(path).is_absolute() ? path
                                                                      : (dir / path).string();
    };
    const std::string program = argv[0].find('/') == std::string::npos ? argv[0] : in_dir(argv[0]);
    const char* search = terms != nullptr && terms->sandbox ? kSandboxPath : nullptr;
    if (auto found = find_program(program, search); !found) return refuse(found.error().message);
    // An argument that is a path into a directory that does not exist is a typo (the program
    // would start and die at once); options and URLs are not paths.
    for (std::size_t i = 1; i < argv.size(); ++i) {
      const std::string& arg = argv[i];
      const char first = arg.empty() ? ' ' : arg[0];
      const bool path_like = std::isalnum(static_cast<unsigned char>(first)) != 0 ||
                             first == '/' || first == '.' || first == '_';
      if (!path_like || arg.find_first_of(":=@") != std::string::npos ||
          arg.find('/') == std::string::npos)
        continue;
      const std::filesystem::path parent = std::filesystem::path(arg).parent_path();
      std::error_code ec;
      if (!parent.empty() && !std::filesystem::is_directory(in_dir(parent.string()), ec))
        return refuse(fmt::format("argument \"{}\": no directory {}", arg, in_dir(parent.string())));
    }
    return {};
  }
  if (auto ok = game.check_bot(seat.bot); !ok) return refuse(ok.error().message);
  return {};
}

namespace {

// How a "cmd:" seat is started: its command, its terms, what it may not see, its stderr.
Expected<ChildSpec> child_spec(const Seating& seat, const std::vector<Seating>& seats,
                               const Hosting& hosting) {
  ChildSpec child;
  auto words = split_shell_words(seat.bot.substr(4));
  if (!words) return fail(fmt::format("player {}: {}", seat.name, words.error().message));
  child.argv = std::move(*words);
  if (child.argv.empty()) return fail(fmt::format("player {}: cmd: needs a program", seat.name));
  const ProgramTerms& terms = terms_of(seat, hosting);
  child.limits = terms.limits;
  child.limits.cpus = hosting.cpus;
  child.sandbox = terms.sandbox;
  if (child.sandbox) child.sandbox->private_paths = referee_files(hosting, seats);
  child.cwd = terms.dir;
  const auto& stderr_dir = terms.stderr_dir.empty() ? hosting.stderr_dir : terms.stderr_dir;
  if (!stderr_dir.empty())
    child.stderr_log = stderr_dir / (hosting.stderr_prefix + seat.name + ".stderr");
  return child;
}

}  // namespace

std::vector<PrivateFile> referee_files(const Hosting& hosting, const std::vector<Seating>& seats) {
  std::vector<PrivateFile> files = hosting.private_paths;
  if (!hosting.stderr_dir.empty()) files.push_back({hosting.stderr_dir, "the stderr directory"});
  for (const Seating& seat : seats)
    if (const auto& own = terms_of(seat, hosting).stderr_dir; !own.empty())
      files.push_back({own, fmt::format("{}'s stderr directory", seat.name)});
  return files;
}

Expected<void> check_program_start(const Seating& seat, const std::vector<Seating>& seats,
                                   const Hosting& hosting) {
  if (!seat.bot.starts_with("cmd:")) return {};
  auto child = child_spec(seat, seats, hosting);
  if (!child) return std::unexpected(child.error());
  if (auto ok = ChildProcess::check(*child); !ok)
    return fail(fmt::format("player {}: {}", seat.name, ok.error().message));
  return {};
}

Expected<void> check_program_terms(const Seating& seat, const Hosting& hosting) {
  if (!seat.bot.starts_with("cmd:")) return {};
  const ProgramTerms& terms = terms_of(seat, hosting);
  if (auto ok = check_terms(terms); !ok)
    return fail(fmt::format("player {}: {}", seat.name, ok.error().message));
  if (terms.sandbox)
    if (auto ok = sandbox_available(); !ok) return ok;
  return {};
}

const ProgramTerms& terms_of(const Seating& seat, const Hosting& hosting) {
  return seat.program ? *seat.program : hosting.program;
}

std::string token_of(const Hosting& hosting, const std::string& seat) {
  const auto it = hosting.tokens.find(seat);
  return it == hosting.tokens.end() ? std::string() : it->second;
}

std::map<std::string, std::string> make_seat_tokens(const std::vector<Seating>& roster) {
  std::map<std::string, std::string> tokens;
  for (const Seating& seat : roster)
    if (seat.bot == "tcp") tokens[seat.name] = make_token(seat.name);
  return tokens;
}

Expected<void> check_play(const GameEntry& game, const PlaySpec& spec) {
  const std::size_t n = spec.roster.size();
  if (n < game.min_seats || n > game.max_seats)
    return fail(fmt::format("{} is for {}, {} given (--player NAME:BOT once per seat)", game.name,
                            !game.seats_text.empty() ? game.seats_text
                            : game.min_seats == game.max_seats
                                ? fmt::format("{} players", game.min_seats)
                                : fmt::format("{} to {} players", game.min_seats, game.max_seats),
                            n));
  if (auto names = seat_names(spec); !names) return std::unexpected(names.error());
  for (const auto& seat : spec.roster) {
    if (auto ok = check_seating(game, seat, /*tcp_allowed=*/true, &terms_of(seat, spec.hosting));
        !ok)
      return ok;
    if (auto ok = check_program_terms(seat, spec.hosting); !ok) return ok;
    if (auto ok = check_program_start(seat, spec.roster, spec.hosting); !ok) return ok;
    if (seat.bot == "tcp" && token_of(spec.hosting, seat.name).size() < 16)
      return fail(fmt::format("player {}: a tcp seat needs its token (Hosting::tokens; see "
                              "make_seat_tokens)",
                              seat.name));
  }
  if (spec.options.time_control && !game.clocked)
    return fail(fmt::format("--clock: {} has no turns to clock (only q and battleship have); its "
                            "players are held to --per-call",
                            game.name));
  if (spec.options.limit_by == LimitBy::cpu && !game.clocked)
    return fail(
        fmt::format("--limit-by cpu: {} judges its players on the wall clock (only q and "
                    "battleship take turns to time on CPU)",
                    game.name));
  if (!spec.hosting.stderr_dir.empty())
    if (auto ok = check_writable_dir(spec.hosting.stderr_dir); !ok)
      return fail("--stderr-dir " + ok.error().message);
  return {};
}

Expected<PlayOutcome> play_match(const GameEntry& game, const PlaySpec& spec) {
  auto taken = take_stored_bots(spec);
  if (!taken) return std::unexpected(taken.error());
  if (auto ok = check_play(game, *taken); !ok) return std::unexpected(ok.error());
  return game.play(*taken);
}

SignUpDesk::Rules sign_up_rules(const Hosting& hosting) {
  const std::size_t cap = std::max<std::size_t>(hosting.max_pending, 1);
  return {.wait = kSignUpWait,
          .max_pending = cap,
          .max_pending_per_host = std::max(cap / 4, std::min<std::size_t>(cap, 4))};
}

Expected<std::vector<std::optional<OpenedSeat>>> open_remote_seats(const PlaySpec& spec,
                                                                   ChannelLimits limits) {
  std::vector<std::optional<OpenedSeat>> seats(spec.roster.size());
  // The log says under which terms every program ran (and loudly when unwalled).
  Json programs = Json::object();
  for (const Seating& seat : spec.roster)
    if (seat.bot.starts_with("cmd:"))
      programs[seat.name] = describe_terms(terms_of(seat, spec.hosting));
  if (spec.options.log != nullptr && !programs.empty())
    spec.options.log->set_hosting(Json{{"programs", programs}});
  std::vector<std::size_t> tcp_seats;
  const std::string program_key = spec.hosting.program_key.empty()
                                      ? unguessable_bytes(seeds::kProgramKeyBytes)
                                      : spec.hosting.program_key;
  for (std::size_t i = 0; i < spec.roster.size(); ++i) {
    const Seating& seat = spec.roster[i];
    if (seat.bot == "tcp") {
      tcp_seats.push_back(i);
    } else if (seat.bot.starts_with("cmd:")) {
      auto made = child_spec(seat, spec.roster, spec.hosting);
      if (!made) return std::unexpected(made.error());
      ChildSpec& child = *made;
      // Its own randomness from the match seed under the run's key, so that its matches replay
      // too and it learns nothing of the match seed.
      child.environment.push_back(fmt::format(
          "ARBITER_SEED={}", seeds::program(program_key, spec.seed, static_cast<Seat>(i))));
      OpenedSeat opened;
      auto process = ChildProcess::spawn(child);
      if (!process) {
        opened.failure = process.error().message;
      } else {
        ChannelLimits stdout_limits = limits;
        if (child.limits.output_bytes) stdout_limits.max_total = *child.limits.output_bytes;
        opened.channel = (*process)->take_channel(Framing::lines, stdout_limits);
        opened.process = std::move(*process);
        if (spec.hosting.programs != nullptr) spec.hosting.programs->add(seat.name, opened.process);
      }
      seats[i] = std::move(opened);
    }
  }
  if (tcp_seats.empty()) return seats;
  auto listener = TcpListener::listen(spec.hosting.listen_host, spec.hosting.listen_port);
  if (!listener) return fail(listener.error().message);
  if (spec.hosting.on_listen) spec.hosting.on_listen((*listener)->port(), tcp_seats.size());
  // Seats are claimed by token, in whatever order the clients come; a connection without a
  // token of an unclaimed seat is told why and closed, and takes nothing.
  const Deadline deadline = Deadline::after(SteadyClock::instance(), spec.hosting.accept_timeout);
  SignUpDesk desk(**listener, Framing::lines, sign_up_rules(spec.hosting), limits);
  std::size_t unclaimed = tcp_seats.size();
  while (unclaimed > 0) {
    auto arrival = desk.next(deadline);
    if (!arrival) return fail(arrival.error().message);
    if (!*arrival) break;
    std::unique_ptr<Channel> channel = std::move((*arrival)->channel);
    const ChannelResult<Json>& hello = (*arrival)->hello;
    const auto refuse = [&](const std::string& why) {
      (void)channel->send(Json::array({"refused", Json::array({why})}),
                          Deadline::after(SteadyClock::instance(), Duration::zero()));
      channel->close();
    };
    if (!hello || !hello->is_string()) {
      refuse(fmt::format("sign up by sending your seat's token (a JSON string) first{}",
                         hello ? "" : " (" + hello.error().detail + ")"));
      continue;
    }
    std::optional<std::size_t> seat;
    for (std::size_t i : tcp_seats)
      if (tokens_match(token_of(spec.hosting, spec.roster[i].name), hello->get<std::string>()))
        seat = i;
    if (!seat) {
      refuse("no tcp seat has this token");
    } else if (seats[*seat]) {
      refuse(fmt::format("seat {} is taken", spec.roster[*seat].name));
    } else {
      seats[*seat] = OpenedSeat{.channel = std::move(channel)};
      --unclaimed;
    }
  }
  for (std::size_t i : tcp_seats)
    if (!seats[i])
      seats[i] = OpenedSeat{.failure = fmt::format("no tcp client signed up with its token within "
                                                   "{} ms",
                                                   spec.hosting.accept_timeout.count())};
  return seats;
}

}  // namespace arbiter
