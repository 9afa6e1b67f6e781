// Speed Scrabble's rules.
#include "games/speed_scrabble/state.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace arbiter::speed_scrabble {
namespace {

std::string expand(const char* counts) {  // "A13B3..." to the letters
  std::string out;
  for (const char* p = counts; *p;) {
    const char letter = *p++;
    int n = 0;
    while (*p >= '0' && *p <= '9') n = n * 10 + (*p++ - '0');
    out.append(static_cast<std::size_t>(n), letter);
  }
  return out;
}

Duration seconds(double s) {
  return std::chrono::duration_cast<Duration>(std::chrono::duration<double>(s));
}

int letters_on(const Board& board) {
  int n = 0;
  for (const std::string& row : board)
    for (char c : row) n += c != '.';
  return n;
}

}  // namespace

std::string bag_letters(std::string_view bag) {
  if (bag == "bananagrams")
    return expand("A13B3C3D6E18F3G4H3I12J2K2L5M3N8O11P3Q2R9S6T9U6V3W3X2Y3Z2");
  if (bag == "scrabble") return expand("A9B2C2D4E12F2G3H2I9J1K1L4M2N6O8P2Q1R6S4T6U4V2W2X1Y2Z1");
  return {};
}

State State::start(const Config& config, Rng& rng) {
  if (!config.words) throw std::invalid_argument("speed_scrabble: the config has no dictionary");
  std::string bag = bag_letters(config.bag);
  if (static_cast<std::size_t>(config.hand) * config.players > bag.size())
    throw std::invalid_argument("speed_scrabble: the bag is too small for the hands");
  rng.shuffle(bag.begin(), bag.end());
  State s;
  s.config_ = config;
  for (int p = 0; p < config.players; ++p)
    s.dealt_.push_back(bag.substr(static_cast<std::size_t>(p) * config.hand, config.hand));
  s.distributor_ = std::make_shared<Distributor>(s.dealt_, config.start);
  s.in_.assign(config.players, true);
  s.best_.assign(config.players, 0);
  s.timeline_.assign(config.players, {});
  s.invalid_.assign(config.players, 0);
  return s;
}

Seats State::seats() const {
  Seats out;
  for (int p = 0; p < config_.players; ++p)
    if (in_[p]) out.push_back(p);
  return out;
}

View State::view(Seat p) const {
  return {config_, dealt_.at(p).substr(0, config_.start)};
}

Notice State::verdict(int k, std::string text) const {
  Notice n;
  n.kind = Notice::Kind::verdict;
  n.k = k;
  n.verdict = std::move(text);
  return n;
}

Reaction<Notice> State::receive(Seat p, const Message& board, Duration at) {
  Reaction<Notice> r;
  const int held = distributor_->available();  // every seat holds the same number of tiles
  const int k = letters_on(board);
  if (k > held) {
    r.notices.push_back(
        {p, verdict(k, fmt::format("letters: {} on the board, {} are yours", k, held))});
  } else {
    std::string problem =
        board_problem(board, std::string_view(dealt_[p]).substr(0, k), *config_.words);
    if (problem.empty() && k < held) {
      // Valid but overtaken by tiles unlocked meanwhile: not the player's fault.
      r.notices.push_back({p, verdict(k, fmt::format("stale: {} tiles are yours now", held))});
      return r;
    }
    if (problem.empty()) {
      r.notices.push_back({p, verdict(k, "accepted")});
      if (best_[p] < k) {
        best_[p] = k;
        timeline_[p].push_back({k, at});
        last_valid_ = at;
      }
      if (k == config_.hand) {
        winner_ = p;
        finish("won");
      } else if (distributor_->available() == k) {
        distributor_->unlock(k);
        for (Seat q : seats()) {
          Notice n;
          n.kind = Notice::Kind::new_tiles;
          n.tiles = std::string(1, dealt_[q][k]);
          r.notices.push_back({q, std::move(n)});
        }
      }
      return r;
    }
    r.notices.push_back({p, verdict(k, std::move(problem))});
  }
  if (++invalid_[p] > config_.max_invalid)
    r.foul = Foul{"too-many-invalid",
                  fmt::format("{} invalid boards (at most {})", invalid_[p], config_.max_invalid)};
  return r;
}

Reaction<Notice> State::tick(Duration at) {
  if (!over_) {
    if (at >= seconds(config_.max_seconds))
      finish("time limit");
    else if (at - last_valid_ >= seconds(config_.stall_seconds))
      finish("stalled");
  }
  return {};
}

Duration State::deadline() const {
  return std::min(seconds(config_.max_seconds), last_valid_ + seconds(config_.stall_seconds));
}

void State::eject(Seat p) {
  if (p < 0 || p >= config_.players || !in_[p]) return;
  in_[p] = false;
  if (!over_ && seats().empty()) finish("everyone out");
}

void State::finish(std::string why) {
  over_ = true;
  ending_ = std::move(why);
  if (winner_) return;
  // The largest valid board wins, the earliest to reach that size breaking ties.
  std::optional<Seat> best;
  for (Seat p : seats()) {
    if (best_[p] == 0) continue;
    if (!best || best_[p] > best_[*best] ||
        (best_[p] == best_[*best] && timeline_[p].back().at < timeline_[*best].back().at))
      best = p;
  }
  winner_ = best;
}

Standings State::standings() const {
  Standings s;
  if (winner_ && in_[*winner_]) s.winners.push_back(*winner_);
  Seats rest;
  for (Seat p : seats())
    if (!winner_ || p != *winner_) rest.push_back(p);
  std::stable_sort(rest.begin(), rest.end(), [&](Seat a, Seat b) {
    if (best_[a] != best_[b]) return best_[a] > best_[b];
    if (best_[a] == 0) return false;
    return timeline_[a].back().at < timeline_[b].back().at;
  });
  s.losers = rest;
  s.scores.assign(best_.begin(), best_.end());
  return s;
}

}  // namespace arbiter::speed_scrabble
