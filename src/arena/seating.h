// Seating a roster, the same way for every game's registry entry: the seats' names, and the
// seats played from outside ("cmd:PROGRAM" child processes and "tcp" clients) opened as channels.
#pragma once

#include <filesystem>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arena/registry.h"
#include "core/channel.h"
#include "remote/child_process.h"
#include "remote/tcp.h"

namespace arbiter {

// The roster's names, by seat: each by core/seat_name.h's rule, all distinct.
Expected<std::vector<std::string>> seat_names(const PlaySpec& spec);

// A "cmd:" or "tcp" seat once opened: its channel (and process), or why it could not start.
struct OpenedSeat {
  std::unique_ptr<Channel> channel;
  std::shared_ptr<ChildProcess> process;
  std::string failure;  // empty when it started
};

bool is_remote(const Seating& seat);

// Whether the organizer entered `seat` in a way that can work, checked before anything starts:
// its name by the one rule (core/seat_name.h); a house bot the game knows; a cmd: program that
// exists and is executable (looked up as it will be: behind the walls, in kSandboxPath); "tcp"
// only where `tcp_allowed`. Errors read "player NAME: ...". `terms`: how a cmd: program runs
// (terms_of), its directory (ProgramTerms::dir) where its relative paths point; null: unwalled,
// here.
Expected<void> check_seating(const GameEntry& game, const Seating& seat, bool tcp_allowed = true,
                             const ProgramTerms* terms = nullptr);

// The terms a "cmd:" seat's program runs under: its own, else the hosting's.
const ProgramTerms& terms_of(const Seating& seat, const Hosting& hosting);

// A "cmd:" seat's terms (its own, else the hosting's) are possible here: check_terms, and the
// sandbox works on this machine unless they turn it off. Other seats pass.
Expected<void> check_program_terms(const Seating& seat, const Hosting& hosting);

// The referee's files that no "cmd:" seat may see (SandboxSpec::private_paths): the hosting's
// private paths, and where stderr is kept: hosting.stderr_dir and the own stderr directory of
// each of `seats` (a program reading them would read its opponents' stderr as they write it,
// and notes of its own from earlier matches).
std::vector<PrivateFile> referee_files(const Hosting& hosting, const std::vector<Seating>& seats);

// A "cmd:" seat can be started as the hosting would start it: what ChildProcess::check
// refuses, such as walls that would show the program one of referee_files(hosting, seats).
// Other seats pass. Errors read "player NAME: ...".
Expected<void> check_program_start(const Seating& seat, const std::vector<Seating>& seats,
                                   const Hosting& hosting);

// A secret token for every "tcp" seat of `roster` (remote/tcp.h's make_token), for
// Hosting::tokens: the organizer hands each player its own.
std::map<std::string, std::string> make_seat_tokens(const std::vector<Seating>& roster);
std::string token_of(const Hosting& hosting, const std::string& seat);  // empty: none

// Everything about a match the organizer has to get right, before anything starts: every seat
// (check_seating, check_program_terms, check_program_start), distinct names, and the hosting (stderr_dir an existing writable directory).
// The game's config is checked by the game's play, also before anything starts.
Expected<void> check_play(const GameEntry& game, const PlaySpec& spec);

// check_play, then the game's play: the one way to play a match.
Expected<PlayOutcome> play_match(const GameEntry& game, const PlaySpec& spec);

// Opens the remote seats of a roster: "cmd:" seats spawn their program; "tcp" seats are claimed
// by clients in any order, each by sending its seat's token (Hosting::tokens) as a JSON string
// first, within Hosting::accept_timeout for them all. Connections sign up concurrently
// (remote/tcp.h's SignUpDesk): each has 2 s from connecting to send its token and is judged as
// soon as it has; at most Hosting::max_pending wait at once (sign_up_rules); the match starts as
// soon as every tcp seat is claimed. A connection that sends anything else, a wrong token or a
// taken seat's token, is too slow, or is dropped to make room gets ["refused", [REASON]] and is
// closed. Other seats stay empty. An Error only when tcp seats cannot be listened for.
SignUpDesk::Rules sign_up_rules(const Hosting& hosting);
Expected<std::vector<std::optional<OpenedSeat>>> open_remote_seats(const PlaySpec& spec,
                                                                   ChannelLimits limits = {});

}  // namespace arbiter
