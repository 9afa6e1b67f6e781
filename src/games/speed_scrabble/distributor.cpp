#include "games/speed_scrabble/distributor.h"

#include <stdexcept>

namespace arbiter::speed_scrabble {
namespace {

int checked_hand(const std::vector<std::string>& dealt, int start) {
  if (dealt.empty()) throw std::invalid_argument("distributor: no players");
  const std::size_t hand = dealt.front().size();
  if (hand == 0) throw std::invalid_argument("distributor: empty hand");
  for (const std::string& tiles : dealt) {
    if (tiles.size() != hand) throw std::invalid_argument("distributor: hands differ in length");
  }
  if (start < 1 || static_cast<std::size_t>(start) > hand) {
    throw std::invalid_argument("distributor: start must be 1..hand");
  }
  return static_cast<int>(hand);
}

}  // namespace

Distributor::Distributor(std::vector<std::string> dealt, int start)
    : players_(static_cast<int>(dealt.size())),
      hand_(checked_hand(dealt, start)),
      start_(start),
      valid_(static_cast<std::size_t>(hand_) + 1) {  // value-initialized: all false
  tiles_.reserve(static_cast<std::size_t>(players_) * hand_);
  for (const std::string& tiles : dealt) tiles_ += tiles;
}

bool Distributor::unlock(int k) {
  if (k < 1 || k > hand_) return false;
  return !valid_[k].exchange(true, std::memory_order_release);
}

int Distributor::available() const {
  int n = start_;
  while (n < hand_ && valid_[n].load(std::memory_order_acquire)) ++n;
  return n;
}

std::string TileCursor::take_new(const Distributor& d, Seat p) {
  std::string out;
  while (const std::optional<char> tile = d.try_get_tile(next_, p)) {
    out += *tile;
    ++next_;
  }
  return out;
}

}  // namespace arbiter::speed_scrabble
