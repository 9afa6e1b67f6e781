// `arbiter q <harness>`: the course's test harnesses reading JSON values on stdin and writing one
// JSON value on stdout (docs/games/q.md §4).
#include <chrono>
#include <cmath>
#include <functional>
#include <iostream>

#include <fmt/format.h>

#include "apps/commands.h"
#include "apps/q_course/harness.h"

namespace arbiter::cli {
namespace {

namespace harness = arbiter::q::harness;
using Harness = std::function<Expected<Json>(const std::vector<Json>&)>;

int run_harness(const std::string& name, const Harness& harness) {
  auto in = read_json_values(std::cin);
  if (!in) {
    report_error(fmt::format("q {}: {}", name, in.error().message));
    return kBadInput;
  }
  if (in->empty()) {
    report_error(fmt::format("q {}: no input: expected JSON values on standard input", name));
    return kBadInput;
  }
  auto out = harness(*in);
  if (!out) {
    report_error(out.error().message);
    return kBadInput;
  }
  std::cout << dump(*out) << std::endl;
  return 0;
}

}  // namespace

void add_q_net_commands(CLI::App* q, int& exit_code);

void add_q_commands(CLI::App& app, int& exit_code) {
  auto* q = app.add_subcommand(
      "q", "The Q game's course harnesses (JSON on stdin, one JSON value on stdout)");
  q->require_subcommand(1);

  struct Rule {
    const char* name;
    const char* help;
    Expected<Json> (*fn)(const std::vector<Json>&);
  };
  for (const Rule& r :
       {Rule{"xmap", "M3: JMap, JTile -> the coordinates where the tile fits", harness::xmap},
        Rule{"xlegal", "M4: JPub, JPlacements -> the extended JMap or false", harness::xlegal},
        Rule{"xscore", "M5: JMap, JPlacements -> the placement's score", harness::xscore},
        Rule{"xstrategy", "M6: JStrategy, JPub -> one strategy step", harness::xstrategy}}) {
    auto* sub = q->add_subcommand(r.name, r.help);
    sub->callback([&exit_code, r] { exit_code = run_harness(r.name, r.fn); });
  }

  struct Game {
    const char* name;
    const char* help;
    Expected<Json> (*fn)(const std::vector<Json>&, const harness::GameOptions&);
  };
  for (const Game& g :
       {Game{"xgames", "M7: JState, JActors -> Result (bonuses 6/6)", harness::xgames},
        Game{"xgames-with-observer", "M8: JState, JActors with cheats -> Result (bonuses 8/4)",
             harness::xgames_with_observer},
        Game{"xbaddies", "M9: JState, JActorsB with loops -> Result (bonuses 8/4)",
             harness::xbaddies}}) {
    auto* sub = q->add_subcommand(g.name, g.help);
    auto per_call = std::make_shared<double>(6.0);
    auto show = std::make_shared<bool>(false);
    sub->add_option("--per-call", *per_call, "Seconds a player may take per call (default 6)")
        ->check(seconds_validator());
    sub->add_flag("--show", *show, "Observe: stream the game log (JSON lines) to stderr");
    sub->callback([&exit_code, g, per_call, show] {
      harness::GameOptions options;
      options.per_call = std::chrono::milliseconds(std::llround(*per_call * 1000));
      if (*show) options.observe = &std::cerr;
      exit_code =
          run_harness(g.name, [&](const std::vector<Json>& in) { return g.fn(in, options); });
    });
  }
  add_q_net_commands(q, exit_code);
}

void add_q_net_commands(CLI::App* q, int& exit_code) {
  struct Net {
    std::uint16_t port = 0;
    bool port_given = false;
    double time_scale = 1.0;
    std::string host = "127.0.0.1";
  };
  auto server = std::make_shared<Net>();
  auto* xserver = q->add_subcommand(
      "xserver", "M10: ServerConfig on stdin -> sign up TCP players on PORT, print the Result");
  xserver->add_option("port", server->port, "The port to listen on (overrides the config's)")
      ->each([server](const std::string&) { server->port_given = true; });
  xserver->add_option("--host", server->host, "The address to listen on (default 127.0.0.1)");
  xserver
      ->add_option("--time-scale", server->time_scale,
                   "Multiply every duration of the config (default 1: the course's timing)")
      ->check(number_validator(0.01, 10, "a factor"));
  xserver->callback([&exit_code, server] {
    exit_code = run_harness("xserver", [&](const std::vector<Json>& in) -> Expected<Json> {
      if (in.size() != 1)
        return fail(
            fmt::format("xserver: expected 1 JSON value (ServerConfig), got {}", in.size()));
      harness::NetOptions options;
      options.time_scale = server->time_scale;
      options.host = server->host;
      options.observe = &std::cerr;
      options.diagnostics = &std::cerr;
      return harness::xserver(
          in[0], server->port_given ? std::optional(server->port) : std::nullopt, options);
    });
  });

  auto client = std::make_shared<Net>();
  auto* xclients = q->add_subcommand(
      "xclients", "M10: ClientConfig on stdin -> run one TCP client per actor against PORT");
  xclients->add_option("port", client->port, "The server's port (overrides the config's)")
      ->each([client](const std::string&) { client->port_given = true; });
  xclients
      ->add_option("--time-scale", client->time_scale,
                   "Multiply every duration of the config (default 1: the course's timing)")
      ->check(number_validator(0.01, 10, "a factor"));
  xclients->callback([&exit_code, client] {
    auto in = read_json_values(std::cin);
    if (!in) {
      report_error("q xclients: " + in.error().message);
      exit_code = kBadInput;
      return;
    }
    harness::NetOptions options;
    options.time_scale = client->time_scale;
    auto done = harness::xclients(
        *in, client->port_given ? std::optional(client->port) : std::nullopt, options);
    if (!done) {
      report_error(done.error().message);
      exit_code = kBadInput;
    } else if (!done->empty()) {
      report_error(fmt::format("q xclients: {} client(s) could not connect, e.g. {}", done->size(),
                               done->front()));
      exit_code = kFailed;
    }
  });
}

}  // namespace arbiter::cli
