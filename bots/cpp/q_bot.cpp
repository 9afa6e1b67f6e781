// q-bot: a Q house bot (dag or ldasg, or one of the course's scripted bad actors) as a separate
// program, through the project's serve(): over stdin/stdout by default, or as a TCP client that
// signs up with its name. Example: arbiter play q -p a:dag -p 'b:cmd:q-bot --strategy ldasg'
#include <unistd.h>

#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>

#include "games/q/bots.h"
#include "remote/fd_channel.h"
#include "remote/serve.h"
#include "remote/tcp.h"

namespace {

// The bot, computing for `think` of its own CPU time before every move (the fairness experiment
// of docs/benchmarks.md: a bot that uses most of its limit, on a busy machine).
class Thinker final : public arbiter::Player<arbiter::q::Q> {
 public:
  Thinker(std::shared_ptr<arbiter::Player<arbiter::q::Q>> inner, arbiter::Duration think)
      : inner_(std::move(inner)), think_(think) {}
  std::string name() override { return inner_->name(); }
  void setup(const arbiter::q::Q::View& view) override { inner_->setup(view); }
  arbiter::q::Q::Action take_turn(const arbiter::q::Q::View& view) override {
    const arbiter::Duration until = arbiter::thread_cpu_time() + think_;
    volatile std::uint64_t sink = 0;
    while (arbiter::thread_cpu_time() < until)
      for (int i = 0; i < 1000; ++i) sink = sink + static_cast<std::uint64_t>(i);
    return inner_->take_turn(view);
  }
  void new_tiles(const arbiter::HandOf_t<arbiter::q::Q>& tiles) override {
    inner_->new_tiles(tiles);
  }
  void win(bool won) override { inner_->win(won); }

 private:
  std::shared_ptr<arbiter::Player<arbiter::q::Q>> inner_;
  arbiter::Duration think_;
};

}  // namespace

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
  double think_ms = 0;
  app.add_option("--think", think_ms, "Milliseconds of CPU time to spend before every move")
      ->check(CLI::Range(0.0, 600000.0));
  CLI11_PARSE(app, argc, argv);

  auto spec = q::decode_actor_spec(Json::array({name, strategy}), q::Dialect::m9);
  if (!spec) {
    std::cerr << "q-bot: " << spec.error().message << std::endl;
    return 2;
  }
  std::shared_ptr<Player<q::Q>> player = q::make_actor(*spec);
  if (think_ms > 0)
    player = std::make_shared<Thinker>(
        player,
        std::chrono::duration_cast<Duration>(std::chrono::duration<double, std::milli>(think_ms)));

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
