#include "games/registry_seating.h"

#include <fmt/format.h>

#include "core/file.h"
#include "core/seat_name.h"
#include "remote/tcp.h"

namespace arbiter {
namespace {

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

}  // namespace

void ProgramRecords::add(std::string seat, std::shared_ptr<ChildProcess> process) {
  std::lock_guard lock(mu_);
  programs_.emplace_back(std::move(seat), std::move(process));
}

std::vector<ProgramStderr> ProgramRecords::collect() {
  std::lock_guard lock(mu_);
  std::vector<ProgramStderr> out;
  for (const auto& [seat, process] : programs_) {
    process->kill();
    out.push_back(
        {seat, process->stderr_bytes(), process->stderr_tail(), process->stderr_log_error()});
  }
  return out;
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

Expected<void> check_seating(const GameEntry& game, const Seating& seat, bool tcp_allowed) {
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
  if (seat.bot.starts_with("cmd:")) {
    const auto argv = split_words(seat.bot.substr(4));
    if (argv.empty()) return refuse("cmd: needs a program, e.g. cmd:python3 bot.py");
    if (auto found = find_program(argv[0]); !found) return refuse(found.error().message);
    return {};
  }
  if (auto ok = game.check_bot(seat.bot); !ok) return refuse(ok.error().message);
  return {};
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
  for (const auto& seat : spec.roster)
    if (auto ok = check_seating(game, seat); !ok) return ok;
  if (!spec.hosting.stderr_dir.empty())
    if (auto ok = check_writable_dir(spec.hosting.stderr_dir); !ok)
      return fail("--stderr-dir " + ok.error().message);
  return {};
}

Expected<PlayOutcome> play_match(const GameEntry& game, const PlaySpec& spec) {
  if (auto ok = check_play(game, spec); !ok) return std::unexpected(ok.error());
  return game.play(spec);
}

Expected<std::vector<std::optional<OpenedSeat>>> open_remote_seats(const PlaySpec& spec,
                                                                   ChannelLimits limits) {
  std::vector<std::optional<OpenedSeat>> seats(spec.roster.size());
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
      child.sandbox = spec.hosting.sandbox;
      if (!spec.hosting.stderr_dir.empty())
        child.stderr_log =
            spec.hosting.stderr_dir / (spec.hosting.stderr_prefix + seat.name + ".stderr");
      OpenedSeat opened;
      auto process = ChildProcess::spawn(child);
      if (!process) {
        opened.failure = process.error().message;
      } else {
        opened.channel = (*process)->take_channel(Framing::lines, limits);
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
  for (std::size_t i : tcp_seats) {
    const Deadline deadline = Deadline::after(SteadyClock::instance(), spec.hosting.accept_timeout);
    std::unique_ptr<Channel> signed_up;
    while (!signed_up && !deadline.passed()) {
      auto accepted = (*listener)->accept(deadline, Framing::lines);
      if (!accepted) return fail(accepted.error().message);
      if (!*accepted) break;
      std::unique_ptr<Channel> channel = std::move(**accepted);
      const Deadline name_deadline = Deadline::after(
          SteadyClock::instance(), std::min<Duration>(kSignUpWait, deadline.remaining()));
      auto hello = channel->receive(name_deadline);
      if (hello && hello->is_string() && valid_seat_name(hello->get<std::string>()))
        signed_up = std::move(channel);
      else
        channel->close();
    }
    OpenedSeat opened;
    if (signed_up)
      opened.channel = std::move(signed_up);
    else
      opened.failure =
          fmt::format("no tcp client signed up within {} ms", spec.hosting.accept_timeout.count());
    seats[i] = std::move(opened);
  }
  return seats;
}

}  // namespace arbiter
