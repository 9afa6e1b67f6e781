// The one seed tree: a tournament's master seed gives every match its seed, and a match's seed
// gives every seed the match uses (the deal, each seat's house bot, the real-time orders). Every
// seed arbiter uses outside a game's own rules is derived here, so that a match replays bit for
// bit from its seed alone and `arbiter play --seed S` reproduces any match of a tournament.
//
//   master ─┬─ match(master, i) ─┬─ start(match)          the game's deal (Rules::start)
//           │                    ├─ seat(match, p)        seat p's house bot
//           │                    ├─ program(key, match, p) seat p's program (ARBITER_SEED)
//           │                    ├─ setup_order(match)    a real-time game's start line
//           │                    └─ notice_order(match)   a real-time game's notice batches
//           └─ swiss_round(master, r)                     the pairing of a Swiss round
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "core/rng.h"
#include "core/seat.h"
#include "core/sha256.h"

namespace arbiter::seeds {

// The size of a program key (program() below), drawn with core/entropy.h.
inline constexpr std::size_t kProgramKeyBytes = 16;

// The first 8 bytes, little-endian, of HMAC-SHA-256 under `key` of `label` and `values` (each 8
// bytes, little-endian): one-way, so that its output tells nothing of the key.
inline std::uint64_t keyed(std::string_view key, std::string label,
                           std::initializer_list<std::uint64_t> values) {
  for (const std::uint64_t v : values)
    for (int i = 0; i < 8; ++i) label.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  const auto digest = hmac_sha256(key, label);
  std::uint64_t out = 0;
  for (int i = 7; i >= 0; --i) out = (out << 8) | digest[static_cast<std::size_t>(i)];
  return out;
}

// One-way too: a match's seed is shown once its seed group is over, while later matches are
// still to be played; from it nobody may work back to the master seed and so to their deals (an
// unkeyed mix such as Rng::derive can be inverted). Keyed by the master seed's 8 bytes.
inline std::uint64_t match(std::uint64_t master, std::int64_t index) {
  std::string key;
  for (int i = 0; i < 8; ++i) key.push_back(static_cast<char>((master >> (8 * i)) & 0xff));
  return keyed(key, "arbiter match seed", {static_cast<std::uint64_t>(index)});
}
// A ladder's matchmaking draws of one round (league/matchmaker.h): keyed like match(), since the
// seatings it leads to are public while the ladder runs.
inline std::uint64_t ladder_round(std::uint64_t master, std::int64_t round) {
  std::string key;
  for (int i = 0; i < 8; ++i) key.push_back(static_cast<char>((master >> (8 * i)) & 0xff));
  return keyed(key, "arbiter ladder round", {static_cast<std::uint64_t>(round)});
}
inline std::uint64_t swiss_round(std::uint64_t master, std::int64_t round) {
  return Rng::derive(master, "swiss", static_cast<std::uint64_t>(round));
}
inline std::uint64_t start(std::uint64_t match_seed) { return Rng::derive(match_seed, "start"); }
inline std::uint64_t seat(std::uint64_t match_seed, Seat seat) {
  return Rng::derive(match_seed, "seat", static_cast<std::uint64_t>(seat));
}
// Keyed and one-way, unlike the others: a program given it (an untrusted one) can work back
// neither to the match seed nor, by trying master seeds and places in the schedule, to which
// match it plays, since it lacks `key` (the run's program key: a secret of 16 bytes drawn for
// every tournament and every play, kept in the store, never shown to programs). The first 8
// bytes, little-endian, of HMAC-SHA-256 under the key of a label, the seed and the seat.
inline std::uint64_t program(std::string_view key, std::uint64_t match_seed, Seat seat) {
  return keyed(key, "arbiter program seed", {match_seed, static_cast<std::uint64_t>(seat)});
}
inline std::uint64_t setup_order(std::uint64_t match_seed) {
  return Rng::derive(match_seed, "setup-order");
}
inline std::uint64_t notice_order(std::uint64_t match_seed) {
  return Rng::derive(match_seed, "notice-order");
}

}  // namespace arbiter::seeds
