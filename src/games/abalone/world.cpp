// The Concurrent Abalone world: docs/games/abalone.md §3's rules over the pieces and scores, the
// bot API's queries, and the world's JSON and text forms.
#include "games/abalone/world.h"

#include <algorithm>
#include <cassert>
#include <initializer_list>
#include <utility>

#include <fmt/format.h>

#include "core/names.h"

namespace arbiter::abalone {
namespace {

// Keeps next_pid_ from overflowing for positions set up from outside.
constexpr Pid kMaxPid = 1'000'000'000;

constexpr NameTable<Team, 2> kTeamNames{{{Team::black, "black"}, {Team::white, "white"}}};

constexpr NameTable<EndReason, 6> kEndReasonNames{{{EndReason::none, "none"},
                                                   {EndReason::winning_score, "winning-score"},
                                                   {EndReason::higher_score, "higher-score"},
                                                   {EndReason::more_pieces, "more-pieces"},
                                                   {EndReason::draw, "draw"},
                                                   {EndReason::forfeit, "forfeit"}}};

Expected<Hex> hex_field(const Json& j, std::string_view key, std::string_view what) {
  auto text = to_string(j[key], fmt::format("{}: {}", what, key));
  if (!text) return std::unexpected(text.error());
  auto hex = parse_hex(*text);
  if (!hex)
    return fail(
        fmt::format("{}: {} must be a hex name like B-1, got {}", what, key, excerpt(j[key])));
  return *hex;
}

}  // namespace

std::string_view team_name(Team t) {
  return name_of(kTeamNames, t);
}
std::optional<Team> team_from_name(std::string_view name) {
  return from_name(kTeamNames, name);
}
std::string_view end_reason_name(EndReason r) {
  return name_of(kEndReasonNames, r);
}

// ---- Config ----

Json encode_config(const Config& c) {
  return {{"winning_score", c.winning_score},       {"max_pieces", c.max_pieces},
          {"cycles_per_turn", c.cycles_per_turn},   {"game_length", c.game_length},
          {"black_start", hex_name(c.black_start)}, {"white_start", hex_name(c.white_start)}};
}

Expected<Config> decode_config(const Json& j) {
  constexpr std::string_view what = "Abalone config";
  if (auto ok = only_keys(j,
                          {"winning_score", "max_pieces", "cycles_per_turn", "game_length",
                           "black_start", "white_start"},
                          what);
      !ok)
    return std::unexpected(ok.error());
  Config c;
  struct IntKey {
    std::string_view key;
    int* slot;
    std::int64_t lo, hi;
  };
  for (const IntKey& k : {IntKey{"winning_score", &c.winning_score, 1, 1000},
                          IntKey{"max_pieces", &c.max_pieces, 1, 30},
                          IntKey{"cycles_per_turn", &c.cycles_per_turn, 1, 1'000'000},
                          IntKey{"game_length", &c.game_length, 1, 1'000'000'000}}) {
    if (!j.contains(k.key)) continue;
    auto v = int_field(j, k.key, k.lo, k.hi, what);
    if (!v) return std::unexpected(v.error());
    *k.slot = *v;
  }
  for (auto [key, slot] :
       {std::pair{"black_start", &c.black_start}, std::pair{"white_start", &c.white_start}}) {
    if (!j.contains(key)) continue;
    auto v = hex_field(j, key, what);
    if (!v) return std::unexpected(v.error());
    *slot = *v;
  }
  if (c.black_start == c.white_start)
    return fail(
        fmt::format("{}: black_start and white_start are both {}", what, hex_name(c.black_start)));
  return c;
}

// ---- Construction ----

World World::start(const Config& config) {
  assert(on_board(config.black_start) && on_board(config.white_start) &&
         config.black_start != config.white_start);
  World w;
  w.config_ = config;
  for (auto [team, hex] :
       {std::pair{Team::black, config.black_start}, std::pair{Team::white, config.white_start}}) {
    const Pid pid = w.next_pid_++;
    w.pieces_.push_back({pid, team, hex, kNoDir});
    w.cell(hex) = pid;
  }
  return w;
}

Expected<World> World::from_pieces(const Config& config, std::vector<Piece> pieces,
                                   std::array<int, 2> scores) {
  constexpr std::string_view what = "Abalone position";
  std::ranges::sort(pieces, {}, &Piece::pid);
  World w;
  w.config_ = config;
  std::array<int, 2> counts{0, 0};
  for (const Piece& p : pieces) {
    if (p.pid < 1 || p.pid > kMaxPid)
      return fail(fmt::format("{}: PID {} is not in 1..{}", what, p.pid, kMaxPid));
    if (p.pid < w.next_pid_) return fail(fmt::format("{}: PID {} appears twice", what, p.pid));
    if (!on_board(p.hex))
      return fail(
          fmt::format("{}: piece {} is off the board at ({}, {})", what, p.pid, p.hex.r, p.hex.d));
    if (w.cell(p.hex) != 0)
      return fail(fmt::format("{}: pieces {} and {} are both on {}", what, w.cell(p.hex), p.pid,
                              hex_name(p.hex)));
    if (!is_commit_dir(p.dir))
      return fail(fmt::format("{}: piece {} has direction {}, not 0..6", what, p.pid, p.dir));
    if (++counts[team_index(p.team)] > config.max_pieces)
      return fail(fmt::format("{}: {} has more than {} pieces", what, team_name(p.team),
                              config.max_pieces));
    w.cell(p.hex) = p.pid;
    w.next_pid_ = p.pid + 1;
  }
  for (Team t : kTeams) {
    const int s = scores[team_index(t)];
    if (s < 0 || s >= config.winning_score)
      return fail(fmt::format("{}: {}'s score {} is not in 0..{}", what, team_name(t), s,
                              config.winning_score - 1));
  }
  w.pieces_ = std::move(pieces);
  w.scores_ = scores;
  return w;
}

// ---- Helpers ----

const Piece* World::find(Pid pid) const {
  auto it = std::ranges::lower_bound(pieces_, pid, {}, &Piece::pid);
  return it != pieces_.end() && it->pid == pid ? &*it : nullptr;
}

Piece* World::find_mutable(Pid pid) {
  return const_cast<Piece*>(std::as_const(*this).find(pid));
}

std::optional<Pid> World::at(Hex h) const {
  if (!on_board(h) || cell(h) == 0) return std::nullopt;
  return cell(h);
}

int World::piece_count(Team t) const {
  return static_cast<int>(std::ranges::count(pieces_, t, &Piece::team));
}

void World::place(Piece& p, Hex to) {
  assert(on_board(to) && cell(to) == 0);
  cell(p.hex) = 0;
  cell(to) = p.pid;
  p.hex = to;
}

void World::remove(Pid pid) {
  auto it = std::ranges::lower_bound(pieces_, pid, {}, &Piece::pid);
  assert(it != pieces_.end() && it->pid == pid);
  cell(it->hex) = 0;
  pieces_.erase(it);
}

void World::award(Team t) {
  if (++scores_[team_index(t)] >= config_.winning_score && !result_.over)
    result_ = {true, t, EndReason::winning_score};
}

// ---- Changes ----

std::optional<Pid> World::spawn(Pid spawner, Rng& rng) {
  if (over()) return std::nullopt;
  const Piece* parent = find(spawner);
  if (parent == nullptr) return std::nullopt;
  const Team team = parent->team;
  if (!may_spawn(team) || piece_count(team) >= config_.max_pieces) return std::nullopt;
  std::vector<Hex> free;
  for (Dir dir = 1; dir <= kDirCount; ++dir) {
    const Hex h = neighbour(parent->hex, dir);
    if (on_board(h) && cell(h) == 0) free.push_back(h);
  }
  if (free.empty()) return std::nullopt;
  const Hex hex = free[rng.below(free.size())];
  const Pid pid = next_pid_++;
  // The new PID is the largest, so pieces_ stays sorted.
  pieces_.push_back({pid, team, hex, kNoDir});
  cell(hex) = pid;
  return pid;
}

bool World::commit(Pid pid, std::int64_t dir) {
  if (over() || !is_commit_dir(dir)) return false;
  Piece* p = find_mutable(pid);
  if (p == nullptr) return false;
  p->dir = static_cast<Dir>(dir);
  return true;
}

std::vector<Pid> World::chain_through(const Piece& p) const {
  auto member = [&](Hex h) {
    const Piece* q = on_board(h) && cell(h) != 0 ? find(cell(h)) : nullptr;
    return q != nullptr && q->team == p.team && q->dir == p.dir ? q : nullptr;
  };
  std::vector<Pid> chain;
  for (Hex h = neighbour(p.hex, opposite(p.dir)); const Piece* q = member(h);
       h = neighbour(h, opposite(p.dir)))
    chain.push_back(q->pid);
  std::ranges::reverse(chain);
  chain.push_back(p.pid);
  for (Hex h = neighbour(p.hex, p.dir); const Piece* q = member(h); h = neighbour(h, p.dir))
    chain.push_back(q->pid);
  return chain;
}

ChainMove World::resolve_chain(std::vector<Pid> chain) {
  const Piece& head = *find(chain.back());
  const Team team = head.team;
  ChainMove m{head.dir, std::move(chain), head.hex};
  const Dir dir = m.dir;
  const int length = static_cast<int>(m.chain.size());
  std::array<Hex, 3> front{};
  front[0] = neighbour(head.hex, dir);
  front[1] = neighbour(front[0], dir);
  front[2] = neighbour(front[1], dir);
  auto code = [&](Hex h) { return inspect(team, h.r, h.d); };
  auto open = [&](Hex h) {  // where a pushed enemy may go: an empty hex or off the board
    const ObjectCode c = code(h);
    return c == ObjectCode::empty || c == ObjectCode::offboard;
  };
  int pushes = 0;
  if (code(front[0]) == ObjectCode::empty) {
    m.legal = true;
  } else if (code(front[0]) == ObjectCode::opiece) {
    if (open(front[1])) {
      m.legal = length >= 2;
      pushes = 1;
    } else if (code(front[1]) == ObjectCode::opiece && open(front[2])) {
      m.legal = length >= 3;
      pushes = 2;
    }
  }
  for (Pid pid : m.chain) find_mutable(pid)->dir = kNoDir;
  if (!m.legal) return m;

  for (int i = 0; i < pushes; ++i) m.pushed.push_back(cell(front[static_cast<std::size_t>(i)]));
  // Farthest first, so that every piece moves into a hex already vacated.
  for (int i = pushes - 1; i >= 0; --i) {
    const Pid pid = m.pushed[static_cast<std::size_t>(i)];
    const Hex to = front[static_cast<std::size_t>(i + 1)];
    if (on_board(to)) {
      place(*find_mutable(pid), to);
    } else {
      m.killed = pid;
      remove(pid);
      award(team);
    }
  }
  for (auto it = m.chain.rbegin(); it != m.chain.rend(); ++it) {
    Piece& p = *find_mutable(*it);
    place(p, neighbour(p.hex, dir));
  }
  return m;
}

Resolution World::resolve(Team team) {
  Resolution res{team, {}};
  if (over()) return res;
  for (;;) {
    // pieces_ is in PID order, so the first committed piece has the lowest PID.
    auto first = std::ranges::find_if(
        pieces_, [&](const Piece& p) { return p.team == team && p.dir != kNoDir; });
    if (first == pieces_.end()) break;
    res.chains.push_back(resolve_chain(chain_through(*first)));
    if (over()) break;
  }
  turn_ended_[team_index(team)] = true;
  return res;
}

std::vector<Pid> Resolution::killed() const {
  std::vector<Pid> out;
  for (const ChainMove& m : chains)
    if (m.killed) out.push_back(*m.killed);
  return out;
}

std::optional<Piece> World::kill(Pid pid) {
  if (over()) return std::nullopt;
  const Piece* p = find(pid);
  if (p == nullptr) return std::nullopt;
  const Piece gone = *p;
  remove(pid);
  award(enemy_of(gone.team));
  return gone;
}

void World::forfeit(Team team) {
  if (!over()) result_ = {true, enemy_of(team), EndReason::forfeit};
}

void World::at_game_end() {
  if (over()) return;
  const int sb = score(Team::black), sw = score(Team::white);
  const int pb = piece_count(Team::black), pw = piece_count(Team::white);
  if (sb != sw)
    result_ = {true, sb > sw ? Team::black : Team::white, EndReason::higher_score};
  else if (pb != pw)
    result_ = {true, pb > pw ? Team::black : Team::white, EndReason::more_pieces};
  else
    result_ = {true, std::nullopt, EndReason::draw};
}

// ---- Queries ----

MyStat World::mystat(Pid pid) const {
  const Piece* p = find(pid);
  assert(p != nullptr);
  return {p->hex.r, p->hex.d, p->dir};
}

TeamStat World::teamstat(Team t) const {
  const int pieces = piece_count(t);
  return {pieces, score(t), may_spawn(t) ? std::max(0, config_.max_pieces - pieces) : 0};
}

ObjectCode World::inspect(Team asker, std::int64_t r, std::int64_t d) const {
  if (!on_board(r, d)) return ObjectCode::offboard;
  const Pid pid = cell({static_cast<int>(r), static_cast<int>(d)});
  if (pid == 0) return ObjectCode::empty;
  return find(pid)->team == asker ? ObjectCode::piece : ObjectCode::opiece;
}

std::vector<ObjectCode> World::look(Pid pid, std::int64_t dir) const {
  if (!is_move_dir(dir)) return {};
  const Piece* p = find(pid);
  assert(p != nullptr);
  std::vector<ObjectCode> out;
  Hex h = p->hex;
  do {
    h = neighbour(h, static_cast<Dir>(dir));
    out.push_back(inspect(p->team, h.r, h.d));
  } while (on_board(h));
  return out;
}

std::array<ObjectCode, kDirCount> World::scan(Pid pid) const {
  const Piece* p = find(pid);
  assert(p != nullptr);
  std::array<ObjectCode, kDirCount> out{};
  for (Dir dir = 1; dir <= kDirCount; ++dir) {
    const Hex h = neighbour(p->hex, dir);
    out[static_cast<std::size_t>(dir - 1)] = inspect(p->team, h.r, h.d);
  }
  return out;
}

Standings World::standings() const {
  Standings st;
  st.scores = {score(Team::black), score(Team::white)};
  if (!over()) return st;
  if (!result_.winner) {
    st.winners = {0, 1};
  } else {
    st.winners = {static_cast<Seat>(team_index(*result_.winner))};
    st.losers = {static_cast<Seat>(team_index(enemy_of(*result_.winner)))};
  }
  return st;
}

// ---- Forms ----

Json encode_world(const World& w) {
  Json pieces = Json::array();
  for (const Piece& p : w.pieces())
    pieces.push_back({{"pid", p.pid},
                      {"team", team_name(p.team)},
                      {"hex", hex_name(p.hex)},
                      {"r", p.hex.r},
                      {"d", p.hex.d},
                      {"dir", p.dir}});
  Json j = {
      {"pieces", std::move(pieces)},
      {"scores", {{"black", w.score(Team::black)}, {"white", w.score(Team::white)}}},
      {"may_spawn", {{"black", w.may_spawn(Team::black)}, {"white", w.may_spawn(Team::white)}}}};
  if (w.over()) {
    const Result& r = w.result();
    j["result"] = {{"winner", r.winner ? Json(team_name(*r.winner)) : Json(nullptr)},
                   {"reason", end_reason_name(r.reason)}};
  }
  return j;
}

Json encode_resolution(const Resolution& r) {
  Json chains = Json::array();
  for (const ChainMove& m : r.chains) {
    Json c = {{"dir", m.dir},
              {"chain", m.chain},
              {"head", hex_name(m.head)},
              {"legal", m.legal},
              {"pushed", m.pushed}};
    if (m.killed) c["killed"] = *m.killed;
    chains.push_back(std::move(c));
  }
  return {{"team", team_name(r.team)}, {"chains", std::move(chains)}};
}

std::string render(const World& w) {
  std::string out;
  for (int r = kRadius; r >= -kRadius; --r) {
    // Each row is indented by its distance from the middle row, so diagonals line up.
    out += fmt::format("{}{}", static_cast<char>('A' + r + kRadius),
                       std::string(static_cast<std::size_t>(1 + (r < 0 ? -r : r) * 2), ' '));
    bool first = true;
    for (int d = -kRadius; d <= kRadius; ++d) {
      if (!on_board(r, d)) continue;
      if (!first) out += "  ";
      first = false;
      if (auto pid = w.at({r, d})) {
        const Piece& p = *w.find(*pid);
        out += fmt::format("{}{}", p.team == Team::black ? 'b' : 'w', p.dir);
      } else {
        out += " .";
      }
    }
    out += '\n';
  }
  out += fmt::format("black {} white {}\n", w.score(Team::black), w.score(Team::white));
  return out;
}

}  // namespace arbiter::abalone
