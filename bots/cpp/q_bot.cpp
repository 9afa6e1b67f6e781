// q-bot: a Q house bot (dag or ldasg, or one of the course's scripted bad actors) as a separate
// program, through the project's serve(): over stdin/stdout by default, or as a TCP client that
// signs up with its name. Example: arbiter play q -p a:dag -p 'b:cmd:q-bot --strategy ldasg'
#include <unistd.h>

#include <iostream>

#include <CLI/CLI.hpp>

#include "games/q/bots.h"
#include "remote/fd_channel.h"
#include "remote/serve.h"
#include "remote/tcp.h"

int main(int argc, char** argv) {
  using namespace arbiter;
  CLI::App app{"q-bot: a Q player speaking arbiter's wire protocol"};
  std::string name = "qbot";
  std::string strategy = "dag";
  std::string tcp;
  std::string token;
  app.add_option("--name", name, "The player's name (default qbot)");
  app.add_option("--token", token,
                 "The seat's token to sign up with (tcp; the organizer has it from arbiter play)");
  app.add_option("--strategy", strategy, "dag or ldasg (default dag)");
  app.add_option("--tcp", tcp, "HOST:PORT of a referee to connect to instead of stdio");
  CLI11_PARSE(app, argc, argv);

  auto spec = q::decode_actor_spec(Json::array({name, strategy}), q::Dialect::m9);
  if (!spec) {
    std::cerr << "q-bot: " << spec.error().message << std::endl;
    return 2;
  }
  auto player = q::make_actor(*spec);

  std::unique_ptr<Channel> channel;
  if (tcp.empty()) {
    channel = std::make_unique<FdChannel>(dup(STDIN_FILENO), dup(STDOUT_FILENO), Framing::lines,
                                          ChannelLimits{}, "stdio");
  } else {
    auto at = parse_address(tcp, "--tcp", /*any_port=*/false);
    if (!at) {
      std::cerr << "q-bot: " << at.error().message << std::endl;
      return 2;
    }
    const auto deadline = Deadline::after(SteadyClock::instance(), std::chrono::seconds(10));
    auto connected = tcp_connect(at->host, at->port, deadline, Framing::lines);
    if (!connected) {
      std::cerr << "q-bot: " << connected.error().message << std::endl;
      return 1;
    }
    channel = std::move(*connected);
    if (token.empty()) {
      std::cerr << "q-bot: --tcp needs --token (the seat's token from the organizer)" << std::endl;
      return 2;
    }
    if (!channel->send(Json(token), deadline)) return 1;
  }
  EjectionNotice notice;
  auto end = serve<q::Q>(*channel, *player, &notice);
  if (!end) {
    std::cerr << "q-bot: " << end.error().message << std::endl;
    return 1;
  }
  if (*end == ServeEnd::ejected) {
    std::cerr << "q-bot: ejected (" << notice.verdict << " during " << notice.call
              << "): " << notice.detail << std::endl;
    return 1;
  }
  return 0;
}
