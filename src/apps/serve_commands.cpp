// `arbiter serve`: the viewer over a store, and the live viewer that `play --serve` and
// `tournament run --serve` start beside a match (docs/viewer.md).
#include <arpa/inet.h>
#include <pthread.h>
#include <cmath>
#include <csignal>
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "apps/commands.h"
#include "core/units.h"
#include "league/check.h"
#include "remote/tcp.h"
#include "server/viewer_server.h"
#include "tournament/store.h"

namespace arbiter::cli {

namespace {

// SIGINT and SIGTERM blocked in this thread and every thread started after, so that
// wait_for_stop_signal() can take them.
void block_stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

void wait_for_stop_signal() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  int sig = 0;
  sigwait(&set, &sig);
}

struct ServeArgs {
  std::string store;
  std::string listen = "127.0.0.1:8080";
  std::string web;
  bool show_stderr = false;
  bool submissions = false;
  std::string max_upload = "16M";
  std::size_t uploads_per_hour = 20;
  std::size_t uploads_per_address = 200;
  std::size_t tests_per_hour = 10;
  int builders = 1;
  int check_matches = 10;
  double check_time = 300;
  double build_time = 300;
  double session_hours = 12;
  std::string cache;
  std::string tls_cert;
  std::string tls_key;
  std::string behind_proxy;
};

bool loopback(const std::string& host) {
  return host == "127.0.0.1" || host == "localhost" || host == "::1";
}

// An IPv4 address as the listener names its peers ("127.0.0.1"), or nothing.
std::optional<std::string> parse_ip(const std::string& text) {
  in_addr addr{};
  if (::inet_pton(AF_INET, text.c_str(), &addr) != 1 || addr.s_addr == INADDR_ANY)
    return std::nullopt;  // 0.0.0.0 is nobody's address: every connection would be refused
  char out[INET_ADDRSTRLEN];
  return std::string(::inet_ntop(AF_INET, &addr, out, sizeof out));
}

// How browsers reach the server: its own TLS (--tls-cert, --tls-key), or a proxy's
// (--behind-proxy); or an Error naming the flag.
Expected<void> transport_options(const ServeArgs& a, server::ServerOptions& o) {
  if (a.tls_cert.empty() != a.tls_key.empty())
    return fail("--tls-cert and --tls-key go together: the certificate and its private key");
  if (!a.tls_cert.empty() && !a.behind_proxy.empty())
    return fail("--tls-cert and --behind-proxy: choose one (the proxy speaks TLS to browsers)");
  if (!a.tls_cert.empty()) {
    auto tls = server::TlsContext::load(a.tls_cert, a.tls_key);
    if (!tls) return std::unexpected(tls.error());
    o.desk.tls = *tls;
  }
  if (!a.behind_proxy.empty()) {
    auto proxy = parse_ip(a.behind_proxy);
    if (!proxy)
      return fail(
          fmt::format("--behind-proxy {}: expected the proxy's IP address, such as "
                      "127.0.0.1",
                      a.behind_proxy));
    o.desk.proxy = *proxy;
  }
  return {};
}

// The submission server's options from the flags, or an Error naming the flag.
Expected<void> submission_options(const ServeArgs& a, server::ServerOptions& o) {
  if (!a.submissions) return {};
  if (!loopback(o.host) && !o.desk.tls && o.desk.proxy.empty())
    return fail(
        fmt::format("--listen {}: logins and uploads need TLS beyond this machine: give "
                    "--tls-cert and --tls-key, or --behind-proxy ADDR for a proxy that speaks "
                    "TLS (docs/competition.md); or listen on 127.0.0.1 and reach it through an "
                    "SSH tunnel",
                    o.host));
  auto cap = parse_size(a.max_upload);
  if (!cap || *cap == 0)
    return fail(fmt::format("--max-upload {}: expected a size such as 16M", a.max_upload));
  o.submissions = true;
  o.max_upload = *cap;
  o.session_lifetime = std::chrono::seconds(std::llround(a.session_hours * 3600));
  auto& s = o.submission;
  s.builders = a.builders;
  s.uploads_per_hour = a.uploads_per_hour;
  s.uploads_per_address = a.uploads_per_address;
  s.tests_per_hour = a.tests_per_hour;
  s.add.caps.packed_bytes = *cap;
  s.add.build.time = std::chrono::milliseconds(std::llround(a.build_time * 1000));
  if (!a.cache.empty()) s.add.cache = a.cache;
  league::CheckOptions check;
  check.matches = a.check_matches;
  check.time = std::chrono::milliseconds(std::llround(a.check_time * 1000));
  s.check = check;
  return {};
}

Expected<server::ServerOptions> server_options(const std::string& listen, const std::string& web,
                                               std::string_view what) {
  auto at = parse_address(listen, what, /*any_port=*/true);
  if (!at) return std::unexpected(at.error());
  server::ServerOptions o;
  o.host = at->host;
  o.port = at->port;
  o.web_root = web.empty() ? server::default_web_root() : std::filesystem::path(web);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(o.web_root / "index.html", ec))
    return fail(fmt::format("--web {}: not the viewer's folder (it has no index.html)",
                            o.web_root.string()));
  return o;
}

std::string url_of(const server::ServerOptions& o, std::uint16_t port) {
  const bool v6 = o.host.find(':') != std::string::npos;
  return fmt::format("{}://{}{}{}:{}/", o.desk.tls ? "https" : "http", v6 ? "[" : "", o.host,
                     v6 ? "]" : "", port);
}

void warn_if_open(const server::ServerOptions& o) {
  if (o.host != "127.0.0.1" && o.host != "localhost" && o.host != "::1")
    report_error(fmt::format("warning: the viewer listens on {}: anyone who can reach it can read "
                             "the store's matches and logs",
                             o.host));
}

int serve(const ServeArgs& a) {
  auto options = server_options(a.listen, a.web, "--listen");
  if (!options) {
    report_error(options.error().message);
    return kBadInput;
  }
  auto store = tournament::open_store(a.store, tournament::OpenMode::existing);
  if (!store) {
    report_error("--store " + store.error().message);
    return kBadInput;
  }
  options->show_stderr = a.show_stderr;
  if (auto ok = transport_options(a, *options); !ok) {
    report_error(ok.error().message);
    return kBadInput;
  }
  if (auto ok = submission_options(a, *options); !ok) {
    report_error(ok.error().message);
    return kBadInput;
  }
  block_stop_signals();
  server::ViewerServer viewer(*options, store->get(), nullptr);
  auto port = viewer.bind();
  if (!port) {
    report_error("--listen: " + port.error().message);
    return kBadInput;
  }
  warn_if_open(*options);
  viewer.start();
  const std::string url = url_of(*options, *port);
  fmt::print("arbiter: the viewer of {} is at {} (Ctrl-C stops it)\n", a.store, url);
  if (a.submissions)
    fmt::print(
        "  submissions: log in at {0}login.html with a token from arbiter author add;\n"
        "         or curl -H 'Authorization: Bearer TOKEN' -F archive=@bot.tar.gz "
        "{0}api/bots\n",
        url);
  fmt::print(
      "  pages: {0} (every tournament and ladder), {0}tournament.html?id=ID (standings, "
      "matches),\n"
      "         {0}match.html?t=ID&i=N (one match, replayed), {0}ladder.html?id=ID "
      "(leaderboard)\n"
      "  API:   {0}api/tournaments, .../ID, .../ID/standings, .../ID/matches, "
      ".../ID/matches/N, .../ID/matches/N/log, {0}api/ladders, .../ID, .../ID/entrants/E, "
      ".../ID/head-to-head?a=E&b=F (docs/viewer.md)\n",
      url);
  std::fflush(stdout);
  wait_for_stop_signal();
  viewer.stop();
  return 0;
}

}  // namespace

LiveViewer::LiveViewer() = default;
LiveViewer::~LiveViewer() {
  if (server_) server_->stop();
}

Expected<void> LiveViewer::start(const std::string& listen, tournament::Store* store) {
  auto options = server_options(listen, "", "--serve");
  if (!options) return std::unexpected(options.error());
  server_ = std::make_unique<server::ViewerServer>(*options, store, &live_);
  auto port = server_->bind();
  if (!port) return fail("--serve: " + port.error().message);
  warn_if_open(*options);
  url_ = url_of(*options, *port);
  server_->start();
  return {};
}

void add_serve_command(CLI::App& app, int& exit_code) {
  static ServeArgs args;
  auto* cmd = app.add_subcommand(
      "serve", "Serve the viewer: tournaments, standings and every stored match in a browser");
  cmd->add_option("--store", args.store, "The result store, sqlite:FILE or postgresql://...")
      ->required();
  cmd->add_option("--listen", args.listen,
                  "HOST:PORT to listen on (default 127.0.0.1:8080; port 0: any free port)");
  cmd->add_option("--web", args.web, "The viewer's files (default: this build's web/ folder)");
  cmd->add_flag("--show-stderr", args.show_stderr,
                "Show on each ladder entrant's page the tail of its own stderr of its finished "
                "matches (off: a bot's debug output is its author's)");
  cmd->add_flag("--submissions", args.submissions,
                "Also take logins and bot uploads (docs/competition.md): authors upload "
                "archives and follow their builds; beyond 127.0.0.1 only with TLS "
                "(--tls-cert or --behind-proxy)");
  cmd->add_option("--max-upload", args.max_upload,
                  "With --submissions: the largest upload "
                  "(default 16M)");
  cmd->add_option("--uploads-per-hour", args.uploads_per_hour,
                  "With --submissions: uploads an author may make an hour (default 20)")
      ->check(CLI::Range(1, 10000));
  cmd->add_option("--uploads-per-address", args.uploads_per_address,
                  "With --submissions: uploads from one address an hour, whoever sends them "
                  "(default 200: a lab behind one NAT shares it)")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--tests-per-hour", args.tests_per_hour,
                  "With --submissions: unrated test matches an author may ask for an hour "
                  "(default 10)")
      ->check(CLI::Range(1, 10000));
  cmd->add_option("--builders", args.builders,
                  "With --submissions: versions built and checked at once (default 1)")
      ->check(CLI::Range(1, 64));
  cmd->add_option("--check-matches", args.check_matches,
                  "With --submissions: matches of the check an upload must pass (default 10)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--check-time", args.check_time,
                  "With --submissions: seconds the check may take (default 300)")
      ->check(seconds_validator(1, 3600));
  cmd->add_option("--build-time", args.build_time,
                  "With --submissions: seconds a build may take (default 300)")
      ->check(seconds_validator(1, 3600));
  cmd->add_option("--session-hours", args.session_hours,
                  "With --submissions: hours a browser stays logged in (default 12)")
      ->check(CLI::Range(0.01, 24.0 * 30));
  cmd->add_option("--bot-cache", args.cache,
                  "With --submissions: where built files are unpacked for the check");
  cmd->add_option("--tls-cert", args.tls_cert,
                  "Serve HTTPS with this certificate chain (PEM); needs --tls-key")
      ->check(CLI::ExistingFile);
  cmd->add_option("--tls-key", args.tls_key, "The certificate's private key (PEM)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--behind-proxy", args.behind_proxy,
                  "Take connections only from the reverse proxy at this IP address, which "
                  "speaks TLS to browsers and names each client in X-Forwarded-For "
                  "(docs/competition.md has an nginx configuration)");
  cmd->footer(
      "Without --submissions the server only reads: it never writes to the store and never "
      "calls a player.\n"
      "Pages: / (every tournament and ladder), tournament.html?id=ID (standings, matches),\n"
      "  match.html?t=ID&i=N (one match, replayed; live while it is played),\n"
      "  ladder.html?id=ID (leaderboard), bot.html?l=ID&e=E (an entrant), h2h.html?l=ID&a=E&b=F.\n"
      "JSON API (docs/viewer.md): /api/tournaments, /api/tournaments/ID, .../ID/standings,\n"
      "  .../ID/matches (?offset ?limit ?round ?outcome ?player ?ejected ?verdict),\n"
      "  .../ID/matches/N, .../ID/matches/N/log, .../ID/live, .../ID/matches/N/stream;\n"
      "  /api/ladders, /api/ladders/ID, .../ID/entrants/E, .../ID/head-to-head?a=E&b=F.\n"
      "Example:\n"
      "  arbiter serve --store sqlite:demo-logs/demo.db    then open http://127.0.0.1:8080/");
  cmd->callback([&exit_code] { exit_code = serve(args); });
}

}  // namespace arbiter::cli
