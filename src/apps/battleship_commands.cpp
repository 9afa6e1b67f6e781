// `arbiter battleship eval`: how many shots a house bot needs to sink a random fleet, and (with
// --against) how often it beats another bot, over seeded games.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "apps/commands.h"
#include "games/battleship/eval.h"

namespace arbiter::cli {

void add_battleship_commands(CLI::App& app, int& exit_code) {
  auto* bs = app.add_subcommand("battleship", "Battleship tools");
  bs->require_subcommand(1);
  struct Args {
    std::string bot = "density";
    std::string against;
    int games = 10000;
    std::string seed = "1";
  };
  auto args = std::make_shared<Args>();
  auto* eval = bs->add_subcommand(
      "eval",
      "Shots a bot needs to sink a uniformly random standard fleet (10x10, 5-4-3-3-2, sunk "
      "announced), over seeded games; with --against, its win rate in both seat orders");
  eval->add_option("--bot", args->bot, "random | hunt | tracker | density (default density)");
  eval->add_option("--games", args->games, "How many games (default 10000)")
      ->check(CLI::Range(1, 10'000'000));
  eval->add_option("--seed", args->seed, "The master seed (default 1)")->check(natural_validator());
  eval->add_option("--against", args->against, "A second bot: report head-to-head wins instead");
  eval->callback([&exit_code, args] {
    auto bot = battleship::parse_bot(args->bot);
    if (!bot) {
      report_error("--bot: " + bot.error().message);
      exit_code = kBadInput;
      return;
    }
    const std::uint64_t seed = std::stoull(args->seed);
    if (!args->against.empty()) {
      auto other = battleship::parse_bot(args->against);
      if (!other) {
        report_error("--against: " + other.error().message);
        exit_code = kBadInput;
        return;
      }
      const double share = battleship::head_to_head(*bot, *other, args->games, seed);
      fmt::print("{} against {}: {} games, seed {}, both seat orders\n", args->bot, args->against,
                 args->games, seed);
      fmt::print("{} wins {:.1f}% (draws count half)\n", args->bot, share * 100);
      return;
    }
    const auto r = battleship::eval_shots_to_sink(*bot, args->games, seed);
    fmt::print("{}: {} games, seed {}, shots to sink a random standard fleet\n", args->bot, r.games,
               seed);
    fmt::print("mean {:.2f}  median {:.1f}  p95 {:.1f}  max {}\n", r.mean, r.median, r.p95, r.max);
    fmt::print("time per game {:.1f} us\n", r.seconds_per_game * 1e6);
  });
}

}  // namespace arbiter::cli
