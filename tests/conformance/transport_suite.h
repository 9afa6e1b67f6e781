// The transport half of the turn-based conformance suite, for any game hosted by
// turn_based_entry<G>() (arena/turn_based_entry.h): full matches through the entry's play with
// house bots in process, with every seat a program over stdio ("cmd:", the sandbox off), and
// with every seat a TCP client on 127.0.0.1 that signs up with its token. Each match must end
// with sane standings and no ejection, its log must replay identically through the entry's
// replay, and the same seed must play the same game (apart from timing) over every transport.
//
// A game's test instantiates it with one line, and lets the suite's main serve its bots:
//   INSTANTIATE_TYPED_TEST_SUITE_P(TransportConformance, TransportConformance, my::MyGame);
//   (optionally: template <> std::vector<std::string> arbiter::conformance::suite_bots<...>())
//   int main(int argc, char** argv) { return arbiter::conformance::suite_main<my::MyGame>(argc,
//   argv); } (several games in one binary: suite_main<G1, G2, ...>, as
//   tests/conformance/conformance_test.cpp)
// The program player of the stdio seats is the test binary itself, run as
//   TEST --serve-bot BOT --game NAME --seed N [--name NAME]
// which serves house bot BOT on stdin/stdout with remote/serve.h.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "arena/registry.h"
#include "arena/seating.h"
#include "arena/turn_based_entry.h"
#include "core/seed_tree.h"
#include "referee/game_log.h"
#include "remote/fd_channel.h"
#include "remote/serve.h"
#include "remote/tcp.h"

namespace arbiter::conformance {

// The house bots the suite seats, in seat order: by default the first kMinSeats of the game's
// plain house bots (no options), over again if it has fewer (a game's test may define its own);
// the seeds the suite plays.
template <class G>
std::vector<std::string> suite_bots() {
  std::vector<std::string> plain, bots;
  for (const auto& bot : G::house_bots())
    if (bot.find_first_of("+=") == std::string::npos) plain.push_back(bot);
  for (int i = 0; i < G::kMinSeats && !plain.empty(); ++i)
    bots.push_back(plain[static_cast<std::size_t>(i) % plain.size()]);
  return bots;
}
inline constexpr std::uint64_t kTransportSeeds[] = {1, 2, 42};

// Serves house bot `bot` of G (seeded with `seed`) on `channel` until the game is over; 0 when
// it ended normally.
template <TurnBasedHosted G>
int serve_bot(Channel& channel, const std::string& name, const std::string& bot,
              std::uint64_t seed) {
  auto player = G::make_bot(name, bot, seed);
  if (!player) {
    fmt::print(stderr, "{}\n", player.error().message);
    return 2;
  }
  EjectionNotice notice;
  auto end = serve<G>(channel, **player, &notice);
  if (!end) {
    fmt::print(stderr, "{}\n", end.error().message);
    return 1;
  }
  if (*end == ServeEnd::ejected) {
    fmt::print(stderr, "ejected ({} during {}): {}\n", notice.verdict, notice.call, notice.detail);
    return 1;
  }
  return 0;
}

// The test binary's main: `--serve-bot BOT --game NAME --seed N [--name NAME]` serves BOT of
// the game called NAME among Gs over stdio (the program player of the stdio seats); anything
// else runs the tests.
template <TurnBasedHosted... Gs>
int suite_main(int argc, char** argv) {
  if (argc >= 2 && std::string_view(argv[1]) == "--serve-bot") {
    std::string bot, game, name = "bot";
    std::uint64_t seed = 1;
    for (int i = 1; i + 1 < argc; i += 2) {
      const std::string_view flag = argv[i];
      if (flag == "--serve-bot") bot = argv[i + 1];
      else if (flag == "--game") game = argv[i + 1];
      else if (flag == "--seed") seed = std::stoull(argv[i + 1]);
      else if (flag == "--name") name = argv[i + 1];
    }
    FdChannel channel(dup(STDIN_FILENO), dup(STDOUT_FILENO), Framing::lines, ChannelLimits{},
                      "stdio");
    int code = -1;
    ((code < 0 && game == Gs::kName ? (code = serve_bot<Gs>(channel, name, bot, seed)) : 0), ...);
    if (code < 0) {
      fmt::print(stderr, "--game \"{}\": not a game of this suite\n", game);
      return 2;
    }
    return code;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

enum class Transport { in_process, stdio, tcp };

inline std::string_view transport_name(Transport t) {
  switch (t) {
    case Transport::in_process: return "in process";
    case Transport::stdio: return "stdio";
    case Transport::tcp: return "tcp";
  }
  return "?";
}

// One match of G through its entry over `transport`; the log's lines.
template <TurnBasedHosted G>
std::vector<Json> play_over(Transport transport, std::uint64_t seed) {
  const GameEntry entry = turn_based_entry<G>();
  const std::vector<std::string> bots = suite_bots<G>();
  PlaySpec spec;
  spec.seed = seed;
  spec.options.per_call = std::chrono::seconds(10);
  GameLog log(nullptr, /*keep=*/true);
  spec.options.log = &log;
  // Remote seats play the same bots with the seeds the entry would give them in process.
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  for (std::size_t i = 0; i < bots.size(); ++i) {
    const std::string name = fmt::format("p{}", i);
    const std::uint64_t bot_seed = seeds::seat(seed, static_cast<Seat>(i));
    switch (transport) {
      case Transport::in_process:
        spec.roster.push_back({name, bots[i]});
        break;
      case Transport::stdio:
        spec.roster.push_back({name, fmt::format("cmd:{} --serve-bot {} --game {} --seed {} --name {}",
                                                 self, bots[i], G::kName, bot_seed, name)});
        break;
      case Transport::tcp:
        spec.roster.push_back({name, "tcp"});
        break;
    }
  }
  // Program players run unwalled and uncapped in memory (a sanitizer build reserves much).
  spec.hosting.program.sandbox.reset();
  spec.hosting.program.limits.memory_bytes.reset();
  spec.hosting.accept_timeout = std::chrono::seconds(20);
  std::vector<std::thread> clients;
  std::mutex mu;
  std::vector<int> client_codes;
  if (transport == Transport::tcp) {
    spec.hosting.tokens = make_seat_tokens(spec.roster);
    spec.hosting.on_listen = [&](std::uint16_t port, std::size_t) {
      // Clients sign up in reverse seat order: the seat is the token's, not the arrival's.
      for (std::size_t i = bots.size(); i-- > 0;) {
        const std::string name = spec.roster[i].name;
        const std::string token = token_of(spec.hosting, name);
        const std::string bot = bots[i];
        const std::uint64_t bot_seed = seeds::seat(seed, static_cast<Seat>(i));
        clients.emplace_back([&, port, name, token, bot, bot_seed] {
          const auto deadline = Deadline::after(SteadyClock::instance(), std::chrono::seconds(10));
          int code = 3;
          if (auto channel = tcp_connect("127.0.0.1", port, deadline, Framing::lines)) {
            if ((*channel)->send(Json(token), deadline)) code = serve_bot<G>(**channel, name, bot, bot_seed);
          }
          std::lock_guard lock(mu);
          client_codes.push_back(code);
        });
      }
    };
  }
  auto outcome = play_match(entry, spec);
  for (auto& t : clients) t.join();
  const std::string where = fmt::format("{} over {}, seed {}", G::kName, transport_name(transport), seed);
  EXPECT_TRUE(outcome) << where << ": " << (outcome ? "" : outcome.error().message);
  if (!outcome) return {};
  const MatchResult& result = outcome->result;
  EXPECT_FALSE(result.aborted) << where;
  for (const auto& e : result.ejections)
    ADD_FAILURE() << where << ": seat " << e.seat << " ejected (" << to_string(e.why) << " in "
                  << e.call << "): " << e.detail;
  EXPECT_FALSE(result.winners.empty()) << where;
  std::set<Seat> winners(result.winners.begin(), result.winners.end());
  EXPECT_EQ(winners.size(), result.winners.size()) << where << ": a seat won twice";
  for (Seat w : result.winners) EXPECT_TRUE(w >= 0 && w < static_cast<Seat>(bots.size())) << where;
  EXPECT_EQ(result.scores.size(), bots.size()) << where;
  EXPECT_EQ(outcome->names.size(), bots.size()) << where;
  if (transport == Transport::tcp) {
    EXPECT_EQ(client_codes, std::vector<int>(bots.size(), 0)) << where << ": a client failed";
  }
  // The log replays identically through the entry.
  EXPECT_GT(log.lines().size(), 2u) << where;
  auto replayed = entry.replay(log.lines());
  EXPECT_TRUE(replayed) << where << ": " << (replayed ? "" : replayed.error().message);
  if (replayed) {
    EXPECT_TRUE(replayed->identical) << where << ": " << replayed->difference;
    EXPECT_EQ(replayed->result.winners, result.winners) << where;
  }
  return log.lines();
}

template <class G>
class TransportConformance : public ::testing::Test {};
TYPED_TEST_SUITE_P(TransportConformance);

TYPED_TEST_P(TransportConformance, HouseBotsInProcessPlayAndReplay) {
  for (std::uint64_t seed : kTransportSeeds) play_over<TypeParam>(Transport::in_process, seed);
}

TYPED_TEST_P(TransportConformance, ProgramsOverStdioPlayAndReplay) {
  for (std::uint64_t seed : kTransportSeeds) play_over<TypeParam>(Transport::stdio, seed);
}

TYPED_TEST_P(TransportConformance, TcpClientsPlayAndReplay) {
  for (std::uint64_t seed : kTransportSeeds) play_over<TypeParam>(Transport::tcp, seed);
}

// The same bots with the same seeds play the same game whoever hosts them: the logs agree apart
// from timing.
TYPED_TEST_P(TransportConformance, EveryTransportPlaysTheSameGame) {
  for (std::uint64_t seed : kTransportSeeds) {
    const auto here = play_over<TypeParam>(Transport::in_process, seed);
    for (Transport t : {Transport::stdio, Transport::tcp}) {
      const auto there = play_over<TypeParam>(t, seed);
      EXPECT_EQ(first_difference(here, there), std::nullopt)
          << "seed " << seed << " over " << transport_name(t);
    }
  }
}

// The entry refuses what an organizer gets wrong before anything starts.
TYPED_TEST_P(TransportConformance, TheEntryRefusesBadSeatingAndConfig) {
  using G = TypeParam;
  const GameEntry entry = turn_based_entry<G>();
  EXPECT_EQ(entry.name, G::kName);
  EXPECT_FALSE(entry.check_bot("no-such-bot-at-all"));
  for (const auto& bot : suite_bots<G>()) EXPECT_TRUE(entry.check_bot(bot)) << bot;
  EXPECT_TRUE(entry.check_config(nullptr, G::kMinSeats));
  EXPECT_FALSE(entry.check_config(Json::array(), G::kMinSeats));
  EXPECT_FALSE(entry.check_config(nullptr, G::kMaxSeats + 1));
  PlaySpec spec;
  for (int i = 0; i < G::kMinSeats; ++i) spec.roster.push_back({fmt::format("p{}", i), "no-such-bot-at-all"});
  EXPECT_FALSE(play_match(entry, spec));
}

REGISTER_TYPED_TEST_SUITE_P(TransportConformance, HouseBotsInProcessPlayAndReplay,
                            ProgramsOverStdioPlayAndReplay, TcpClientsPlayAndReplay,
                            EveryTransportPlaysTheSameGame, TheEntryRefusesBadSeatingAndConfig);

}  // namespace arbiter::conformance
