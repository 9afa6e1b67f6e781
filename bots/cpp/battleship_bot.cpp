// battleship-bot: a Battleship house bot (random, hunt, tracker, density or posterior, with any
// placement option) as a separate program speaking the wire protocol over stdin/stdout, through
// the project's serve(). Its draws come from ARBITER_SEED when the referee gives one, so a match
// replays. Example: arbiter play battleship -p a:hunt -p 'b:cmd:battleship-bot --strategy density'
#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include <CLI/CLI.hpp>

#include "games/battleship/game.h"
#include "remote/fd_channel.h"
#include "remote/serve.h"

int main(int argc, char** argv) {
  using namespace arbiter;
  CLI::App app{"battleship-bot: a Battleship player speaking arbiter's wire protocol"};
  std::string strategy = "hunt";
  app.add_option(
      "--strategy", strategy,
      "A house bot as arbiter play takes it, e.g. hunt or density+evasive (default hunt)");
  CLI11_PARSE(app, argc, argv);

  std::uint64_t seed = 1;
  if (const char* given = std::getenv("ARBITER_SEED"); given != nullptr)
    seed = std::strtoull(given, nullptr, 10);
  auto player = battleship::Battleship::make_bot("battleship-bot", strategy, seed);
  if (!player) {
    std::cerr << "battleship-bot: " << player.error().message << std::endl;
    return 2;
  }
  FdChannel channel(dup(STDIN_FILENO), dup(STDOUT_FILENO), Framing::lines, ChannelLimits{},
                    "stdio");
  EjectionNotice notice;
  auto end = serve<battleship::Battleship>(channel, **player, &notice);
  if (!end) {
    std::cerr << "battleship-bot: " << end.error().message << std::endl;
    return 1;
  }
  if (*end == ServeEnd::ejected) {
    std::cerr << "battleship-bot: ejected (" << notice.verdict << " during " << notice.call
              << "): " << notice.detail << std::endl;
    return 1;
  }
  return 0;
}
