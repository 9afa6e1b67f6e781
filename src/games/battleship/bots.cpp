// Battleship house bots: their names, the shots due, what the outgoing shots tell (read_view, where
// every shooter starts), and the Shooter that hands a view to its family (hunt_shooters.cpp,
// density_shooter.cpp); placements are in placement.cpp.
#include "games/battleship/bots.h"
#include "games/battleship/bots_internal.h"
#include "games/battleship/state.h"

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include <fmt/format.h>

namespace arbiter::battleship {

void check_config(const Config& c) {
  if (c.rows < 1 || c.cols < 1 || c.rows > 26 || c.cols > 26)
    throw std::invalid_argument(fmt::format("bad grid {}x{}", c.rows, c.cols));
  for (int len : c.ships)
    if (len < 1 || len > std::max(c.rows, c.cols))
      throw std::invalid_argument(fmt::format("a ship of length {} cannot fit", len));
}

// ---------------------------------------------------------------------------------------------
// What the outgoing shots tell

namespace {

bool touches(const Grid& grid, const Segment& s, const std::vector<std::uint8_t>& mark) {
  bool hit = false;
  for_cells(s, [&](int i) {
    if (mark[i]) hit = true;
    grid.around(i, [&](int j) { hit = hit || mark[j]; });
  });
  return hit;
}

}  // namespace

Knowledge read_view(const View& view, const Grid& grid) {
  const Config& config = view.config;
  const int n = grid.size();
  Knowledge k;
  k.state.assign(n, kUnknown);
  k.when.assign(n, -1);
  std::vector<std::uint8_t> sinks(n, 0);
  for (std::size_t t = 0; t < view.outgoing.size(); ++t) {
    const ShotResult& s = view.outgoing[t];
    if (!grid.inside(s.cell.row, s.cell.col)) continue;
    const int i = grid.index(s.cell);
    if (k.when[i] >= 0) continue;
    k.when[i] = static_cast<int>(t);
    k.state[i] = s.result == Outcome::miss ? kMiss : kHit;
    if (s.result == Outcome::sunk) {
      sinks[i] = 1;
      k.sunk.push_back({i, s.length, static_cast<int>(t), {}, false});
    }
  }

  k.afloat = config.ships;
  for (const SunkShip& s : k.sunk) {
    auto it = std::find(k.afloat.begin(), k.afloat.end(), s.length);
    if (it != k.afloat.end()) k.afloat.erase(it);
  }

  // Each sunk ship's options: segments through its sinking cell made of hits fired no later,
  // holding no other ship's sinking cell.
  for (SunkShip& s : k.sunk) {
    const int r = s.cell / grid.cols, c = s.cell % grid.cols;
    for (int dir = 0; dir < (s.length > 1 ? 2 : 1); ++dir) {
      for (int back = 0; back < s.length; ++back) {
        const int r0 = dir ? r - back : r, c0 = dir ? c : c - back;
        const int r1 = dir ? r0 + s.length - 1 : r0, c1 = dir ? c0 : c0 + s.length - 1;
        if (!grid.inside(r0, c0) || !grid.inside(r1, c1)) continue;
        const Segment seg{r0 * grid.cols + c0, dir ? grid.cols : 1, s.length};
        bool ok = true;
        for_cells(seg, [&](int i) {
          ok = ok && k.state[i] == kHit && k.when[i] <= s.when && (i == s.cell || !sinks[i]);
        });
        if (ok) s.options.push_back(seg);
      }
    }
  }
  // Narrow down: a ship pinned to one segment claims its cells (and, with no_touch, their
  // neighbourhood) from the others, until nothing changes. A ship left without options (only
  // in inconsistent views) is taken to be its sinking cell alone.
  std::vector<std::uint8_t> claimed(n, 0);
  for (bool changed = true; changed;) {
    changed = false;
    for (SunkShip& s : k.sunk) {
      if (s.fixed) continue;
      std::erase_if(s.options, [&](const Segment& seg) {
        if (config.no_touch) return touches(grid, seg, claimed);
        bool overlap = false;
        for_cells(seg, [&](int i) { overlap = overlap || claimed[i]; });
        return overlap;
      });
      if (s.options.size() > 1) continue;
      if (s.options.empty()) s.options.push_back({s.cell, 1, 1});
      s.fixed = true;
      for_cells(s.options[0], [&](int i) { claimed[i] = 1; });
      changed = true;
    }
  }
  k.settled.assign(n, 0);
  for (const SunkShip& s : k.sunk) {
    std::vector<int> times(n, 0);  // cells of all options: settled when in every one
    for (const Segment& seg : s.options) for_cells(seg, [&](int i) { ++times[i]; });
    for (int i = 0; i < n; ++i)
      if (times[i] == static_cast<int>(s.options.size())) k.settled[i] = 1;
  }
  k.banned.assign(n, 0);
  if (config.no_touch)
    for (int i = 0; i < n; ++i)
      if (k.settled[i])
        grid.around(i, [&](int j) {
          if (k.state[j] == kUnknown) k.banned[j] = 1;
        });
  return k;
}

Shots pick(const Grid& grid, const std::vector<int>& ranked, int count) {
  Shots out;
  std::vector<std::uint8_t> used(grid.size(), 0);
  for (int i : ranked) {
    if (static_cast<int>(out.size()) == count) break;
    if (used[i]) continue;
    used[i] = 1;
    out.push_back(grid.cell(i));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// A hidden fleet under fire

Target::Target(const Config& config, const Fleet& fleet)
    : config_(config), owner_(config.rows * config.cols, -1), fired_(owner_.size(), 0) {
  for (std::size_t k = 0; k < fleet.size(); ++k) {
    for (const Cell& c : ship_cells(fleet[k])) owner_[index(c)] = static_cast<int>(k);
    left_.push_back(fleet[k].length);
    lengths_.push_back(fleet[k].length);
  }
  afloat_ = static_cast<int>(fleet.size());
}

ShotResult Target::fire(const Cell& c) {
  if (c.row < 0 || c.row >= config_.rows || c.col < 0 || c.col >= config_.cols)
    throw std::logic_error(fmt::format("shot off the grid at ({}, {})", c.row, c.col));
  const int i = index(c);
  if (fired_[i]) throw std::logic_error(fmt::format("second shot at ({}, {})", c.row, c.col));
  fired_[i] = 1;
  const int k = owner_[i];
  if (k < 0) return {c, Outcome::miss, 0};
  ++hits_;
  if (--left_[k] > 0) return {c, Outcome::hit, 0};
  --afloat_;
  if (!config_.announce_sunk) return {c, Outcome::hit, 0};
  return {c, Outcome::sunk, lengths_[k]};
}

// ---------------------------------------------------------------------------------------------
// Names

std::string_view to_string(ShooterKind kind) {
  return name_of(kShooterNames, kind);
}

std::string_view to_string(PlacerKind kind) {
  return name_of(kPlacerNames, kind);
}

std::string to_string(const BotSpec& spec) {
  std::string out(to_string(spec.shooter));
  if (spec.placer != PlacerKind::uniform) out += fmt::format("+{}", to_string(spec.placer));
  return out;
}

namespace {

// "a, b, c" of a table's names, with `last` before the last one ("or", "and").
template <class E, std::size_t N>
std::string name_list(const NameTable<E, N>& table, std::string_view prefix,
                      std::string_view last) {
  std::string out;
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0) out += i + 1 == N ? fmt::format(" {} ", last) : std::string(", ");
    out += fmt::format("{}{}", prefix, table[i].second);
  }
  return out;
}

}  // namespace

std::string bot_syntax() {
  std::string shooters;
  for (const auto& [kind, name] : kShooterNames)
    shooters += fmt::format("{}{}", shooters.empty() ? "" : " | ", name);
  return fmt::format("{}, optionally {} (placement)", shooters, name_list(kPlacerNames, "+", "or"));
}

std::vector<std::string> house_bots() {
  std::vector<std::string> bots;
  for (const auto& [shooter, name] : kShooterNames) {
    bots.emplace_back(name);
    for (const auto& [placer, placement] : kPlacerNames)
      bots.push_back(fmt::format("{}+{}", name, placement));
  }
  return bots;
}

Expected<BotSpec> parse_bot(std::string_view text) {
  const auto plus = text.find('+');
  const std::string_view shooter = text.substr(0, plus);
  BotSpec spec;
  const auto kind = from_name(kShooterNames, shooter);
  if (!kind)
    return fail(fmt::format("bot \"{}\": unknown shooter \"{}\" ({})", text, shooter,
                            name_list(kShooterNames, "", "or")));
  spec.shooter = *kind;
  if (plus == std::string_view::npos) return spec;
  const std::string_view placer = text.substr(plus + 1);
  const auto placement = from_name(kPlacerNames, placer);
  if (!placement)
    return fail(fmt::format("bot \"{}\": unknown placement \"{}\" ({})", text, placer,
                            name_list(kPlacerNames, "", "or")));
  spec.placer = *placement;
  return spec;
}

// ---------------------------------------------------------------------------------------------
// Geometry

int shots_due(const View& view) {
  const Grid grid(view.config);
  int unknown = grid.size();
  std::vector<std::uint8_t> fired(grid.size(), 0);
  for (const ShotResult& s : view.outgoing)
    if (grid.inside(s.cell.row, s.cell.col) && !fired[grid.index(s.cell)]) {
      fired[grid.index(s.cell)] = 1;
      --unknown;
    }
  int due = 1;
  if (view.config.salvo) {
    std::vector<std::uint8_t> struck(grid.size(), 0);
    for (const ShotResult& s : view.incoming)
      if (s.result != Outcome::miss && grid.inside(s.cell.row, s.cell.col))
        struck[grid.index(s.cell)] = 1;
    int afloat = 0;
    for (const Ship& ship : view.fleet) {
      bool sunk = true;
      for (const Cell& c : ship_cells(ship))
        sunk = sunk && grid.inside(c.row, c.col) && struck[grid.index(c)];
      if (!sunk) ++afloat;
    }
    due = std::max(afloat, 1);
  }
  return std::min(due, unknown);
}

// ---------------------------------------------------------------------------------------------
// Shooting

struct Shooter::Impl {
  ShooterKind kind;
  Config config;  // what `density` was built for
  std::unique_ptr<DensityModel> density;
  std::unique_ptr<PosteriorModel> posterior;
  std::vector<double> p;

  DensityModel& model(const Config& c) {
    if (!density || !(config == c)) {
      config = c;
      density = make_density(c);
    }
    return *density;
  }
  PosteriorModel& posterior_model(const Config& c) {
    if (!posterior || !(config == c)) {
      config = c;
      posterior = make_posterior(c);
      density.reset();
    }
    return *posterior;
  }
};

Shooter::Shooter(ShooterKind kind) : impl_(std::make_unique<Impl>()) {
  impl_->kind = kind;
}
Shooter::~Shooter() = default;
Shooter::Shooter(Shooter&&) noexcept = default;
Shooter& Shooter::operator=(Shooter&&) noexcept = default;

ShooterKind Shooter::kind() const {
  return impl_->kind;
}

Shots Shooter::choose(const View& view, Rng& rng) {
  check_config(view.config);
  const Grid grid(view.config);
  const Knowledge k = read_view(view, grid);
  const int count = shots_due(view);
  if (count <= 0) return {};
  switch (impl_->kind) {
    case ShooterKind::random:
      return shoot_random(grid, k, count, rng);
    case ShooterKind::hunt:
      return shoot_hunt(grid, k, count, rng);
    case ShooterKind::tracker:
      return shoot_tracker(grid, k, count, rng);
    case ShooterKind::density:
      impl_->model(view.config).estimate(k, impl_->p);
      return shoot_density(grid, k, impl_->p, count, rng);
    case ShooterKind::posterior:
      return impl_->posterior_model(view.config).choose(k, count, rng);
  }
  return {};
}

Shots choose_shots(ShooterKind kind, const View& view, Rng& rng) {
  Shooter shooter(kind);
  return shooter.choose(view, rng);
}

std::vector<double> density_map(const View& view) {
  check_config(view.config);
  const Grid grid(view.config);
  const Knowledge k = read_view(view, grid);
  std::vector<double> p;
  make_density(view.config)->estimate(k, p);
  return p;
}

std::vector<Fleet> sample_fleets(const View& view, int count, Rng& rng) {
  check_config(view.config);
  const Grid grid(view.config);
  const Knowledge k = read_view(view, grid);
  const auto model = make_posterior(view.config);
  FleetSampler& sampler = model->sampler();
  std::vector<Fleet> out;
  if (!sampler.prepare(k)) return out;
  std::vector<Segment> segments;
  for (long budget = 200L * count; static_cast<int>(out.size()) < count && budget > 0; --budget) {
    if (!sampler.propose(rng, segments)) continue;
    Fleet fleet;
    for (const Segment& s : segments) fleet.push_back(grid.ship(s));
    out.push_back(std::move(fleet));
  }
  return out;
}

}  // namespace arbiter::battleship
