// speed-scrabble-bot: arbiter's house Speed Scrabble racers (solver, slow) as an external program
// speaking the wire protocol on stdin/stdout (docs/protocol.md, docs/games/speed_scrabble.md §3).
// It loads the dictionary the setup message names.
//   arbiter play speed_scrabble --player a:solver --player
//   "b:cmd:build/release/bots/speed-scrabble-bot --bot slow=0.5"
#include <unistd.h>

#include <iostream>

#include <CLI/CLI.hpp>

#include "games/speed_scrabble/bots.h"
#include "remote/fd_channel.h"

int main(int argc, char** argv) {
  using namespace arbiter;
  CLI::App app{
      "speed-scrabble-bot: a Speed Scrabble player speaking arbiter's wire protocol on stdio"};
  std::string bot = "solver";
  app.add_option("--bot", bot, "solver, slow or slow=SECONDS (default solver)");
  CLI11_PARSE(app, argc, argv);
  auto spec = parse_racer(bot);
  if (!spec) {
    std::cerr << "speed-scrabble-bot: " << spec.error().message << std::endl;
    return 2;
  }
  FdChannel channel(dup(STDIN_FILENO), dup(STDOUT_FILENO), Framing::lines, ChannelLimits{},
                    "stdio");
  ChannelLink link(channel);
  speed_scrabble::SolverRacer racer("speed-scrabble-bot", *spec, nullptr);
  racer.race(link);
  return 0;
}
