// `arbiter battleship eval`: how many shots house bots need to sink a random fleet, side by side,
// and (with --against) how often one beats another, over seeded games.
#include <iostream>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "apps/commands.h"
#include "games/battleship/codec.h"
#include "games/battleship/eval.h"

namespace arbiter::cli {

void add_battleship_commands(CLI::App& app, int& exit_code) {
  auto* bs = app.add_subcommand("battleship", "Battleship tools");
  bs->require_subcommand(1);
  struct Args {
    std::vector<std::string> bots;
    std::string against;
    int games = 10000;
    std::string seed = "1";
    std::string config;
    std::string fleets = "uniform";
  };
  auto args = std::make_shared<Args>();
  auto* eval = bs->add_subcommand(
      "eval",
      "Shots each bot needs to sink a fleet (uniformly random unless --fleets says otherwise; by "
      "default the standard one: 10x10, 5-4-3-3-2, sunk announced), over the same seeded games, "
      "side by side; with --against, the first bot's win rate in both seat orders");
  eval->add_option(
      "--bot", args->bots,
      "random | hunt | tracker | density | posterior, once per bot to compare (default: all but "
      "the slower posterior)");
  eval->add_option("--games", args->games, "How many games (default 10000)")
      ->check(CLI::Range(1, 10'000'000));
  eval->add_option("--seed", args->seed, "The master seed (default 1)")->check(natural_validator());
  eval->add_option("--config", args->config,
                   "The game's rules as for arbiter play battleship, e.g. '{\"salvo\": true}' "
                   "(salvo: counts volleys) or '{\"rows\": 8, \"cols\": 8, \"no_touch\": true}'");
  eval->add_option("--fleets", args->fleets,
                   "How the target fleets are placed: uniform (default), evasive or hardest");
  eval->add_option("--against", args->against, "A second bot: report head-to-head wins instead");
  eval->callback([&exit_code, args] {
    const std::vector<std::string> names =
        args->bots.empty() ? std::vector<std::string>{"random", "hunt", "tracker", "density"}
                           : args->bots;
    std::vector<battleship::BotSpec> bots;
    for (const auto& name : names) {
      auto bot = battleship::parse_bot(name);
      if (!bot) {
        report_error("--bot: " + bot.error().message);
        exit_code = kBadInput;
        return;
      }
      bots.push_back(*bot);
    }
    battleship::Config config;
    if (!args->config.empty()) {
      auto j = parse_json(args->config);
      if (!j || !j->is_object()) {
        report_error("--config: expected a JSON object");
        exit_code = kBadInput;
        return;
      }
      auto decoded = battleship::decode_config(*j);
      if (!decoded) {
        report_error("--config: " + decoded.error().message);
        exit_code = kBadInput;
        return;
      }
      config = *decoded;
    }
    auto fleets = battleship::parse_bot("random+" + args->fleets);
    if (!fleets) {
      std::string known;
      for (const auto& [kind, name] : battleship::kPlacerNames)
        known += fmt::format("{}{}", known.empty() ? "" : ", ", name);
      report_error(fmt::format("--fleets: unknown placement \"{}\" ({})", args->fleets, known));
      exit_code = kBadInput;
      return;
    }
    const std::uint64_t seed = std::stoull(args->seed);
    if (!args->against.empty() && fleets->placer != battleship::PlacerKind::uniform) {
      report_error(
          "--fleets: not with --against; head to head each bot places its own fleet "
          "(name it as BOT+PLACEMENT, e.g. density+hardest)");
      exit_code = kBadInput;
      return;
    }
    // A config that decodes may still leave no room for the fleet: the placement says so, here
    // before anything is printed, or in a later game.
    try {
      Rng probe(Rng::derive(seed, "fleet", 0));
      (void)battleship::place_uniform(config, probe);
      if (!args->against.empty()) {
        auto other = battleship::parse_bot(args->against);
        if (!other) {
          report_error("--against: " + other.error().message);
          exit_code = kBadInput;
          return;
        }
        const double share =
            battleship::head_to_head(bots.front(), *other, args->games, seed, config);
        fmt::print("{} against {}: {} games, seed {}, both seat orders\n", names.front(),
                   args->against, args->games, seed);
        fmt::print("{} wins {:.1f}% (draws count half)\n", names.front(), share * 100);
        return;
      }
      fmt::print("{} to sink {}: {} games each, seed {}, the same fleets for every bot\n",
                 config.salvo ? "volleys" : "shots",
                 fleets->placer == battleship::PlacerKind::uniform
                     ? std::string("a random fleet")
                     : fmt::format("fleets placed by {}", to_string(fleets->placer)),
                 args->games, seed);
      fmt::print("{:<10} {:>8}  {:>17}  {:>7} {:>5} {:>5} {:>5}  {:>10}\n", "bot", "mean",
                 "95% CI of mean", "median", "p90", "p95", "max", "us/game");
      for (std::size_t i = 0; i < bots.size(); ++i) {
        const auto r =
            battleship::eval_shots_to_sink(bots[i], args->games, seed, config, fleets->placer);
        fmt::print(
            "{:<10} {:>8.2f}  [{:>6.2f}, {:>6.2f}]  {:>7.1f} {:>5.0f} {:>5.0f} {:>5}  {:>10.1f}\n",
            names[i], r.mean, r.ci_low, r.ci_high, r.median, r.p90, r.p95, r.max,
            r.seconds_per_game * 1e6);
      }
    } catch (const std::invalid_argument& e) {
      report_error(fmt::format("--config: {}", e.what()));
      exit_code = kBadInput;
    }
  });
}

}  // namespace arbiter::cli
