// Battleship house bots (docs/games/battleship.md §4): fleet placements, the random, hunt and
// density shooters, and an adapter that turns a BotSpec into a Player of any game with Battleship's
// types.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/json.h"
#include "core/names.h"
#include "core/player.h"
#include "core/rng.h"
#include "games/battleship/types.h"

namespace arbiter::battleship {

// ---------------------------------------------------------------------------------------------
// Naming the bots

enum class ShooterKind {
  random,   // uniformly random cells never fired at
  hunt,     // the textbook hunt/target: a checkerboard hunt, then the neighbours of hits
  tracker,  // hunt/target that follows lines of hits and reads sunk announcements
  density,  // the cell most likely to hold a ship given every answer so far (see below)
  posterior,  // the same chance, from whole fleets drawn from the exact posterior
};
enum class PlacerKind {
  uniform,  // uniform over legal fleets
  evasive,  // the fleet, among many uniform ones, on the cells density shooters try last
  hardest,  // of several evasive fleets, the one density shooters took longest to sink
};

// The names, in the order `arbiter games` lists them: parse_bot, to_string and bot_syntax all
// read them here.
inline constexpr NameTable<ShooterKind, 5> kShooterNames{{{ShooterKind::random, "random"},
                                                          {ShooterKind::hunt, "hunt"},
                                                          {ShooterKind::tracker, "tracker"},
                                                          {ShooterKind::density, "density"},
                                                          {ShooterKind::posterior, "posterior"}}};
inline constexpr NameTable<PlacerKind, 3> kPlacerNames{{{PlacerKind::uniform, "uniform"},
                                                        {PlacerKind::evasive, "evasive"},
                                                        {PlacerKind::hardest, "hardest"}}};

// "random | hunt | ... , optionally +uniform, +evasive or +hardest (placement)": for --help.
std::string bot_syntax();
// Every house bot: each shooter, and each with each placement.
std::vector<std::string> house_bots();

struct BotSpec {
  ShooterKind shooter = ShooterKind::density;
  PlacerKind placer = PlacerKind::uniform;
  friend bool operator==(const BotSpec&, const BotSpec&) = default;
};

std::string_view to_string(ShooterKind kind);
std::string_view to_string(PlacerKind kind);
std::string to_string(const BotSpec& spec);  // "density", "hunt+evasive"

// SHOOTER[+PLACER]: "random", "hunt+evasive", "tracker", "density+uniform".
Expected<BotSpec> parse_bot(std::string_view text);

// ---------------------------------------------------------------------------------------------
// Geometry

// Fleet geometry and legality live with the rules: ship_cells, fleet_foul, random_fleet
// (games/battleship/state.h).

// How many shots the seat of `view` fires this turn: 1, or in salvo mode one per own ship still
// afloat (at least 1), never more than the cells it has not fired at.
int shots_due(const View& view);

// ---------------------------------------------------------------------------------------------
// Placement

// Uniform over legal fleets (random_fleet: exact rejection sampling, on very crowded grids a
// randomized search that is legal but no longer exactly uniform). Throws std::invalid_argument
// when no legal fleet is found.
Fleet place_uniform(const Config& config, Rng& rng);

// Draws kEvasiveDraws uniform fleets and keeps the one whose cells have the lowest summed
// empty-board density, i.e. the ships density shooters find last (edges and corners).
inline constexpr int kEvasiveDraws = 100;
Fleet place_evasive(const Config& config, Rng& rng);

// Of kHardestCandidates evasive fleets, the one a density shooter needed the most shots to sink
// over kHardestTrials trial games each (its shots drawn from `rng` too; ties: the first). The 64
// trial games shrink to 64 * (100 / cells)^2 * 5 / ships when that is less (one per candidate
// under 16; place_evasive at 1). Where whole fleets rarely fit (fewer than 1 in 50 uniform drops
// of the ships without a clash) it is place_uniform: both evasive draws and trial games cost
// too much there. About 40 ms on the standard grid, where density needs about 11 shots more
// against it than against uniform fleets, posterior about 9.
inline constexpr int kHardestCandidates = 16;
inline constexpr int kHardestTrials = 4;
Fleet place_hardest(const Config& config, Rng& rng);

Fleet place(PlacerKind kind, const Config& config, Rng& rng);

// ---------------------------------------------------------------------------------------------
// Shooting

// A shooter: a pure function of the view and the Rng's draws. The object only caches the grid's
// geometry and scratch space between calls; two shooters given equal views and equally seeded
// Rngs fire at the same cells.
class Shooter {
 public:
  explicit Shooter(ShooterKind kind);
  ~Shooter();
  Shooter(Shooter&&) noexcept;
  Shooter& operator=(Shooter&&) noexcept;

  ShooterKind kind() const;

  // shots_due(view) distinct cells on the grid never fired at (empty when none is left).
  Shots choose(const View& view, Rng& rng);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// How they aim (each: distinct cells never fired at, shots_due(view) of them):
//  random   uniformly among the cells never fired at.
//  hunt     the textbook hunt/target with parity, stateless: the unfired orthogonal neighbours
//           of the most recent hit that has any (a stack of targets, last in first out), else
//           (hunting) the checkerboard (row + col) even, else anything; random within a tier.
//           Sunk announcements are not used: neighbours of a sunk ship get fired at too.
//  tracker  the open ends of lines of two or more unresolved hits, else the orthogonal
//           neighbours of unresolved hits, else (hunting) the lattice (row + col) mod m, m the
//           shortest ship afloat, whose residue has the fewest open cells left; random within a
//           tier. Sunk announcements settle the hits of the sunk ship; with no_touch the cells
//           around it are skipped.
//  density  the cells with the highest chance of holding a ship, ties drawn at random: per
//           cell, the probability under a uniform prior over fleets consistent with every
//           answer (misses, hits, sunk ships and their lengths, no_touch), computed exactly over
//           the placements of the ships touching unresolved hits and with the other ships
//           taken independently of each other. Salvo: the top cells of one estimate.
//  posterior  like density, with the chance estimated from kPosteriorFleets (4,000) fleets drawn
//           uniformly from all fleets consistent with every answer (the ships of a fleet do
//           not overlap, which density's per-ship counts ignore); falls back to density's
//           estimate in the rare positions whose covers of the hits exceed the budget, or
//           when fewer than 200 fleets come out of 50 proposals a fleet (crowded grids).
// Which hits a sunk ship covered is inferred: segments of its length through the sinking cell,
// made of earlier hits, narrowed against the other sunk ships; when that leaves a choice, the
// density shooter weighs every choice and tracker settles only the cells common to all.

// One-off form of Shooter::choose.
Shots choose_shots(ShooterKind kind, const View& view, Rng& rng);

// The density shooter's estimate, per cell (row-major), of the chance that it holds an unhit
// ship cell: 0 for cells fired at. Exposed for tests and benchmarks.
std::vector<double> density_map(const View& view);

// Up to `count` fleets drawn uniformly from all fleets of view.config consistent with every
// answer in view.outgoing (the posterior the posterior shooter uses), each a whole fleet: the
// sunk ships too. Fewer when 200 * count proposals run out first (free ships that rarely fit:
// crowded grids); empty when the view has too many ways to cover its hits for the budget, or
// none.
std::vector<Fleet> sample_fleets(const View& view, int count, Rng& rng);

// ---------------------------------------------------------------------------------------------
// A house player for the referee

// A Player of a game G with G::View = View, G::Setup = Fleet, G::Action = Shots. Its placement
// and its shots draw from two Rngs derived from `seed`, so a seed replays the same bot.
template <class G>
class HouseBot final : public Player<G> {
 public:
  HouseBot(std::string name, const BotSpec& spec, std::uint64_t seed)
      : name_(std::move(name)),
        spec_(spec),
        place_rng_(Rng::derive(seed, "placement")),
        shot_rng_(Rng::derive(seed, "shots")),
        shooter_(spec.shooter) {}

  std::string name() override { return name_; }
  Fleet setup(const View& view) override { return place(spec_.placer, view.config, place_rng_); }
  Shots take_turn(const View& view) override { return shooter_.choose(view, shot_rng_); }
  void win(bool won) override { (void)won; }

 private:
  std::string name_;
  BotSpec spec_;
  Rng place_rng_;
  Rng shot_rng_;
  Shooter shooter_;
};

template <class G>
std::shared_ptr<Player<G>> make_bot(std::string name, const BotSpec& spec, std::uint64_t seed) {
  return std::make_shared<HouseBot<G>>(std::move(name), spec, seed);
}

}  // namespace arbiter::battleship
