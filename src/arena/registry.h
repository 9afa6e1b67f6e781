// The registry: the one explicit list of games, each erased to plain functions so that the CLI
// (and later tournaments) stay ordinary, non-template code. No static-initializer registration:
// adding a game means adding one entry in registry.cpp.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/json.h"
#include "referee/match.h"
#include "referee/replay.h"
#include "remote/child_process.h"
#include "remote/program_terms.h"

namespace arbiter {

class BotShelf;  // arena/bot_shelf.h

struct Seating {
  std::string name;  // the seat's name in results (letters and digits)
  // Who plays it: a house bot in the game's bot syntax (see GameEntry::bots), "cmd:PROGRAM
  // [ARGS...]" (a child process speaking the wire protocol on stdin/stdout; arguments split at
  // spaces; a program that cannot be started is ejected at setup with the reason), "tcp" (a
  // client that connects to the referee and sends its name first), or "bot:NAME[@V]" (a stored
  // bot's version, run as a cmd: seat from Hosting::shelf: arena/bot_shelf.h).
  std::string bot;
  // A "cmd" seat's caps and walls when they differ from Hosting::program (a tournament entrant's
  // own terms).
  std::optional<ProgramTerms> program;
  // A "bot:" seat's pinned files (content hash, arena/bot_shelf.h); empty: the version's own.
  std::string artifact;
};

// What one program of a match (a "cmd:" seat) wrote on stderr.
struct ProgramStderr {
  std::string seat;         // the seat's name
  std::uint64_t bytes = 0;  // all it wrote
  std::string tail;         // the last bytes of it (ChildSpec::stderr_tail)
  std::string log_error;    // a failed write to its stderr_dir file ("PATH: REASON"), or empty
  bool exited = false;      // it ended by itself (not by our SIGKILL) before it was collected
};

// The programs a match started (open_remote_seats adds them), kept so that what they wrote on
// stderr can be read once the match is over. Thread-safe.
class ProgramRecords {
 public:
  void add(std::string seat, std::shared_ptr<ChildProcess> process);
  // Kills whatever still runs (the match is over), after giving the programs up to `grace`
  // together to exit by themselves, then reports each program in the order they were started.
  std::vector<ProgramStderr> collect(Duration grace = Duration::zero());
  // Kills every program added so far without waiting (from any thread): a match that must end
  // now; its seats are then ejected as hang-ups.
  void stop_all();

 private:
  std::mutex mu_;
  std::vector<std::pair<std::string, std::shared_ptr<ChildProcess>>> programs_;
};

// Where remote players come from.
struct Hosting {
  std::string listen_host = "127.0.0.1";            // for "tcp" seats
  std::uint16_t listen_port = 0;                    // 0: any free port
  std::chrono::milliseconds accept_timeout{60000};  // for all tcp seats to connect and sign up
  // Connections not yet signed up held at once (a quarter of them, at least 4, from one
  // address); open_remote_seats says what happens beyond.
  std::size_t max_pending = 64;
  // The secret each "tcp" seat is claimed with, by seat name (make_seat_tokens); never logged.
  std::map<std::string, std::string> tokens;
  std::function<void(std::uint16_t port, std::size_t seats)> on_listen;  // before accepting
  ProgramTerms program;  // how "cmd" seats run (sandboxed by default), unless a Seating says
  // "cmd" seats' stderr logs, DIR/PREFIXNAME.stderr (the first MiB); empty: not kept in files.
  std::filesystem::path stderr_dir;
  std::string stderr_prefix;
  ProgramRecords* programs = nullptr;  // when set, every started program is added to it
  // Files no "cmd" seat may see (SandboxSpec::private_paths): the store, the log, token files.
  std::vector<PrivateFile> private_paths;
  // The secret key of the programs' seeds (ARBITER_SEED: seeds::program), raw bytes: the run's
  // (a tournament's, or play's --program-key) so that a reproduced match gives its programs the
  // same seeds; empty: one is drawn for the match. Never shown to a program.
  std::string program_key;
  // HOST:PORT of a viewer listening for the game's text stream (Abalone's §7 GUI protocol);
  // empty: none. Only for games with GameEntry::streams_gui.
  std::string gui;
  // Where "bot:" seats' programs come from (arena/bot_shelf.h); null: such seats cannot play.
  BotShelf* shelf = nullptr;
  // The CPUs program seats are pinned to ("3", "0-1"), each in a cpuset group of its own; empty:
  // not pinned (tournament/cpu_pool.h).
  std::string cpus;
};

struct PlaySpec {
  std::vector<Seating> roster;  // in seat order (for Q: turn order)
  std::uint64_t seed = 1;
  Json config;  // game-specific overrides; null for the defaults
  RefereeOptions options;
  Hosting hosting;
};

struct PlayOutcome {
  MatchResult result;
  std::vector<std::string> names;   // by seat
  std::vector<std::string> report;  // game-specific lines for people (Speed Scrabble: timeline)
  Json details;                     // the same for machines (merged into --json output)
};

struct GameEntry {
  std::string name;
  std::string summary;
  std::string bots;  // the bot syntax, one line for --help
  // Every house bot by name (each one check_bot takes, and `bots` names): `arbiter games`.
  std::vector<std::string> house_bots;
  std::size_t min_seats = 2;  // how many players a match seats (before config overrides)
  std::size_t max_seats = 2;
  bool streams_gui = false;  // whether play takes Hosting::gui (a viewer's text stream)
  bool clocked = false;      // whether play takes RefereeOptions::time_control (turn-based)
  bool seat_per_call = false;  // whether play takes RefereeOptions::seat_per_call
  std::string seats_text;    // how the game counts its seats in messages; empty: "N players"
  // Whether `bot` is one of the game's house bots in its syntax (never asked about cmd: or tcp
  // seats). Starts and builds nothing; the Error names what is wrong.
  std::function<Expected<void>(const std::string& bot)> check_bot;
  // Whether the game takes `config` (null: its defaults) for matches of `seats` players.
  std::function<Expected<void>(const Json& config, std::size_t seats)> check_config;
  // Plays a match. Callers go through play_match (arena/seating.h), which checks the seats
  // first, so that an organizer's mistake is an error and never a player's ejection.
  std::function<Expected<PlayOutcome>(const PlaySpec&)> play;
  std::function<Expected<ReplayReport>(const std::vector<Json>&)> replay;
  // A game-log line as a spectator may see it while the match runs (the live viewer): the
  // line without what some seat may not know (each game's spectator.h; docs/viewer.md). Never
  // throws. Empty: the live viewer withholds every call's args and reply and every message.
  std::function<Json(const Json& line)> spectate;
};

// A game's entry with its spectator projection set.
GameEntry with_spectator(GameEntry entry, Json (*spectate)(const Json&));

const std::vector<GameEntry>& registered_games();
const GameEntry* find_game(std::string_view name);

// Whether `bot` is one of `game`'s house bots (in house_bots, or one of them with options after
// '+' or '=', as "dag+cheat=no-fit"): never a program, a tcp seat or a file of any kind. False
// for an unknown game.
bool is_house_bot(std::string_view game, std::string_view bot);

}  // namespace arbiter
