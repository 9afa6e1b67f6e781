// The viewer's server over real HTTP on 127.0.0.1: the API contract (status codes, JSON shapes,
// paging and filters, bad ids and queries), the walls (read-only, no path out of web/), the live
// stream (every line in order; nothing hidden before the end) and the spectator projections.
#include "server/viewer_server.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "arena/registry.h"
#include "referee/game_log.h"
#include "server/live.h"
#include "tournament/spec.h"
#include "tournament/store.h"
#include "tournament/worker.h"

namespace arbiter::server {
namespace {

namespace fs = std::filesystem;
using tournament::Schedule;
using tournament::TournamentSpec;

std::string temp_dir() {
  char dir[] = "/tmp/arbiter-server-XXXXXX";
  EXPECT_NE(mkdtemp(dir), nullptr);
  return dir;
}

// A store with two played tournaments (Q with a cheating bot, and Battleship), a web root with
// one page and a secret beside it, and a server on a free port.
class ServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(temp_dir());
    auto store = tournament::open_store("sqlite:" + *dir_ + "/s.db");
    ASSERT_TRUE(store.has_value()) << store.error().message;
    store_ = store->release();
    TournamentSpec q;
    q.name = "qleague";
    q.game = "q";
    q.players = {{"dag", "dag"}, {"ldasg", "ldasg"}, {"cheat", "dag+cheat=no-fit"}};
    q.rounds = 2;
    TournamentSpec b;
    b.name = "sea";
    b.game = "battleship";
    b.players = {{"density", "density"}, {"hunt", "hunt"}};
    for (const auto& spec : {q, b}) {
      auto id = tournament::create_tournament(*store_, spec);
      ASSERT_TRUE(id.has_value()) << id.error().message;
      tournament::WorkerOptions options;
      options.threads = 2;
      options.only = *id;
      ASSERT_TRUE(tournament::run_worker(*store_, options).has_value());
    }
    fs::create_directories(*dir_ + "/web/js");
    std::ofstream(*dir_ + "/web/index.html") << "<!doctype html><title>viewer</title>";
    std::ofstream(*dir_ + "/web/js/app.js") << "export const x = 1;";
    std::ofstream(*dir_ + "/secret.txt") << "not for the web";
    fs::create_symlink(*dir_ + "/secret.txt", *dir_ + "/web/link.txt");
    live_ = new LiveMatches();
    ServerOptions o;
    o.host = "127.0.0.1";
    o.port = 0;
    o.web_root = *dir_ + "/web";
    server_ = new ViewerServer(o, store_, live_);
    auto port = server_->bind();
    ASSERT_TRUE(port.has_value()) << port.error().message;
    port_ = *port;
    server_->start();
  }
  static void TearDownTestSuite() {
    delete server_;
    delete live_;
    delete store_;
    fs::remove_all(*dir_);
    delete dir_;
  }

  static httplib::Client client() {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(std::chrono::seconds(20));
    return c;
  }
  static Json get_json(const std::string& path, int status = 200) {
    auto c = client();
    auto r = c.Get(path);
    EXPECT_TRUE(r) << path;
    if (!r) return nullptr;
    EXPECT_EQ(r->status, status) << path << ": " << r->body;
    EXPECT_EQ(r->get_header_value("Content-Type"), "application/json") << path;
    auto j = parse_json(r->body);
    EXPECT_TRUE(j.has_value()) << path << ": " << r->body;
    return j ? *j : Json();
  }

  static std::string* dir_;
  static tournament::Store* store_;
  static LiveMatches* live_;
  static ViewerServer* server_;
  static std::uint16_t port_;
};
std::string* ServerTest::dir_ = nullptr;
tournament::Store* ServerTest::store_ = nullptr;
LiveMatches* ServerTest::live_ = nullptr;
ViewerServer* ServerTest::server_ = nullptr;
std::uint16_t ServerTest::port_ = 0;

TEST_F(ServerTest, ListsTournamentsWithTheirProgress) {
  const Json j = get_json("/api/tournaments");
  ASSERT_EQ(j["tournaments"].size(), 2u);
  EXPECT_EQ(j["tournaments"][0]["name"], "qleague");
  EXPECT_EQ(j["tournaments"][0]["game"], "q");
  EXPECT_EQ(j["tournaments"][0]["progress"]["done"], 12);
  EXPECT_EQ(j["tournaments"][1]["game"], "battleship");
  const Json t = get_json("/api/tournaments/1");
  EXPECT_EQ(t["players"].size(), 3u);
  EXPECT_EQ(t["players"][2]["bot"], "dag+cheat=no-fit");
  EXPECT_EQ(t["schedule"], "round-robin");
  EXPECT_TRUE(t["seed"].is_string());  // seeds exceed what a JavaScript number holds
}

TEST_F(ServerTest, StandingsCrosstableAndChartAgreeWithTheStore) {
  const Json s = get_json("/api/tournaments/1/standings");
  ASSERT_EQ(s["standings"].size(), 3u);
  EXPECT_EQ(s["matches"], 12);
  EXPECT_EQ(s["standings"][2]["name"], "cheat");  // ejected in every match: last
  EXPECT_EQ(s["standings"][2]["ejections"], 8);
  const Json& cells = s["crosstable"]["cells"];
  double total = 0;
  for (std::size_t a = 0; a < 3; ++a)
    for (std::size_t b = 0; b < 3; ++b) {
      EXPECT_EQ(cells[a][b]["games"], a == b ? 0 : 4);
      total += cells[a][b]["points"].get<double>();
    }
  EXPECT_DOUBLE_EQ(total, 12.0);  // one point per two-player match
  ASSERT_EQ(s["elo_by_round"].size(), 2u);
  EXPECT_EQ(s["elo_by_round"][1]["round"], 1);
  EXPECT_EQ(s["elo_by_round"][1]["elo"].size(), 3u);
}

TEST_F(ServerTest, MatchesArePagedAndFiltered) {
  const Json all = get_json("/api/tournaments/1/matches?limit=5");
  EXPECT_EQ(all["total"], 12);
  ASSERT_EQ(all["matches"].size(), 5u);
  EXPECT_EQ(all["matches"][0]["index"], 0);
  const Json last = get_json("/api/tournaments/1/matches?limit=5&offset=10");
  ASSERT_EQ(last["matches"].size(), 2u);
  EXPECT_EQ(last["matches"][1]["index"], 11);
  const Json fouls = get_json("/api/tournaments/1/matches?verdict=foul&limit=500");
  EXPECT_EQ(fouls["total"], 8);
  for (const Json& m : fouls["matches"]) {
    EXPECT_EQ(m["ejections"][0]["name"], "cheat");
    EXPECT_EQ(m["ejections"][0]["why"], "foul");
  }
  EXPECT_EQ(get_json("/api/tournaments/1/matches?ejected=false")["total"], 4);
  EXPECT_EQ(get_json("/api/tournaments/1/matches?player=cheat")["total"], 8);
  EXPECT_EQ(get_json("/api/tournaments/1/matches?round=1")["total"], 6);
  EXPECT_EQ(get_json("/api/tournaments/1/matches?outcome=error")["total"], 0);
  EXPECT_EQ(get_json("/api/tournaments/1/matches?offset=100")["matches"].size(), 0u);
}

TEST_F(ServerTest, OneMatchHasItsReproduceCommandAndItsLog) {
  const Json m = get_json("/api/tournaments/2/matches/0");
  EXPECT_EQ(m["game"], "battleship");
  EXPECT_EQ(m["seats"], Json::array({"density", "hunt"}));
  EXPECT_NE(m["reproduce"].get<std::string>().find("arbiter play battleship"), std::string::npos);
  auto c = client();
  auto log = c.Get(m["log"].get<std::string>());
  ASSERT_TRUE(log);
  EXPECT_EQ(log->status, 200);
  auto lines = parse_json_values(log->body);
  ASSERT_TRUE(lines.has_value());
  EXPECT_EQ(lines->front()["type"], "match");
  EXPECT_EQ(lines->back()["type"], "result");
  EXPECT_EQ(lines->back()["scores"], m["scores"]);
  auto download = c.Get(m["log"].get<std::string>() + "?download=1");
  ASSERT_TRUE(download);
  EXPECT_NE(download->get_header_value("Content-Disposition").find("attachment"), std::string::npos);
  EXPECT_EQ(download->body, log->body);
}

// A log of 4 MiB is inflated piece by piece on its way out and arrives byte for byte; a log
// whose bytes rotted is still sent, with its damage in a header.
TEST(ServerLogs, ALargeLogArrivesWholeAndADamagedOneSaysSo) {
  const std::string dir = temp_dir();
  auto store = tournament::open_store("sqlite:" + dir + "/big.db");
  ASSERT_TRUE(store.has_value()) << store.error().message;
  TournamentSpec spec;
  spec.name = "big";
  spec.game = "battleship";
  spec.players = {{"a", "density"}, {"b", "hunt"}};
  spec.pairing = false;  // each match its own seed: its log is served once it ends
  auto id = tournament::create_tournament(**store, spec);
  ASSERT_TRUE(id.has_value()) << id.error().message;
  auto jobs = (*store)->claim("w", 10, std::chrono::seconds(60), *id);
  ASSERT_TRUE(jobs.has_value() && jobs->size() == 2);
  const Json result{{"winners", {0}}, {"ejections", Json::array()}, {"scores", {1, 0}}};
  std::string big = dump(Json{{"type", "match"}, {"seed", (*jobs)[0].spec["seed"]},
                              {"seats", {"a", "b"}}}) + "\n";
  for (int i = 0; big.size() < (std::size_t{4} << 20); ++i)
    big += fmt::format("{{\"type\":\"call\",\"seat\":{},\"n\":{}}}\n", i % 2, i * 7919 % 1000003);
  Json end = result;
  end["type"] = "result";
  big += dump(end) + "\n";
  ASSERT_TRUE((*store)->complete((*jobs)[0].id, "w", {result, big, 1.0, Json()}));
  ViewerServer server({"127.0.0.1", 0, dir, 8}, store->get(), nullptr);
  auto port = server.bind();
  ASSERT_TRUE(port.has_value());
  server.start();
  httplib::Client c("127.0.0.1", *port);
  c.set_read_timeout(std::chrono::seconds(30));
  auto r = c.Get(fmt::format("/api/tournaments/{}/matches/{}/log", *id, (*jobs)[0].index));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_FALSE(r->has_header("X-Arbiter-Damage")) << r->get_header_value("X-Arbiter-Damage");
  EXPECT_TRUE(r->body == big) << "got " << r->body.size() << " bytes of " << big.size();
  server.stop();
  // The second match's log claims another seed: sent, with the damage said.
  const std::string moved = dump(Json{{"type", "match"}, {"seed", 1}, {"seats", {"a", "b"}}}) +
                            "\n" + dump(end) + "\n";
  ASSERT_TRUE((*store)->complete((*jobs)[1].id, "w", {result, moved, 1.0, Json()}));
  ViewerServer again({"127.0.0.1", 0, dir, 8}, store->get(), nullptr);
  port = again.bind();
  ASSERT_TRUE(port.has_value());
  again.start();
  httplib::Client c2("127.0.0.1", *port);
  auto d = c2.Get(fmt::format("/api/tournaments/{}/matches/{}/log", *id, (*jobs)[1].index));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->status, 200);
  EXPECT_NE(d->get_header_value("X-Arbiter-Damage").find("seed"), std::string::npos);
  EXPECT_EQ(d->body, moved);
  again.stop();
  std::filesystem::remove_all(dir);
}

// A match dealt from the same seed as one still to be played (its pair, seats swapped) is served
// without its seed, reproduce command or log; the master seed waits for the whole tournament.
TEST(ServerHeld, SeedsAndLogsWaitForTheMatchesDealtFromThem) {
  const std::string dir = fs::temp_directory_path() / fmt::format("arbiter-held-{}", ::getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto store = tournament::open_store("sqlite:" + dir + "/held.db");
  ASSERT_TRUE(store.has_value()) << store.error().message;
  TournamentSpec spec = tournament::new_tournament_spec();
  spec.name = "held";
  spec.game = "battleship";
  spec.players = {{"a", "density"}, {"b", "hunt"}};
  auto id = tournament::create_tournament(**store, spec);
  ASSERT_TRUE(id.has_value()) << id.error().message;
  auto jobs = (*store)->claim("w", 10, std::chrono::seconds(60), *id);
  ASSERT_TRUE(jobs.has_value() && jobs->size() == 2);
  ASSERT_EQ((*jobs)[0].spec["seed"], (*jobs)[1].spec["seed"]);
  const std::string seed = dump((*jobs)[0].spec["seed"]);
  const auto play = [&](const tournament::Job& job) {
    ASSERT_TRUE((*store)->complete(job.id, "w", tournament::play_job(spec, job, {})));
  };
  // The first match ended with a foul whose detail names a tile of the fouling seat's hand,
  // dealt again in the pair.
  const Json fouled{{"winners", {0}},
                    {"ejections",
                     {{{"seat", 1},
                       {"why", "foul"},
                       {"call", "take_turn"},
                       {"detail", "no-fit: tile green/star at (0, 1) does not fit"}}}},
                    {"scores", {1, 0}}};
  const std::string header =
      dump(Json{{"type", "match"}, {"seed", (*jobs)[0].spec["seed"]}, {"seats", {"a", "b"}}});
  Json end = fouled;
  end["type"] = "result";
  ASSERT_TRUE((*store)->complete((*jobs)[0].id, "w",
                                 {fouled, header + "\n" + dump(end) + "\n", 1.0, Json()}));
  ViewerServer server({"127.0.0.1", 0, dir, 8}, store->get(), nullptr);
  auto port = server.bind();
  ASSERT_TRUE(port.has_value());
  server.start();
  httplib::Client c("127.0.0.1", *port);
  const auto get = [&](const std::string& path) {
    auto r = c.Get(fmt::format("/api/tournaments/{}{}", *id, path));
    EXPECT_TRUE(r) << path;
    return r ? std::make_pair(r->status, parse_json(r->body).value_or(Json()))
             : std::make_pair(0, Json());
  };
  const std::string first = fmt::format("/matches/{}", (*jobs)[0].index);
  auto [status, t] = get("");
  EXPECT_TRUE(t["seed"].is_null()) << t;
  auto [s1, row] = get(first);
  EXPECT_EQ(s1, 200);
  EXPECT_EQ(row["held"], true);
  EXPECT_FALSE(row.contains("seed")) << row;
  EXPECT_FALSE(row.contains("reproduce")) << row;
  EXPECT_EQ(row["winners"].size(), 1u);                // the outcome is no secret
  EXPECT_EQ(row["ejections"][0]["detail"], "no-fit");  // the tile it names is
  auto [s2, log] = get(first + "/log");
  EXPECT_EQ(s2, 409);
  EXPECT_NE(string_or(log, "error").find("shares its seed"), std::string::npos) << log;
  auto [s3, list] = get("/matches");
  EXPECT_EQ(list.dump().find(seed), std::string::npos) << list;
  play((*jobs)[1]);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // the snapshot's age
  auto [s4, t2] = get("");
  EXPECT_EQ(t2["seed"], std::to_string(spec.seed));
  auto [s5, row2] = get(first);
  EXPECT_EQ(row2["held"], false);
  EXPECT_EQ(row2["seed"], seed);
  EXPECT_NE(string_or(row2, "reproduce").find("--seed " + seed), std::string::npos) << row2;
  EXPECT_NE(row2["ejections"][0]["detail"].get<std::string>().find("green/star"),
            std::string::npos);
  auto r = c.Get(fmt::format("/api/tournaments/{}{}/log", *id, first));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  server.stop();
  fs::remove_all(dir);
}

TEST(ServerStoredBots, AMatchNamesTheVersionsItsStoredBotsPlayed) {
  const std::string dir = fs::temp_directory_path() / fmt::format("arbiter-stored-{}", ::getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto store = tournament::open_store("sqlite:" + dir + "/stored.db");
  ASSERT_TRUE(store.has_value()) << store.error().message;
  TournamentSpec spec = tournament::new_tournament_spec();
  spec.game = "battleship";
  spec.pairing = false;
  spec.players = {{"alice", "bot:alice@3"}, {"b", "hunt"}};
  spec.players[0].artifact = "sha256:" + std::string(64, 'a');
  auto id = tournament::create_tournament(**store, spec);
  ASSERT_TRUE(id.has_value()) << id.error().message;
  auto jobs = (*store)->claim("w", 10, std::chrono::seconds(60), *id);
  ASSERT_TRUE(jobs.has_value() && jobs->size() == 2);
  for (const auto& job : *jobs) {
    const Json result{{"winners", {0}}, {"ejections", Json::array()}, {"scores", {17, 3}}};
    const std::string header =
        dump(Json{{"type", "match"}, {"seed", job.spec["seed"]}, {"seats", {"alice", "b"}}});
    Json end = result;
    end["type"] = "result";
    ASSERT_TRUE(
        (*store)->complete(job.id, "w", {result, header + "\n" + dump(end) + "\n", 1.0, Json()}));
  }
  ViewerServer server({"127.0.0.1", 0, dir, 8}, store->get(), nullptr);
  auto port = server.bind();
  ASSERT_TRUE(port.has_value());
  server.start();
  httplib::Client c("127.0.0.1", *port);
  auto r = c.Get(fmt::format("/api/tournaments/{}/matches/{}", *id, (*jobs)[0].index));
  ASSERT_TRUE(r);
  const Json row = parse_json(r->body).value_or(Json());
  const std::vector<std::string> seats = row["seats"];
  const int alice = seats[0] == "alice" ? 0 : 1;
  EXPECT_EQ(row["versions"][alice], "alice@3") << row;
  EXPECT_TRUE(row["versions"][1 - alice].is_null()) << row;
  // The viewer keeps the store's URL to itself: the reader fills it in.
  EXPECT_NE(string_or(row, "reproduce").find("alice:bot:alice@3"), std::string::npos) << row;
  EXPECT_NE(string_or(row, "reproduce").find("--store STORE"), std::string::npos) << row;
  server.stop();
  fs::remove_all(dir);
}

TEST_F(ServerTest, BadIdsAndQueriesAreJsonErrors) {
  for (const char* path : {"/api/tournaments/99", "/api/tournaments/99/standings",
                           "/api/tournaments/99/matches", "/api/tournaments/1/matches/999",
                           "/api/tournaments/1/matches/999/log", "/api/live/5",
                           "/api/live/5/stream", "/api/nothing", "/api/tournaments/abc",
                           "/api/tournaments/99999999999999999999"}) {
    const Json j = get_json(path, 404);
    EXPECT_TRUE(j["error"].is_string()) << path;
  }
  for (const char* path :
       {"/api/tournaments/1/matches?limit=0", "/api/tournaments/1/matches?limit=501",
        "/api/tournaments/1/matches?offset=-1", "/api/tournaments/1/matches?offset=x",
        "/api/tournaments/1/matches?round=1.5", "/api/tournaments/1/matches?outcome=lost",
        "/api/tournaments/1/matches?ejected=maybe"}) {
    const Json j = get_json(path, 400);
    EXPECT_TRUE(j["error"].is_string()) << path;
  }
}

TEST_F(ServerTest, TheApiIsReadOnly) {
  auto c = client();
  for (auto* r : {new httplib::Result(c.Post("/api/tournaments", "{}", "application/json")),
                  new httplib::Result(c.Put("/api/tournaments/1", "{}", "application/json")),
                  new httplib::Result(c.Delete("/api/tournaments/1")),
                  new httplib::Result(c.Patch("/index.html", "x", "text/plain"))}) {
    ASSERT_TRUE(*r);
    EXPECT_EQ((*r)->status, 405);
    EXPECT_EQ((*r)->get_header_value("Allow"), "GET, HEAD");
    delete r;
  }
  // Nothing changed.
  EXPECT_EQ(get_json("/api/tournaments")["tournaments"].size(), 2u);
}

// Raw requests, so that no client library normalizes the path first.
std::string raw_get(std::uint16_t port, const std::string& target) {
  httplib::Client c("127.0.0.1", port);
  httplib::Request req;
  req.method = "GET";
  req.path = target;
  auto r = c.send(req);
  return r ? std::to_string(r->status) + " " + r->body : "no answer";
}

TEST_F(ServerTest, StaticFilesStayInsideTheWebRoot) {
  auto c = client();
  auto page = c.Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("viewer"), std::string::npos);
  EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(page->get_header_value("Content-Security-Policy").find("default-src 'self'"),
            std::string::npos);
  auto js = c.Get("/js/app.js");
  ASSERT_TRUE(js);
  EXPECT_EQ(js->get_header_value("Content-Type"), "text/javascript; charset=utf-8");
  for (const char* target :
       {"/../secret.txt", "/js/../../secret.txt", "/%2e%2e/secret.txt", "/js/%2E%2E/%2e%2e/secret.txt",
        "/..%2fsecret.txt", "/link.txt", "/%00index.html", "/js/..", "/.hidden", "//etc/passwd",
        "/js\\..\\..\\secret.txt", "/nothing.html"}) {
    const std::string got = raw_get(port_, target);
    EXPECT_TRUE(got.starts_with("404") || got.starts_with("400")) << target << ": " << got;
    EXPECT_EQ(got.find("not for the web"), std::string::npos) << target;
  }
}

// A live match fed by hand: the stream sends every spectator line in order, ids counting
// lines, then "end"; the whole log is refused until the result line.
TEST_F(ServerTest, ALiveStreamSendsEveryLineInOrderAndTheLogOnlyAtTheEnd) {
  auto match = live_->start("q");
  LiveObserver observer(match);
  GameLog log;
  log.watch(observer);
  log.write({{"type", "match"}, {"game", "q"}, {"seats", {"a", "b"}}, {"config", {{"players", 2}}}});
  const std::string base = "/api/live/" + std::to_string(match->id());
  EXPECT_EQ(get_json(base + "/log", 409)["error"].is_string(), true);
  std::string received;
  std::thread reader([&] {
    auto c = client();
    c.Get(base + "/stream", [&](const char* data, std::size_t n) {
      received.append(data, n);
      return true;
    });
  });
  for (int i = 0; i < 5; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    log.write({{"type", "call"},
               {"seat", i % 2},
               {"call", "take_turn"},
               {"args", {{"map", Json::array()}, {"players", {{{"score", i}, {"tile*", {{{"color", "red"}, {"shape", "star"}}}}}, 0}}, {"tile*", 9}}},
               {"reply", "pass"},
               {"verdict", "ok"},
               {"elapsed_us", 5}});
  }
  log.write({{"type", "result"}, {"winners", {0}}, {"ejections", Json::array()}, {"scores", {1, 2}}});
  reader.join();
  log.unwatch(observer);
  std::vector<Json> events;
  std::size_t pos = 0;
  int expected_id = 1;
  while ((pos = received.find("id: ", pos)) != std::string::npos) {
    const auto eol = received.find('\n', pos);
    EXPECT_EQ(std::stoi(received.substr(pos + 4, eol - pos - 4)), expected_id++);
    const auto data = received.find("data: ", eol);
    const auto end = received.find('\n', data);
    events.push_back(*parse_json(received.substr(data + 6, end - data - 6)));
    pos = end;
  }
  ASSERT_EQ(events.size(), 7u);
  EXPECT_EQ(events[0]["type"], "match");
  for (int i = 1; i <= 5; ++i) {
    EXPECT_EQ(events[i]["seat"], (i - 1) % 2);
    EXPECT_FALSE(events[i]["args"]["players"][0].contains("tile*")) << events[i];
    EXPECT_EQ(events[i]["args"]["players"][0]["score"], i - 1);
  }
  EXPECT_EQ(events[6]["type"], "result");
  EXPECT_NE(received.find("event: end"), std::string::npos);
  EXPECT_EQ(received.find("\"red\""), std::string::npos);  // no tile of a hand, ever
  auto c = client();
  auto full = c.Get(base + "/log");
  ASSERT_TRUE(full);
  EXPECT_EQ(full->status, 200);
  EXPECT_NE(full->body.find("\"red\""), std::string::npos);  // the whole log, once it is over
  const Json list = get_json("/api/live");
  ASSERT_FALSE(list["matches"].empty());
  EXPECT_EQ(list["matches"].back()["finished"], true);
}

// Viewers that ask for the stream and never read it hold up neither the match nor other viewers:
// recording a line never waits for a viewer.
TEST_F(ServerTest, ViewersThatNeverReadHoldNothingUp) {
  auto match = live_->start("battleship");
  LiveObserver observer(match);
  GameLog log;
  log.watch(observer);
  log.write({{"type", "match"}, {"game", "battleship"}, {"seats", {"a", "b"}}});
  const std::string request = "GET /api/live/" + std::to_string(match->id()) +
                              "/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  std::vector<int> stalled;
  for (int i = 0; i < 20; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port_);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    ASSERT_EQ(::send(fd, request.data(), request.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(request.size()));
    stalled.push_back(fd);
  }
  // A match of 20,000 lines, each a few hundred bytes: far more than the stalled sockets' buffers.
  const std::string padding(300, 'x');
  std::atomic<bool> done{false};
  std::thread recorder([&] {
    for (int i = 0; i < 20'000; ++i)
      log.write({{"type", "call"}, {"seat", i % 2}, {"call", "take_turn"}, {"verdict", "ok"},
                 {"detail", padding}});
    log.write({{"type", "result"}, {"winners", {0}}, {"ejections", Json::array()}, {"scores", {1, 0}}});
    done = true;
  });
  // The recorder finishes while the stalled viewers are still connected; a live viewer still
  // gets the whole stream.
  for (int i = 0; i < 300 && !done; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_TRUE(done.load()) << "the match was held up by viewers that do not read";
  recorder.join();
  log.unwatch(observer);
  EXPECT_EQ(match->summary()["lines"], 20'002);
  std::string stream;
  auto c = client();
  c.Get("/api/live/" + std::to_string(match->id()) + "/stream",
        [&](const char* data, std::size_t n) {
          stream.append(data, n);
          return true;
        });
  std::size_t events = 0;
  for (std::size_t at = 0; (at = stream.find("\nid: ", at)) != std::string::npos; ++at) ++events;
  if (stream.starts_with("id: ")) ++events;
  EXPECT_EQ(events, 20'002u);
  for (int fd : stalled) ::close(fd);
}

// Streams take at most three quarters of the request threads; the rest answer pages and the
// API. A stream resumes from a line (?from=N or Last-Event-ID).
// A raw connection to the server, for requests no well-behaved client sends.
int raw_connect(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) < 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// What the server answers on `fd` until it closes it (at most 2 s).
std::string answer_of(int fd) {
  timeval t{2, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &t, sizeof t);
  std::string all;
  char buf[4096];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;)
    all.append(buf, static_cast<std::size_t>(n));
  return all;
}

// The desk reads requests whole before a request thread takes them: connections that trickle
// (or never finish) their heads hold no thread, and malformed ones are answered by the desk.
TEST(ViewerServer, SlowAndBrokenRequestsHoldNoRequestThread) {
  LiveMatches live;
  ServerOptions o;
  o.port = 0;
  o.web_root = ".";
  o.threads = 2;
  o.desk.head_wait = std::chrono::milliseconds(300);
  o.desk.max_pending_per_host = 20;
  ViewerServer server(o, nullptr, &live);
  auto port = server.bind();
  ASSERT_TRUE(port.has_value());
  server.start();
  // 60 connections that never finish their heads: 40 of them are dropped to make room for
  // the newest, and none keeps the two request threads.
  std::vector<int> slow;
  for (int i = 0; i < 60; ++i) {
    const int fd = raw_connect(*port);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::send(fd, "GET /api/live HTTP/1.1\r\n", 25, 0), 25);
    slow.push_back(fd);
  }
  httplib::Client c("127.0.0.1", *port);
  for (int i = 0; i < 5; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    auto r = c.Get("/api/live");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(250));
  }
  int dropped = 0, timed_out = 0;
  for (int fd : slow) {
    const std::string a = answer_of(fd);
    dropped += a.find("503") != std::string::npos && a.find("make room") != std::string::npos;
    timed_out += a.find("408") != std::string::npos;
    ::close(fd);
  }
  // At most 20 wait from one address: the rest were dropped (the client's own connections
  // made room too), and every one that waited was told its time was up.
  EXPECT_GE(dropped, 40);
  EXPECT_EQ(dropped + timed_out, 60);
  const auto send_raw = [&](const std::string& request) {
    const int fd = raw_connect(*port);
    EXPECT_EQ(::send(fd, request.data(), request.size(), 0), static_cast<ssize_t>(request.size()));
    std::string a = answer_of(fd);
    ::close(fd);
    return a.substr(0, a.find("\r\n"));
  };
  EXPECT_EQ(send_raw("GET / HTTP/1.1\r\nX: " + std::string(20000, 'x') + "\r\n\r\n"),
            "HTTP/1.1 431 Request Header Fields Too Large");
  EXPECT_EQ(send_raw("POST /api/live HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"),
            "HTTP/1.1 411 Length Required");
  EXPECT_EQ(send_raw("POST /api/live HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n"),
            "HTTP/1.1 413 Payload Too Large");
  // A body is awaited, then the route answers (the viewer takes no POST).
  EXPECT_EQ(send_raw("POST /api/live HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc"),
            "HTTP/1.1 405 Method Not Allowed");
  EXPECT_EQ(send_raw("GET /api/live HTTP/1.1\r\nHost: x\r\n\r\n"), "HTTP/1.1 200 OK");
  server.stop();
}

// A finished live match whose log is about 20 MB: an answer no client reads in one go.
std::shared_ptr<LiveMatch> big_finished_match(LiveMatches& live) {
  auto match = live.start("battleship");
  LiveObserver observer(match);
  GameLog log;
  log.watch(observer);
  const std::string padding(1000, 'x');
  for (int i = 0; i < 20'000; ++i) log.write({{"type", "call"}, {"detail", padding}});
  log.write(
      {{"type", "result"}, {"winners", {0}}, {"ejections", Json::array()}, {"scores", {1, 0}}});
  log.unwatch(observer);
  return match;
}

// Clients that ask for a large answer and never read it hold at most three quarters of the
// request threads (one more of theirs is answered 503 at once, and other addresses are
// served), and stopping the server does not wait for them.
TEST(ViewerServer, SlowReadersNeitherHoldEveryThreadNorTheStop) {
  LiveMatches live;
  ServerOptions o;
  o.port = 0;
  o.web_root = ".";
  o.threads = 8;  // at most 6 for one address
  auto server = std::make_unique<ViewerServer>(o, nullptr, &live);
  auto port = server->bind();
  ASSERT_TRUE(port.has_value());
  server->start();
  auto match = big_finished_match(live);
  const std::string request =
      "GET /api/live/" + std::to_string(match->id()) + "/log HTTP/1.1\r\nHost: x\r\n\r\n";
  std::vector<int> readers;
  std::vector<std::string> first_lines;
  for (int i = 0; i < 8; ++i) {
    const int fd = raw_connect(*port);
    ASSERT_GE(fd, 0);
    const int small = 4096;
    ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    ASSERT_EQ(::send(fd, request.data(), request.size(), 0), static_cast<ssize_t>(request.size()));
    readers.push_back(fd);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  int refused = 0;
  for (int fd : readers) {
    char head[64] = {};
    if (::recv(fd, head, sizeof head - 1, MSG_DONTWAIT) > 0 &&
        std::string_view(head).starts_with("HTTP/1.1 503"))
      ++refused;
  }
  EXPECT_EQ(refused, 2);  // 6 of the 8 are served (slowly), the other 2 refused at once
  const auto t0 = std::chrono::steady_clock::now();
  server->stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  for (int fd : readers) ::close(fd);
}

// Behind a proxy every connection comes from its address: the caps per address count the
// clients it names in X-Forwarded-For (the last entry, which the proxy appended), so one
// client's slow readers take its own share, not the proxy's.
TEST(ViewerServer, BehindAProxyTheCapsCountTheClientsItNames) {
  LiveMatches live;
  ServerOptions o;
  o.port = 0;
  o.web_root = ".";
  o.threads = 8;  // at most 6 at once for one client
  o.desk.proxy = "127.0.0.1";
  auto server = std::make_unique<ViewerServer>(o, nullptr, &live);
  auto port = server->bind();
  ASSERT_TRUE(port.has_value());
  server->start();
  auto match = big_finished_match(live);
  const auto request = [&](const std::string& path, const std::string& client) {
    return "GET " + path + " HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 10.9.9.9, " + client +
           "\r\n\r\n";
  };
  const std::string log_path = "/api/live/" + std::to_string(match->id()) + "/log";
  std::vector<int> readers;
  for (int i = 0; i < 7; ++i) {
    const int fd = raw_connect(*port);
    ASSERT_GE(fd, 0);
    const int small = 4096;
    ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    const std::string r = request(log_path, "192.0.2.1");
    ASSERT_EQ(::send(fd, r.data(), r.size(), 0), static_cast<ssize_t>(r.size()));
    readers.push_back(fd);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  int refused = 0;
  for (int fd : readers) {
    char head[64] = {};
    if (::recv(fd, head, sizeof head - 1, MSG_DONTWAIT) > 0 &&
        std::string_view(head).starts_with("HTTP/1.1 503"))
      ++refused;
  }
  EXPECT_EQ(refused, 1);  // the client's share is 6, whatever the proxy's address
  // Another client of the same proxy (the one its first entry names does not count).
  const int other = raw_connect(*port);
  const std::string r = request("/api/live", "192.0.2.2");
  ASSERT_EQ(::send(other, r.data(), r.size(), 0), static_cast<ssize_t>(r.size()));
  EXPECT_TRUE(answer_of(other).starts_with("HTTP/1.1 200"));
  ::close(other);
  server->stop();
  for (int fd : readers) ::close(fd);
}

TEST(ViewerServer, LiveStreamsAreCappedAndResume) {
  LiveMatches live;
  ServerOptions o;
  o.port = 0;
  o.web_root = ".";
  o.threads = 8;  // at most 4 streams
  ViewerServer server(o, nullptr, &live);
  auto port = server.bind();
  ASSERT_TRUE(port.has_value());
  server.start();
  auto match = live.start("dominosa");
  LiveObserver observer(match);
  GameLog log;
  log.watch(observer);
  for (int i = 0; i < 3; ++i) log.write({{"type", "setup"}, {"seat", i}, {"message", {"setup", {{{"n", 2}}}}}});
  const std::string path = "/api/live/" + std::to_string(match->id()) + "/stream";
  std::vector<std::thread> readers;
  std::atomic<int> opened{0};
  for (int i = 0; i < 4; ++i)
    readers.emplace_back([&] {
      httplib::Client c("127.0.0.1", *port);
      c.set_read_timeout(std::chrono::seconds(20));
      c.Get(path, [&](const char*, std::size_t) {
        static thread_local bool counted = false;
        if (!counted) ++opened, counted = true;
        return true;
      });
    });
  for (int i = 0; i < 100 && opened < 4; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(opened.load(), 4);
  httplib::Client c("127.0.0.1", *port);
  auto refused = c.Get(path);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 503);
  EXPECT_NE(refused->body.find("too many live streams"), std::string::npos);
  auto list = c.Get("/api/live");  // the API still answers
  ASSERT_TRUE(list);
  EXPECT_EQ(list->status, 200);
  log.write({{"type", "result"}, {"winners", {0}}, {"ejections", Json::array()}, {"scores", {1, 0, 0}}});
  log.unwatch(observer);
  for (auto& t : readers) t.join();
  // Resuming after line 2, by parameter and by header: lines 3 and 4 only.
  for (const auto& headers : {httplib::Headers{}, httplib::Headers{{"Last-Event-ID", "2"}}}) {
    std::string body;
    httplib::Client again("127.0.0.1", *port);
    again.Get(headers.empty() ? path + "?from=2" : path, headers, [&](const char* d, std::size_t n) {
      body.append(d, n);
      return true;
    });
    EXPECT_EQ(body.find("id: 1\n"), std::string::npos) << body;
    EXPECT_EQ(body.find("id: 2\n"), std::string::npos) << body;
    EXPECT_NE(body.find("id: 3\n"), std::string::npos) << body;
    EXPECT_NE(body.find("id: 4\n"), std::string::npos) << body;
    EXPECT_NE(body.find("event: end"), std::string::npos) << body;
  }
}

// A detail reaches a spectator as its reason only: it may quote a seat's bytes or its hand.
TEST(LiveMatch, ADetailKeepsOnlyItsReasonUntilTheEnd) {
  LiveMatches live;
  auto match = live.start("q");
  match->record({{"type", "call"}, {"seat", 0}, {"call", "take_turn"}, {"verdict", "foul"},
                 {"detail", "no-fit: tile red/diamond at (-2, 0) does not fit"}});
  match->record({{"type", "fault"}, {"seat", 1}, {"why", "malformed"}, {"detail", "malformed JSON: 'QUIZ'"}});
  auto shown = match->spectator_lines(0, std::chrono::milliseconds(0));
  ASSERT_EQ(shown.lines.size(), 2u);
  EXPECT_EQ(parse_json(shown.lines[0])->at("detail"), "no-fit");
  EXPECT_EQ(parse_json(shown.lines[1])->at("detail"), "malformed JSON");
  EXPECT_FALSE(match->full_log());
  match->record({{"type", "result"}, {"winners", Json::array()}, {"ejections", Json::array()}, {"scores", {0, 0}}});
  auto full = match->full_log();
  ASSERT_TRUE(full);
  EXPECT_NE((*full)[0].find("red/diamond"), std::string::npos);
}

}  // namespace
}  // namespace arbiter::server
