// Countdown, a toy game for the referee's own tests: seats take turns removing 1-3 stones from a
// heap; whoever takes the last stone wins. Each seat privately holds a "hand" counter that grows
// by the stones it takes (to exercise new_tiles). Deliberately tiny and obviously correct.
#pragma once

#include <algorithm>
#include <deque>
#include <optional>
#include <string_view>

#include "core/json.h"
#include "core/player.h"
#include "core/rules.h"

namespace arbiter::toy {

struct Countdown {
  static constexpr std::string_view kName = "countdown";
  struct Config {
    int players = 2;
    int stones = 10;
    friend bool operator==(const Config&, const Config&) = default;
  };
  using Action = int;
  struct View {
    int stones = 0;
    int mine = 0;
    friend bool operator==(const View&, const View&) = default;
  };
  using Hand = std::vector<int>;

  class State {
   public:
    Seats to_move() const {
      if (stones_ == 0 || order_.empty()) return {};
      return {order_.front()};
    }
    Seats turn_order() const { return {order_.begin(), order_.end()}; }
    View view(Seat p) const { return {stones_, static_cast<int>(taken_[p])}; }
    std::optional<Foul> check(Seat p, const Action& a) const {
      if (to_move() != Seats{p}) return Foul{"not-your-turn", ""};
      if (a < 1 || a > 3) return Foul{"bad-count", "take 1 to 3"};
      if (a > stones_) return Foul{"too-many", "not that many stones"};
      return std::nullopt;
    }
    void apply(Seat p, const Action& a) {
      stones_ -= a;
      dealt_ = {p, a};
      if (stones_ == 0) {
        winner_ = p;
        return;
      }
      order_.pop_front();
      order_.push_back(p);
    }
    void eject(Seat p) {
      order_.erase(std::remove(order_.begin(), order_.end(), p), order_.end());
      if (dealt_ && dealt_->first == p) dealt_.reset();
      if (winner_ == p) winner_.reset();
    }
    Standings standings() const {
      Standings s;
      for (Seat p : order_) (winner_ == p ? s.winners : s.losers).push_back(p);
      s.scores.assign(taken_.begin(), taken_.end());
      return s;
    }
    std::optional<Hand> dealt(Seat p) const {
      if (dealt_ && dealt_->first == p) return Hand{dealt_->second};
      return std::nullopt;
    }
    void acknowledge(Seat p) {
      if (dealt_ && dealt_->first == p) taken_[p] += dealt_->second;
      dealt_.reset();
    }

    int stones_ = 0;
    std::deque<Seat> order_;
    std::vector<std::int64_t> taken_;
    std::optional<std::pair<Seat, int>> dealt_;
    std::optional<Seat> winner_;
  };

  static State start(const Config& c, Rng&) {
    State s;
    s.stones_ = c.stones;
    for (Seat p = 0; p < c.players; ++p) s.order_.push_back(p);
    s.taken_.assign(c.players, 0);
    return s;
  }
  static Json encode(const Action& a) { return a; }
  static Json encode(const View& v) { return {{"stones", v.stones}, {"mine", v.mine}}; }
  static Json encode(const Config& c) { return {{"players", c.players}, {"stones", c.stones}}; }
  static Json encode(const Hand& h) { return h; }
  static Expected<Action> decode_action(const Json& j) {
    if (!j.is_number_integer()) return fail("not an integer");
    return j.get<int>();
  }
  static Expected<View> decode_view(const Json& j) {
    return View{j.value("stones", 0), j.value("mine", 0)};
  }
  static Expected<Hand> decode_hand(const Json& j) { return j.get<Hand>(); }
  static Expected<Config> decode_config(const Json& j) {
    return Config{j.value("players", 2), j.value("stones", 10)};
  }
};

static_assert(Game<Countdown>);
static_assert(DealsHands<Countdown>);
static_assert(HandCodec<Countdown>);

// A player that takes `take` stones (capped to what is left) and records what it was told.
class Taker : public Player<Countdown> {
 public:
  explicit Taker(int take = 1) : take_(take) {}
  std::string name() override { return "taker"; }
  void setup(const Countdown::View&) override { ++setups; }
  int take_turn(const Countdown::View& v) override { return std::min(take_, v.stones); }
  void new_tiles(const Countdown::Hand& h) override { received += h.at(0); }
  void win(bool w) override { won = w; }

  int setups = 0;
  int received = 0;
  std::optional<bool> won;

 private:
  int take_;
};

}  // namespace arbiter::toy
