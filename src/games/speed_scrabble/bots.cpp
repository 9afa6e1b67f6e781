// Speed Scrabble's house racers.
#include "games/speed_scrabble/bots.h"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "games/speed_scrabble/game.h"

namespace arbiter::speed_scrabble {

SolverRacer::SolverRacer(std::string name, RacerSpec spec, std::shared_ptr<const SolverIndex> index,
                         std::shared_ptr<const Distributor> tiles, Seat seat, const Clock& clock)
    : name_(std::move(name)),
      spec_(spec),
      index_(std::move(index)),
      distributor_(std::move(tiles)),
      seat_(seat),
      clock_(clock) {}

namespace {

Expected<Dictionary> load_dictionary(const std::string& name) {
  if (name.starts_with("scowl-")) {
    int size = 0;
    const auto [end, ec] = std::from_chars(name.data() + 6, name.data() + name.size(), size);
    if (ec == std::errc() && end == name.data() + name.size()) return Dictionary::scowl(size);
  }
  return Dictionary::file(name);
}

}  // namespace

void SolverRacer::race(Link& link) {
  using namespace std::chrono_literals;
  const auto later = [&](Duration d) { return Deadline::after(clock_, d); };
  auto first = link.receive(later(1h));
  if (!first) return;
  auto view = decode_setup(*first);
  if (!view) return;
  if (!index_) {
    auto dict = load_dictionary(view->config.dictionary);
    if (!dict) return;
    index_ = make_solver_index(*dict);
  }
  Solver solver(index_);
  TileCursor cursor;
  Tiles tiles = distributor_ ? cursor.take_new(*distributor_, seat_) : view->tiles;
  Board board;
  std::size_t tried = 0;  // the tile count last worked on
  bool over = false;

  // Handles one message; false once the match is over for this racer.
  const auto handle = [&](const Json& m) {
    if (!m.is_array() || m.empty() || !m[0].is_string()) return true;
    const std::string& kind = m[0].get_ref<const std::string&>();
    if (kind == "win") return false;
    auto notice = decode_notice(m);
    if (!notice) return true;
    if (notice->kind == Notice::Kind::new_tiles) {
      if (!distributor_) tiles += notice->tiles;
    } else if (notice->verdict != "accepted" && !notice->verdict.starts_with("stale")) {
      board.clear();  // rejected: rebuild rather than extend
    }
    return true;
  };
  // Takes messages until `deadline` (or the first one, when `one`); false once over.
  const auto pump = [&](const Deadline& deadline, bool one) {
    for (;;) {
      auto m = link.receive(deadline);
      if (!m) return !link.closed();
      if (!handle(*m)) return false;
      if (one) return true;
    }
  };

  while (!over) {
    if (distributor_) tiles += cursor.take_new(*distributor_, seat_);
    if (tiles.size() > tried) {
      tried = tiles.size();
      // One tile is a board on its own (the solver only builds words).
      auto next = tiles.size() == 1 ? std::optional<Board>(Board{tiles})
                  : board.empty()   ? solver.solve(tiles)
                                    : solver.extend(board, tiles);
      if (next) {
        if (spec_.delay > 0ns && !pump(later(spec_.delay), false)) break;
        if (distributor_) tiles += cursor.take_new(*distributor_, seat_);
        if (tiles.size() > tried) {  // overtaken while waiting: extend this board instead
          board = std::move(*next);
          continue;
        }
        if (!link.send(encode(*next))) break;
        board = std::move(*next);
      }
      continue;
    }
    over = !pump(later(1h), true);
  }
}

}  // namespace arbiter::speed_scrabble
