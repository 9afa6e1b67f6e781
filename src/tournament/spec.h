// TournamentSpec: what a tournament is (the game, its config, the entrants, the schedule, the
// master seed and the limits), as the CLI builds it from flags or a TOML file and as the store
// keeps it (JSON). Every match's seed is derived from the master seed and the match's index.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "core/time_control.h"
#include "referee/match.h"
#include "remote/program_terms.h"

namespace arbiter {
struct GameEntry;  // arena/registry.h
}  // namespace arbiter

namespace arbiter::tournament {

enum class Schedule {
  round_robin,  // every set of `seats` entrants, in every seating order, `rounds` times
  gauntlet,     // the hero against every set of the others, in every seating order
  swiss,        // two seats; each round pairs entrants with equal points who have not met
  ladder,       // entrants join and leave while it runs; a matchmaker adds jobs (league/ladder.h)
};

std::string_view schedule_name(Schedule s);  // "round-robin", "gauntlet", "swiss", "ladder"
// The schedules a tournament is made with (a ladder is made by arbiter ladder create).
Expected<Schedule> parse_schedule(std::string_view text);

struct Entrant {
  std::string name;  // unique in the tournament; core/seat_name.h's rule
  std::string bot;   // as for `arbiter play`: a house bot, cmd:PROGRAM [ARGS] (split as a shell
                     // does: core/shell_words.h), tcp (a client: worker.h, RemoteDesk), or a
                     // stored bot, bot:NAME@V (pinned to a version when the tournament is made)
  std::optional<ProgramTerms> program;  // a cmd: entrant's own caps and walls, if not the
                                        // tournament's
  std::optional<std::int64_t> per_call_ms;  // its own per-call limit, if not the tournament's
  std::optional<TimeControl> clock;         // its own chess clock, if not the tournament's
  // A stored bot's (bot:NAME@V) files, pinned when the tournament was made: their content hash.
  // Every match of the entrant runs exactly these (arena/bot_shelf.h).
  std::string artifact;
};

// "NAME:BOT" as given to --player (by arbiter play too): split at the first colon.
Expected<Entrant> parse_entrant(std::string_view text);

// The entrant's own time limits are ones `game` can give: a clock only where it has turns, a
// per-call limit of 1 ms to 600 s only where players may differ. Errors read "player NAME: ...".
Expected<void> check_entrant_limits(const GameEntry& game, const Entrant& entrant);

// A sequential probability ratio test between the two entrants of a two-seat tournament
// (docs/ratings.md, "SPRT"): H0 "the first entrant is elo0 stronger", H1 "elo1 stronger".
struct Sprt {
  double elo0 = 0;
  double elo1 = 5;
  double alpha = 0.05;       // the chance of accepting H1 when H0 holds
  double beta = 0.05;        // the chance of accepting H0 when H1 holds
  bool pentanomial = true;   // counts pairs of matches (needs pairing); false: single matches
};

// What makes a tournament a ladder (league/ladder.h). Its entrants grow while it runs (never
// removed: a job names them by index), and its jobs are added by the matchmaker, each group of a
// round seating one set of entrants in every rotation with one seed.
struct Ladder {
  std::int64_t seats_max = 2;         // matches seat TournamentSpec::seats to seats_max entrants
  std::vector<std::int64_t> benched;  // entrants that no longer play (retired), ascending
  std::int64_t placement = 10;        // a newcomer's first games, played with priority
  Json rating;  // the rating model and its parameters, as league/ladder.h wrote them
};

// The checks of results from untrusted workers (PostgreSQL worker roles: worker_roles.h).
struct ResultChecks {
  bool on_arrival = true;          // replay each stored log and match it to its result and its job
  double replay_share = 0.05;      // the share of matches played again by another worker
  std::int64_t replay_first = 20;  // a new worker's first results, each played again
};

struct TournamentSpec {
  std::string name = "tournament";
  std::string game;
  std::vector<Entrant> players;
  Schedule schedule = Schedule::round_robin;
  std::int64_t seats = 2;   // players per match
  std::int64_t rounds = 1;  // repetitions of the schedule (Swiss: rounds of pairings)
  // The master seed. Drawn unguessable (core/entropy.h) for a tournament made without one
  // (build it with new_tournament_spec(), or read_spec_file()), printed and stored, so that a
  // program cannot compute the deals of its matches from the schedule.
  std::uint64_t seed = 1;
  // The secret key of the programs' seeds (ARBITER_SEED: core/seed_tree.h), raw bytes, drawn when
  // the tournament is made; stored with it for resumption and reproduce commands, never shown to
  // programs or spectators. Empty in specs stored before keys (a key is then drawn per match).
  std::string program_key;
  Json config;              // the game's config overrides; null for its defaults
  std::int64_t per_call_ms = 6000;
  // The per-call limits (per_call_ms and the entrants' own) are in reference milliseconds
  // ("1ref": core/calibration.h): each worker scales them by its machine's factor, and the
  // result records it ("speed_factor").
  bool per_call_ref = false;
  std::string hero;  // gauntlet: the entrant who plays every match (default: the first)
  ProgramTerms program;  // how cmd: entrants run, unless an Entrant has its own
  std::optional<TimeControl> clock;  // a chess clock per seat (turn-based games)
  // Paired seeds: all seatings of one set of entrants in a round (both seat orders of a pairing)
  // share one match seed and one pair id, so the luck of the deal cancels. A spec stored before
  // pairing existed decodes as unpaired.
  bool pairing = true;
  std::optional<Sprt> sprt;  // stop as soon as the test decides (two entrants, two seats)
  // Where its tcp entrants' clients connect, HOST:PORT, as `tournament run --listen` gave it:
  // reproduce commands of their matches carry it. Empty: no tcp entrants.
  std::string listen;
  std::optional<Ladder> ladder;  // present exactly when schedule is ladder
  // How results stored by untrusted workers' roles are checked (checker.h); results of the
  // organizer's own workers are not.
  ResultChecks checks;
  // What the time limits are judged on (referee/match.h): the wall clock, or each call's CPU
  // time under a wall-clock backstop of `backstop` times the limit.
  LimitBy limit_by = LimitBy::wall;
  double backstop = RefereeOptions::kDefaultBackstop;
  // A timeout while the host is overloaded (core/host_load.h) is timeout-under-load, and its
  // match is played again (at most kLoadReplays times; worker.h). False: every timeout counts.
  bool load_check = true;
};

// How many times a match with a timeout under load is played again before it counts.
inline constexpr int kLoadReplays = 2;

// A per-call limit as given: seconds ("0.5", "6") or reference seconds ("1ref", "0.25ref"),
// from 0.001 to 600.
struct PerCallLimit {
  std::int64_t ms = 6000;
  bool ref = false;
};
Expected<PerCallLimit> parse_per_call(std::string_view text);
std::string format_per_call(std::int64_t ms, bool ref);  // "0.5", "1ref"

// "wall" or "cpu"; a one-line error naming both otherwise.
Expected<LimitBy> parse_limit_by(std::string_view text);
// The backstop's bounds: a multiple of the CPU-time limit.
inline constexpr double kMinBackstop = 1.0;
inline constexpr double kMaxBackstop = 100.0;

// A spec as a new tournament starts from: an unguessable master seed and a fresh program key.
TournamentSpec new_tournament_spec();

// Whether any cmd: entrant runs without the sandbox (said in every standings table).
bool unsandboxed(const TournamentSpec& spec);

Json encode_spec(const TournamentSpec& spec);
Expected<TournamentSpec> decode_spec(const Json& j);

// Reads a tournament file (TOML) into a new_tournament_spec() (so without a seed key the seed is
// drawn):
//   name = "league"      game = "q"       schedule = "round-robin"   seats = 2   rounds = 10
//   seed = 1             per_call = 6.0   hero = "alice"    clock = "10s+0.1s"
//   pairing = true       limit_by = "cpu" backstop = 3   load_check = true
//   [sprt]               elo0 = 0   elo1 = 10   alpha = 0.05   beta = 0.05   model = "pentanomial"
//   [config]             # the game's config overrides
//   [[player]]           name = "alice"   bot = "dag"
// and the program terms of remote/program_terms.h (memory = "512M", processes = 32, cpu_time =
// "60s", output = "4M", open_files, network, read_only, env, sandbox) at the top for every
// cmd: entrant, and in a [[player]] for that one (over the top's).
// Unknown keys are errors, with the key's name and line.
Expected<TournamentSpec> read_spec_file(const std::string& path);

// The most matches one tournament may have.
inline constexpr std::int64_t kMaxMatches = 5'000'000;

// Checks a spec against the games registry: the game exists, seats suit it, names are valid and
// unique, enough entrants, rounds >= 1, the hero exists, Swiss has 2 seats, the config agrees
// with the seats, at most kMaxMatches matches, an SPRT has two entrants, two seats, elo0 < elo1,
// alpha and beta in (0, 1) and, for the pentanomial model, pairing. One-line errors.
Expected<void> validate_spec(const TournamentSpec& spec);

}  // namespace arbiter::tournament
