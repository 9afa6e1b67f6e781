#include "server/viewer_server.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <functional>
#include <thread>

#include <fmt/format.h>
#include <httplib.h>

#include "core/file.h"
#include "core/printable.h"
#include "league/authors.h"
#include "server/api.h"
#include "server/console_api.h"
#include "server/ladder_api.h"
#include "server/request_desk.h"
#include "tournament/log_codec.h"
#include "tournament/standings.h"

#ifndef ARBITER_WEB_DIR
#define ARBITER_WEB_DIR "web"
#endif

namespace arbiter::server {

std::filesystem::path default_web_root() { return ARBITER_WEB_DIR; }

namespace {

constexpr const char* kJson = "application/json";
// What a page may load: only this server's own files and API (no CDN, no inline script).
constexpr const char* kPolicy =
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
    "form-action 'none'";
constexpr std::size_t kMaxStaticBytes = std::size_t{16} << 20;
// How long a live stream waits for a line before it sends a keep-alive comment (and notices
// a closed connection or a stopping server).
constexpr std::chrono::milliseconds kStreamTick{1000};
// A stream sends at most one batch of lines per this interval: a fast match's lines are
// gathered rather than each waking every viewer's thread (which slowed a tournament with 20
// viewers to a fifth of its rate; docs/benchmarks.md).
constexpr std::chrono::milliseconds kStreamBatch{100};
// How often a stream of a match played by another process looks for new lines in the store
// (the worker writes them every 250 ms: tournament/live_feed.h).
constexpr std::chrono::milliseconds kStorePoll{250};
constexpr std::int64_t kStoreLinesPerRead = 1000;
// How often an author's event stream looks for changed versions in the store.
constexpr std::chrono::milliseconds kEventPoll{300};

// "127.0.0.1", "localhost" or "[::1]", with or without a port.
bool loopback_host(std::string_view host) {
  for (std::string_view name : {"127.0.0.1", "localhost", "[::1]"})
    if (host == name ||
        (host.starts_with(name) && host.size() > name.size() && host[name.size()] == ':' &&
         host.find_first_not_of("0123456789", name.size() + 1) == std::string_view::npos))
      return true;
  return false;
}

void reply(httplib::Response& res, const ApiReply& r) {
  res.status = r.status;
  res.set_content(dump(r.body), kJson);
}

void error(httplib::Response& res, int status, std::string message) {
  reply(res, api_error(status, std::move(message)));
}

// A path segment of digits (the routes' regexes allow at most 18: it fits).
std::int64_t id_of(const std::string& digits) {
  std::int64_t v = 0;
  std::from_chars(digits.data(), digits.data() + digits.size(), v);
  return v;
}

// An integer query parameter: absent → nullopt; not an integer → an error message.
std::variant<std::optional<std::int64_t>, std::string> int_param(const httplib::Request& req,
                                                                 const std::string& name) {
  if (!req.has_param(name.c_str())) return std::optional<std::int64_t>{};
  const std::string text = req.get_param_value(name.c_str());
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty())
    return fmt::format("{}: expected an integer, got \"{}\"", name, printable_line(text));
  return std::optional<std::int64_t>{v};
}

std::string content_type(const std::filesystem::path& p) {
  const std::string ext = p.extension().string();
  if (ext == ".html") return "text/html; charset=utf-8";
  if (ext == ".js" || ext == ".mjs") return "text/javascript; charset=utf-8";
  if (ext == ".css") return "text/css; charset=utf-8";
  if (ext == ".svg") return "image/svg+xml";
  if (ext == ".png") return "image/png";
  if (ext == ".json") return "application/json";
  if (ext == ".md" || ext == ".txt") return "text/plain; charset=utf-8";
  if (ext == ".ico") return "image/x-icon";
  return "application/octet-stream";
}

// The file under `root` that the URL path `path` names, or nothing: every segment must be a
// plain name (no "..", ".", empty, backslash or NUL), and the file, symlinks resolved, must be
// a regular file inside the root.
std::optional<std::filesystem::path> static_file(const std::filesystem::path& root,
                                                 std::string path) {
  if (path.empty() || path[0] != '/') return std::nullopt;
  if (path == "/") path = "/index.html";
  std::filesystem::path rel;
  std::size_t start = 1;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    const std::string seg = path.substr(start, end - start);
    if (seg.empty() || seg == "." || seg == ".." || seg.find('\\') != std::string::npos ||
        seg.find('\0') != std::string::npos || seg[0] == '.')
      return std::nullopt;
    rel /= seg;
    start = end + 1;
  }
  std::error_code ec;
  const auto base = std::filesystem::canonical(root, ec);
  if (ec) return std::nullopt;
  const auto file = std::filesystem::canonical(base / rel, ec);
  if (ec) return std::nullopt;
  const auto [b, f] = std::mismatch(base.begin(), base.end(), file.begin(), file.end());
  if (b != base.end()) return std::nullopt;
  if (!std::filesystem::is_regular_file(file, ec)) return std::nullopt;
  return file;
}

// One request the desk has read whole (its bytes) on its socket, which answers are written to:
// what cpp-httplib's request parser and routes read and write, with a time limit on each write
// (a client that stops reading holds a request thread that long at most).
class DeskStream final : public httplib::Stream {
 public:
  DeskStream(RequestDesk::Request& r) : r_(r) {}
  bool is_readable() const override { return at_ < r_.bytes.size() || ready(POLLIN); }
  bool is_writable() const override { return ready(POLLOUT); }
  ssize_t read(char* ptr, std::size_t size) override {
    if (at_ < r_.bytes.size()) {
      const std::size_t n = std::min(size, r_.bytes.size() - at_);
      std::memcpy(ptr, r_.bytes.data() + at_, n);
      at_ += n;
      return static_cast<ssize_t>(n);
    }
    return 0;  // the desk read the whole request: there is nothing more to read
  }
  // Each piece of an answer must be taken within kWaitMs in all, however slowly the client
  // reads: a slow reader holds its thread that long per piece, no longer.
  ssize_t write(const char* ptr, std::size_t size) override {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(kWaitMs);
    std::size_t sent = 0;
    while (sent < size) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          until - std::chrono::steady_clock::now());
      if (left.count() <= 0) break;
      const ssize_t n = r_.link.send(ptr + sent, size - sent);
      if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) {
        if (!ready(r_.link.wants(), static_cast<int>(left.count()))) break;
        continue;
      }
      if (n <= 0) return sent > 0 ? static_cast<ssize_t>(sent) : -1;
      sent += static_cast<std::size_t>(n);
    }
    return sent > 0 ? static_cast<ssize_t>(sent) : -1;
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    ip = r_.host;
    port = r_.port;
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    ip.clear();
    port = 0;
  }
  socket_t socket() const override { return r_.link.fd(); }

 private:
  static constexpr int kWaitMs = 5000;
  bool ready(short events, int wait_ms = kWaitMs) const {
    pollfd p{r_.link.fd(), events, 0};
    int n;
    do {
      n = ::poll(&p, 1, wait_ms);
    } while (n < 0 && errno == EINTR);
    return n > 0 && (p.revents & (POLLERR | POLLNVAL)) == 0 && (p.revents & events) != 0;
  }
  RequestDesk::Request& r_;
  std::size_t at_ = 0;
};

// cpp-httplib's routes over requests the desk hands on, one connection each.
// cpp-httplib (0.11) writes a streamed answer (a log, a live stream) only while the server "is
// running", which it is only inside its own accept loop. So that loop runs, idle, on a pipe
// that nothing is ever written to (no socket: nobody can connect to it), while the desk
// accepts the real connections.
class DeskServer : public httplib::Server {
 public:
  DeskServer() {
    set_idle_interval(1);
    new_task_queue = [] { return new httplib::ThreadPool(1); };  // the loop accepts nothing
  }
  ~DeskServer() override { halt(); }
  // Starts the idle loop; returns once the server is running.
  bool run_idle() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) < 0) return false;
    idle_write_ = fds[1];
    svr_sock_ = fds[0];
    idle_ = std::thread([this] { listen_after_bind(); });
    for (int waited = 0; !is_running(); ++waited) {
      if (waited == 5000) return false;  // its loop ended at once: no streamed answers
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
  }
  void halt() {
    if (idle_.joinable()) {
      stop();  // closes the pipe's read end
      idle_.join();
    }
    if (idle_write_ >= 0) ::close(idle_write_);
    idle_write_ = -1;
  }
  void serve(RequestDesk::Request r) {
    {
      DeskStream stream(r);
      bool closed = false;
      process_request(stream, /*close_connection=*/true, closed, {});
    }
    r.link.finish();  // the desk closes it
  }

 private:
  std::thread idle_;
  int idle_write_ = -1;
};

}  // namespace

// Where a live stream reads its lines: the spectator lines from index `from` on, waiting up to
// `wait` when there are none yet.
using LineSource =
    std::function<LiveMatch::Chunk(std::size_t from, std::chrono::milliseconds wait)>;

struct ViewerServer::Impl {
  ServerOptions options;
  tournament::Store* store = nullptr;
  std::unique_ptr<StoreApi> api;
  std::unique_ptr<LadderApi> ladders;
  std::unique_ptr<ConsoleApi> console;         // with submissions only
  std::unique_ptr<SessionBook> sessions;       // with submissions only
  std::unique_ptr<SubmissionApi> submissions;  // with submissions only
  LiveMatches* live = nullptr;
  DeskServer http;
  std::unique_ptr<RequestDesk> desk;
  std::thread thread;
  std::atomic<bool> stopping{false};
  std::atomic<int> streams{0};  // live streams open now; each holds a request thread

  void routes();
  void submission_routes();
  // Whether browsers reach this server over TLS: its own, or its proxy's.
  bool secure() const { return options.desk.tls != nullptr || !options.desk.proxy.empty(); }
  // Whether a request's Origin (empty: none sent) is this server's own, of Host `host`.
  bool same_site(const std::string& origin, const std::string& host) const {
    return origin.empty() || origin == "https://" + host ||
           (!secure() && origin == "http://" + host);
  }
  // Who sent `req` (a bearer token, or a session cookie); nothing when nobody is logged in.
  // Answers 401 (or 503) into `res` when it returns nothing and `required`.
  std::optional<Principal> who(const httplib::Request& req, httplib::Response& res,
                               bool required = true);
  // Whether a state-changing request may go on: by bearer token, or by cookie with the
  // session's CSRF token echoed and no foreign Origin. Answers 403 into `res` when not.
  bool same_origin_write(const httplib::Request& req, httplib::Response& res, const Principal& p);
  void serve_log(httplib::Response& res, StoreApi::Log log, const std::string& filename,
                 bool download);
  void live_stream(const httplib::Request& req, httplib::Response& res, LineSource source);
  LineSource store_lines(std::int64_t job);
};

void ViewerServer::Impl::serve_log(httplib::Response& res, StoreApi::Log log,
                                   const std::string& filename, bool download) {
  if (!log.damage.empty()) res.set_header("X-Arbiter-Damage", printable_line(log.damage));
  if (download)
    res.set_header("Content-Disposition", fmt::format("attachment; filename=\"{}\"", filename));
  // Inflated in 64 KiB pieces straight to the socket: a log is never held whole as text.
  auto packed = std::make_shared<std::string>(std::move(log.packed));
  res.set_chunked_content_provider(
      "application/x-ndjson; charset=utf-8", [packed, this](std::size_t, httplib::DataSink& sink) {
        bool open = true;
        auto sent = tournament::inflate_log(*packed, [&](std::string_view piece) {
          open = !stopping && sink.write(piece.data(), piece.size());
          return open;
        });
        // A log that stops inflating was reported in X-Arbiter-Damage before the first byte.
        if (open) sink.done();
        return open && sent.has_value();
      });
}

// A match another process plays, read from the store's live lines. The stream ends when the
// job has a result, when its lease runs out (its worker is gone) or when another worker has
// claimed it (its lines start over): the page then reloads what there is.
LineSource ViewerServer::Impl::store_lines(std::int64_t job) {
  return [this, job, attempt = std::int64_t{-1}](std::size_t from,
                                                 std::chrono::milliseconds wait) mutable {
    const auto until = std::chrono::steady_clock::now() + wait;
    LiveMatch::Chunk chunk;
    for (;;) {
      auto got = store->live_lines(job, static_cast<std::int64_t>(from), kStoreLinesPerRead);
      if (got) {
        if (attempt < 0) attempt = got->attempt;
        if (!got->exists || got->finished || got->attempt != attempt ||
            (!got->playing && got->lines.empty())) {
          chunk.finished = true;
          return chunk;
        }
        if (!got->lines.empty()) {
          chunk.lines = std::move(got->lines);
          return chunk;
        }
      }  // a failed read is tried again at the next poll; the stream keeps alive meanwhile
      const auto now = std::chrono::steady_clock::now();
      if (now >= until || stopping) return chunk;
      std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(kStorePoll,
                                                                                until - now));
    }
  };
}

void ViewerServer::Impl::live_stream(const httplib::Request& req, httplib::Response& res,
                                     LineSource source) {
  std::size_t from = 0;
  auto from_param = int_param(req, "from");
  if (auto* msg = std::get_if<std::string>(&from_param)) return error(res, 400, *msg);
  if (auto f = std::get<std::optional<std::int64_t>>(from_param); f && *f >= 0)
    from = static_cast<std::size_t>(*f);
  if (req.has_header("Last-Event-ID")) {
    const std::string last = req.get_header_value("Last-Event-ID");
    std::size_t v = 0;
    if (std::from_chars(last.data(), last.data() + last.size(), v).ec == std::errc()) from = v;
  }
  // Each open stream holds one of the request threads: a quarter of them stay for everything
  // else, so that pages and the API answer however many streams are asked for.
  const int max_streams = std::max(1, options.threads - std::max(4, options.threads / 4));
  if (++streams > max_streams) {
    --streams;
    return error(res, 503,
                 fmt::format("too many live streams at once ({}): try again later", max_streams));
  }
  res.set_header("Cache-Control", "no-store");
  res.set_chunked_content_provider(
      "text/event-stream",
      [this, source = std::move(source), next = from,
       last = std::chrono::steady_clock::time_point{}](std::size_t,
                                                      httplib::DataSink& sink) mutable {
        if (stopping) return false;
        const auto due = last + kStreamBatch;
        if (const auto now = std::chrono::steady_clock::now(); now < due)
          std::this_thread::sleep_for(due - now);
        last = std::chrono::steady_clock::now();
        auto chunk = source(next, kStreamTick);
        std::string out;
        for (const auto& line : chunk.lines) {
          ++next;
          out += fmt::format("id: {}\ndata: {}\n\n", next, line);
        }
        if (chunk.lines.empty() && chunk.finished) {
          out = "event: end\ndata: {}\n\n";
          if (!sink.write(out.data(), out.size())) return false;
          sink.done();
          return true;
        }
        if (out.empty()) out = ": waiting\n\n";
        return sink.write(out.data(), out.size());
      },
      [this](bool) { --streams; });
}

void ViewerServer::Impl::routes() {
  http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    // A page of another site that rebinds its own name to 127.0.0.1 sends its own Host.
    if (submissions && !secure() && !loopback_host(req.get_header_value("Host"))) {
      error(res, 421, "this server answers to 127.0.0.1, localhost or [::1] only");
      return httplib::Server::HandlerResponse::Handled;
    }
    if (req.method == "GET" || req.method == "HEAD")
      return httplib::Server::HandlerResponse::Unhandled;
    if (submissions && req.method == "POST") return httplib::Server::HandlerResponse::Unhandled;
    res.set_header("Allow", submissions ? "GET, HEAD, POST" : "GET, HEAD");
    error(res, 405,
          submissions ? "only GET, HEAD and POST" : "the viewer is read-only: only GET and HEAD");
    return httplib::Server::HandlerResponse::Handled;
  });
  if (submissions) submission_routes();
  http.set_post_routing_handler([this](const httplib::Request&, httplib::Response& res) {
    res.set_header("Content-Security-Policy", kPolicy);
    res.set_header("X-Content-Type-Options", "nosniff");
    res.set_header("Referrer-Policy", "no-referrer");
    if (secure()) res.set_header("Strict-Transport-Security", "max-age=31536000");
  });
  http.set_exception_handler([](const httplib::Request&, httplib::Response& res,
                                std::exception_ptr) { error(res, 500, "internal error"); });

  const std::string id = R"((\d{1,18}))";
  auto need_store = [this](httplib::Response& res) {
    if (api) return true;
    error(res, 404, "this server has no store (it shows live matches only)");
    return false;
  };
  http.Get("/api/tournaments", [=, this](const httplib::Request&, httplib::Response& res) {
    if (need_store(res)) reply(res, api->tournaments());
  });
  http.Get("/api/tournaments/" + id, [=, this](const httplib::Request& req, httplib::Response& res) {
    if (need_store(res)) reply(res, api->tournament(id_of(req.matches[1])));
  });
  http.Get("/api/tournaments/" + id + "/standings",
           [=, this](const httplib::Request& req, httplib::Response& res) {
             if (need_store(res)) reply(res, api->standings(id_of(req.matches[1])));
           });
  http.Get("/api/tournaments/" + id + "/matches",
           [=, this](const httplib::Request& req, httplib::Response& res) {
             if (!need_store(res)) return;
             MatchQuery q;
             for (const char* name : {"offset", "limit", "round"}) {
               auto v = int_param(req, name);
               if (auto* msg = std::get_if<std::string>(&v)) return error(res, 400, *msg);
               auto value = std::get<std::optional<std::int64_t>>(v);
               if (!value) continue;
               if (std::string_view(name) == "offset") q.offset = *value;
               else if (std::string_view(name) == "limit") q.limit = *value;
               else q.round = *value;
             }
             q.outcome = req.get_param_value("outcome");
             q.verdict = req.get_param_value("verdict");
             q.player = req.get_param_value("player");
             if (req.has_param("ejected")) {
               const std::string e = req.get_param_value("ejected");
               if (e != "true" && e != "false") return error(res, 400, "ejected: true or false");
               q.ejected = e == "true";
             }
             reply(res, api->matches(id_of(req.matches[1]), q));
           });
  http.Get("/api/tournaments/" + id + "/matches/" + id,
           [=, this](const httplib::Request& req, httplib::Response& res) {
             if (need_store(res))
               reply(res, api->match(id_of(req.matches[1]), id_of(req.matches[2])));
           });
  http.Get("/api/tournaments/" + id + "/matches/" + id + "/log",
           [=, this](const httplib::Request& req, httplib::Response& res) {
             if (!need_store(res)) return;
             const auto t = id_of(req.matches[1]);
             const auto m = id_of(req.matches[2]);
             auto got = api->log(t, m);
             if (auto* r = std::get_if<ApiReply>(&got)) return reply(res, *r);
             serve_log(res, std::move(std::get<StoreApi::Log>(got)),
                       fmt::format("tournament{}-match{}.jsonl", t, m),
                       req.get_param_value("download") == "1");
           });
  http.Get("/api/tournaments/" + id + "/live",
           [=, this](const httplib::Request& req, httplib::Response& res) {
             if (need_store(res)) reply(res, api->live(id_of(req.matches[1])));
           });
  http.Get("/api/tournaments/" + id + "/matches/" + id + "/live",
           [=, this](const httplib::Request& req, httplib::Response& res) {
             if (!need_store(res)) return;
             auto got = api->live_match(id_of(req.matches[1]), id_of(req.matches[2]));
             if (auto* r = std::get_if<ApiReply>(&got)) return reply(res, *r);
             reply(res, {200, std::get<StoreApi::Live>(got).summary});
           });
  http.Get("/api/tournaments/" + id + "/matches/" + id + "/stream",
           [=, this](const httplib::Request& req, httplib::Response& res) {
             if (!need_store(res)) return;
             auto got = api->live_match(id_of(req.matches[1]), id_of(req.matches[2]));
             if (auto* r = std::get_if<ApiReply>(&got)) return reply(res, *r);
             live_stream(req, res, store_lines(std::get<StoreApi::Live>(got).job));
           });
  http.Get("/api/ladders", [=, this](const httplib::Request&, httplib::Response& res) {
    if (need_store(res)) reply(res, ladders->ladders());
  });
  http.Get("/api/ladders/" + id, [=, this](const httplib::Request& req, httplib::Response& res) {
    if (need_store(res)) reply(res, ladders->ladder(id_of(req.matches[1])));
  });
  http.Get("/api/ladders/" + id + "/entrants/" + id,
           [=, this](const httplib::Request& req, httplib::Response& res) {
             if (!need_store(res)) return;
             // Logged in, an author reads their own bot's stderr here (an organizer, any).
             std::optional<Principal> reader;
             if (sessions) reader = who(req, res, /*required=*/false);
             reply(res, ladders->entrant(id_of(req.matches[1]), id_of(req.matches[2]),
                                         reader ? reader->name : std::string(),
                                         reader && reader->organizer()));
           });
  http.Get("/api/ladders/" + id + "/head-to-head",
           [=, this](const httplib::Request& req, httplib::Response& res) {
             if (!need_store(res)) return;
             std::int64_t pick[2] = {0, 0};
             for (int i = 0; i < 2; ++i) {
               const char* name = i == 0 ? "a" : "b";
               auto v = int_param(req, name);
               if (auto* msg = std::get_if<std::string>(&v)) return error(res, 400, *msg);
               auto value = std::get<std::optional<std::int64_t>>(v);
               if (!value)
                 return error(res, 400, fmt::format("{}: an entrant's index is needed", name));
               pick[i] = *value;
             }
             reply(res, ladders->head_to_head(id_of(req.matches[1]), pick[0], pick[1]));
           });
  http.Get("/api/live", [this](const httplib::Request&, httplib::Response& res) {
    Json list = Json::array();
    if (live)
      for (const auto& m : live->list()) list.push_back(m->summary());
    reply(res, {200, Json{{"matches", list}}});
  });
  auto find_live = [this](const httplib::Request& req,
                          httplib::Response& res) -> std::shared_ptr<LiveMatch> {
    auto m = live ? live->find(id_of(req.matches[1])) : nullptr;
    if (!m) error(res, 404, fmt::format("no live match {}", std::string(req.matches[1])));
    return m;
  };
  http.Get("/api/live/" + id, [=](const httplib::Request& req, httplib::Response& res) {
    if (auto m = find_live(req, res)) reply(res, {200, m->summary()});
  });
  http.Get("/api/live/" + id + "/stream",
           [=, this](const httplib::Request& req, httplib::Response& res) {
             if (auto m = find_live(req, res))
               live_stream(req, res, [m](std::size_t from, std::chrono::milliseconds wait) {
                 return m->spectator_lines(from, wait);
               });
           });
  http.Get("/api/live/" + id + "/log", [=, this](const httplib::Request& req, httplib::Response& res) {
    auto m = find_live(req, res);
    if (!m) return;
    auto lines = m->full_log();
    if (!lines && m->held())
      return error(res, 409,
                   "the match shares its seed with matches still to be played (its "
                   "pair, seats swapped): its whole log is served once they are over");
    if (!lines)
      return error(res, 409, "the match is still running: its whole log is served once it ends "
                             "(until then, its stream shows what a spectator may see)");
    if (req.get_param_value("download") == "1")
      res.set_header("Content-Disposition",
                     fmt::format("attachment; filename=\"live{}.jsonl\"", m->id()));
    // Line by line from the one shared copy: a viewer costs no copy of the log.
    res.set_chunked_content_provider(
        "application/x-ndjson; charset=utf-8",
        [lines, this, next = std::size_t{0}](std::size_t, httplib::DataSink& sink) mutable {
          std::string piece;
          for (; next < lines->size() && piece.size() < (64 << 10); ++next)
            piece += (*lines)[next] + "\n";
          if (stopping || (!piece.empty() && !sink.write(piece.data(), piece.size()))) return false;
          if (next == lines->size()) sink.done();
          return true;
        });
  });
  http.Get(R"(/api/.*)", [](const httplib::Request& req, httplib::Response& res) {
    error(res, 404, fmt::format("no such API route: {}", printable_line(req.path)));
  });
  http.Get(R"(/.*)", [this](const httplib::Request& req, httplib::Response& res) {
    auto file = static_file(options.web_root, req.path);
    if (!file) return error(res, 404, fmt::format("not found: {}", printable_line(req.path)));
    auto text = read_file(*file, kMaxStaticBytes);
    if (!text) return error(res, 404, fmt::format("not found: {}", printable_line(req.path)));
    res.set_header("Cache-Control", "no-cache");
    res.set_content(std::move(*text), content_type(*file).c_str());
  });
}

namespace {

constexpr const char* kSessionCookie = "arbiter_session";

std::string bearer_token(const httplib::Request& req) {
  const std::string h = req.get_header_value("Authorization");
  return h.starts_with("Bearer ") ? h.substr(7) : std::string();
}

// The author of "POST /api/bots " (or "?...") by the same credentials `who` reads (the first
// Authorization header if it is a bearer token, else the first Cookie header), if they stand and
// may upload now: the only big body taken.
RequestDesk::Verdict upload_head(std::string_view head, const std::string& address,
                                 SessionBook& sessions, SubmissionApi& submissions) {
  if (!head.starts_with("POST /api/bots ") && !head.starts_with("POST /api/bots?")) return {};
  if (sessions.throttled(address)) return {std::nullopt, 429, sessions.throttled_message()};
  std::optional<std::string> authorization, cookies;
  std::size_t at = head.find("\r\n");
  while (at != std::string_view::npos && at + 2 < head.size()) {
    const std::size_t end = head.find("\r\n", at + 2);
    const std::string_view line =
        head.substr(at + 2, end == std::string_view::npos ? std::string_view::npos : end - at - 2);
    if (const std::size_t colon = line.find(':'); colon != std::string_view::npos) {
      std::string name(line.substr(0, colon));
      std::ranges::transform(name, name.begin(), [](unsigned char c) { return std::tolower(c); });
      std::string_view value = line.substr(colon + 1);
      while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
        value.remove_prefix(1);
      while (!value.empty() && (value.back() == ' ' || value.back() == '\t'))
        value.remove_suffix(1);
      if (name == "authorization" && !authorization) authorization = std::string(value);
      if (name == "cookie" && !cookies) cookies = std::string(value);
    }
    at = end;
  }
  Expected<std::optional<Principal>> p = std::optional<Principal>{};
  if (authorization && authorization->starts_with("Bearer "))
    p = sessions.bearer(std::string_view(*authorization).substr(7), address);
  else if (cookies)
    p = sessions.find(cookie_value(*cookies, kSessionCookie));
  if (!p) return {std::nullopt, 503, "the store failed: try again"};
  if (!*p) return {};
  if (auto over = submissions.over_cap((*p)->name, address)) return {std::nullopt, 429, *over};
  return {(*p)->name};
}

// The entrant names of a test match's body {"seats": [...]}: at most 8 strings of at most 64
// bytes; empty for anything else (a list with anything else in it is refused whole).
std::vector<std::string> test_seats(const std::string& body) {
  std::vector<std::string> seats;
  try {
    const Json j = Json::parse(body);
    if (!j.is_object() || !j.contains("seats") || !j["seats"].is_array() || j["seats"].size() > 8)
      return {};
    for (const Json& seat : j["seats"]) {
      if (!seat.is_string() || seat.get<std::string>().size() > 64) return {};
      seats.push_back(seat.get<std::string>());
    }
  } catch (const Json::exception&) {
    return {};
  }
  return seats;
}

// A session cookie; `secure` (the browser reached us over TLS): sent back over TLS only.
std::string cookie(const std::string& value, std::chrono::seconds max_age, bool secure) {
  return fmt::format("{}={}; Path=/; HttpOnly; SameSite=Strict; Max-Age={}{}", kSessionCookie,
                     value, max_age.count(), secure ? "; Secure" : "");
}

}  // namespace

std::optional<Principal> ViewerServer::Impl::who(const httplib::Request& req,
                                                 httplib::Response& res, bool required) {
  Expected<std::optional<Principal>> found = std::optional<Principal>{};
  if (const std::string token = bearer_token(req); !token.empty()) {
    if (sessions->throttled(req.remote_addr)) {
      error(res, 429, sessions->throttled_message());
      return std::nullopt;
    }
    found = sessions->bearer(token, req.remote_addr);
  } else if (const std::string id = cookie_value(req.get_header_value("Cookie"), kSessionCookie);
             !id.empty())
    found = sessions->find(id);
  if (!found) {
    reply(res, store_failed(found.error()));
    return std::nullopt;
  }
  if (!*found && required) {
    res.set_header("WWW-Authenticate", "Bearer");
    error(res, 401,
          "log in first: a session cookie (POST /api/login) or Authorization: Bearer TOKEN");
  }
  return *found;
}

bool ViewerServer::Impl::same_origin_write(const httplib::Request& req, httplib::Response& res,
                                           const Principal& p) {
  if (!p.by_cookie) return true;  // a bearer token is never sent by a browser on its own
  const std::string origin = req.get_header_value("Origin");
  const std::string host = req.get_header_value("Host");
  if (!same_site(origin, host)) {
    error(res, 403, "a request from another site: refused");
    return false;
  }
  if (!league::same_bytes(req.get_header_value("X-CSRF-Token"), p.csrf)) {
    error(res, 403, "the X-CSRF-Token header does not match this session (GET /api/me gives it)");
    return false;
  }
  return true;
}

void ViewerServer::Impl::submission_routes() {
  const std::string id = R"((\d{1,18}))";
  const std::string name = R"(([A-Za-z0-9]{1,20}))";
  http.Post("/api/login", [this](const httplib::Request& req, httplib::Response& res) {
    const std::string origin = req.get_header_value("Origin");
    const std::string host = req.get_header_value("Host");
    if (!same_site(origin, host)) return error(res, 403, "a login from another site: refused");
    // From a JSON body only: a token in a URL or a form ends up in logs and histories.
    std::string token;
    try {
      const Json body = Json::parse(req.body);
      if (body.is_object() && body.contains("token") && body["token"].is_string())
        token = body["token"].get<std::string>();
    } catch (const Json::exception&) {
    }
    if (token.empty()) return error(res, 400, "give the token: {\"token\": \"NAME.SECRET\"}");
    if (sessions->throttled(req.remote_addr)) return error(res, 429, sessions->throttled_message());
    auto opened = sessions->open(token, req.remote_addr);
    if (!opened) return reply(res, store_failed(opened.error()));
    if (!*opened) return error(res, 401, std::string(league::kBadToken));
    res.set_header("Set-Cookie", cookie((*opened)->id, options.session_lifetime, secure()));
    res.set_header("Cache-Control", "no-store");
    const Principal& p = (*opened)->who;
    reply(res, {200, Json{{"name", p.name}, {"role", p.role}, {"csrf", p.csrf}}});
  });
  http.Post("/api/logout", [this](const httplib::Request& req, httplib::Response& res) {
    auto p = who(req, res);
    if (!p || !same_origin_write(req, res, *p)) return;
    sessions->close(cookie_value(req.get_header_value("Cookie"), kSessionCookie));
    res.set_header("Set-Cookie", cookie("", std::chrono::seconds(0), secure()));
    reply(res, {200, Json{{"name", p->name}, {"logged_out", true}}});
  });
  http.Get("/api/me", [this](const httplib::Request& req, httplib::Response& res) {
    auto p = who(req, res);
    if (!p) return;
    res.set_header("Cache-Control", "no-store");
    reply(res, {200, Json{{"name", p->name}, {"role", p->role}, {"csrf", p->csrf}}});
  });
  http.Post("/api/bots", [this](const httplib::Request& req, httplib::Response& res) {
    auto p = who(req, res);
    if (!p || !same_origin_write(req, res, *p)) return;
    // A body this big came through the front door's gate, which counted it already.
    std::size_t length = 0;
    const std::string declared = req.get_header_value("Content-Length");
    std::from_chars(declared.data(), declared.data() + declared.size(), length);
    const bool counted = length > options.desk.max_body;
    if (req.is_multipart_form_data()) {
      if (!req.has_file("archive"))
        return error(res, 400, "the form has no field \"archive\" (curl -F archive=@bot.tar.gz)");
      const auto file = req.get_file_value("archive");
      return reply(res,
                   submissions->upload(*p, req.remote_addr, file.content, file.filename, counted));
    }
    reply(res, submissions->upload(*p, req.remote_addr, req.body, req.get_param_value("filename"),
                                   counted));
  });
  // The author's page follows its versions here: a line each time one's status changes.
  http.Get("/api/my/events", [this](const httplib::Request& req, httplib::Response& res) {
    auto p = who(req, res);
    if (!p) return;
    const std::string bearer = bearer_token(req);
    const std::string session = cookie_value(req.get_header_value("Cookie"), kSessionCookie);
    auto seen = std::make_shared<std::map<std::string, std::string>>();
    if (auto first = submissions->changes(*p, *seen); !first)
      return reply(res, store_failed(first.error()));
    live_stream(req, res,
                [this, who = *p, seen, bearer, session, address = req.remote_addr](
                    std::size_t, std::chrono::milliseconds wait) {
                  LiveMatch::Chunk chunk;
                  const auto until = std::chrono::steady_clock::now() + wait;
                  while (!stopping) {
                    // A revoked author, or an ended session, hears no more.
                    auto still = bearer.empty() ? sessions->find(session)
                                                : sessions->bearer(bearer, address);
                    if (still && !*still) {
                      chunk.finished = true;
                      return chunk;
                    }
                    if (auto lines = submissions->changes(who, *seen); lines && !lines->empty()) {
                      chunk.lines = std::move(*lines);
                      return chunk;
                    }
                    if (std::chrono::steady_clock::now() >= until) return chunk;
                    std::this_thread::sleep_for(kEventPoll);
                  }
                  return chunk;
                });
  });
  http.Get("/api/my/bots", [this](const httplib::Request& req, httplib::Response& res) {
    if (auto p = who(req, res)) reply(res, submissions->bots(*p));
  });
  http.Get("/api/bots/" + name + "/versions/" + id,
           [this](const httplib::Request& req, httplib::Response& res) {
             if (auto p = who(req, res))
               reply(res, submissions->version(*p, req.matches[1], id_of(req.matches[2])));
           });
  for (const bool active : {false, true})
    http.Post("/api/bots/" + name + "/versions/" + id + (active ? "/activate" : "/retire"),
              [this, active](const httplib::Request& req, httplib::Response& res) {
                auto p = who(req, res);
                if (!p || !same_origin_write(req, res, *p)) return;
                reply(res,
                      submissions->set_active(*p, req.matches[1], id_of(req.matches[2]), active));
              });
  // Test matches: an author's own entrant against any other, unrated, after the ladder's queue.
  http.Post("/api/ladders/" + id + "/tests", [this](const httplib::Request& req,
                                                    httplib::Response& res) {
    auto p = who(req, res);
    if (!p || !same_origin_write(req, res, *p)) return;
    const std::vector<std::string> seats = test_seats(req.body);
    if (seats.empty())
      return error(res, 400, "give the entrants: {\"seats\": [\"yoursv1\", \"theirsv2\"]}");
    // Counted before it is asked for, so that racing requests never pass the cap.
    if (auto over = submissions->take_test(p->name)) return error(res, 429, *over);
    const ApiReply r = ladders->request_test(id_of(req.matches[1]), seats, p->name, p->organizer());
    if (r.status != 202) submissions->give_back_test(p->name);
    reply(res, r);
  });
  http.Get("/api/my/tests", [this](const httplib::Request& req, httplib::Response& res) {
    if (auto p = who(req, res)) reply(res, ladders->tests(p->name, p->organizer()));
  });
  // The organizer's console: pause and resume ladders, export a tournament's results.
  auto organizer = [this](const httplib::Request& req, httplib::Response& res,
                          bool write) -> std::optional<Principal> {
    auto p = who(req, res);
    if (!p || (write && !same_origin_write(req, res, *p))) return std::nullopt;
    if (!p->organizer()) {
      error(res, 403, "for organizers only");
      return std::nullopt;
    }
    return p;
  };
  for (const auto& [verb, from, to] :
       {std::tuple{"pause", "running", "paused"}, std::tuple{"resume", "paused", "running"}})
    http.Post("/api/ladders/" + id + "/" + verb,
              [this, organizer, from, to](const httplib::Request& req, httplib::Response& res) {
                if (organizer(req, res, true))
                  reply(res, ladders->set_state(id_of(req.matches[1]), from, to));
              });
  const auto json_body = [](const httplib::Request& req) {
    try {
      return Json::parse(req.body);
    } catch (const Json::exception&) {
      return Json();
    }
  };
  http.Post("/api/ladders",
            [this, organizer, json_body](const httplib::Request& req, httplib::Response& res) {
              if (organizer(req, res, true)) reply(res, ladders->create(json_body(req)));
            });
  http.Post("/api/tournaments",
            [this, organizer, json_body](const httplib::Request& req, httplib::Response& res) {
              if (organizer(req, res, true)) reply(res, console->create_tournament(json_body(req)));
            });
  http.Post("/api/ladders/" + id + "/finals",
            [this, organizer, json_body](const httplib::Request& req, httplib::Response& res) {
              if (organizer(req, res, true))
                reply(res, ladders->finals(id_of(req.matches[1]), json_body(req)));
            });
  http.Get("/api/tournaments/" + id + "/export.csv",
           [this, organizer](const httplib::Request& req, httplib::Response& res) {
             if (!organizer(req, res, false)) return;
             const auto t = id_of(req.matches[1]);
             auto record = store->find_tournament(t);
             if (!record) return reply(res, store_failed(record.error()));
             if (!*record) return error(res, 404, fmt::format("no tournament {}", t));
             auto spec = tournament::decode_spec((*record)->spec);
             if (!spec)
               return error(res, 503, "its stored spec cannot be read: " + spec.error().message);
             auto rows = store->results(t);
             if (!rows) return reply(res, store_failed(rows.error()));
             res.set_header("Content-Disposition",
                            fmt::format("attachment; filename=\"tournament{}-matches.csv\"", t));
             res.set_content(tournament::matches_csv(*spec, *rows), "text/csv; charset=utf-8");
           });
  http.Post(R"(/.*)", [](const httplib::Request& req, httplib::Response& res) {
    error(res, 404, fmt::format("no such API route: POST {}", printable_line(req.path)));
  });
}

ViewerServer::ViewerServer(ServerOptions options, tournament::Store* store, LiveMatches* live)
    : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->store = store;
  if (store != nullptr) impl_->api = std::make_unique<StoreApi>(*store);
  if (store != nullptr)
    impl_->ladders = std::make_unique<LadderApi>(*store, impl_->options.show_stderr);
  impl_->live = live;
  if (store != nullptr && impl_->options.submissions) {
    SessionBook::Options book;
    book.lifetime = impl_->options.session_lifetime;
    impl_->sessions = std::make_unique<SessionBook>(*store, book);
    impl_->submissions = std::make_unique<SubmissionApi>(*store, impl_->options.submission);
    impl_->console = std::make_unique<ConsoleApi>(*store);
    SessionBook* sessions = impl_->sessions.get();
    SubmissionApi* submissions = impl_->submissions.get();
    impl_->options.desk.max_upload = impl_->options.max_upload;
    impl_->options.desk.big_body = [sessions, submissions](std::string_view head,
                                                           const std::string& address) {
      return upload_head(head, address, *sessions, *submissions);
    };
    impl_->options.desk.let_in = [submissions](const std::string& who, const std::string& address) {
      // A race past the cap costs one upload at most.
      (void)submissions->note_upload(who, address);
    };
  }
  impl_->routes();
}

ViewerServer::~ViewerServer() { stop(); }

Expected<std::uint16_t> ViewerServer::bind() {
  const auto& o = impl_->options;
  auto listener = TcpListener::listen(o.host, o.port, /*backlog=*/1024);
  if (!listener)
    return fail(listener.error().message +
                (o.port == 0 ? "" : " (the port in use, or not an address of this machine)"));
  if (!impl_->http.run_idle())
    return fail("cannot start the viewer: its request loop did not start (a pipe, a thread)");
  Impl* impl = impl_.get();
  impl_->desk = std::make_unique<RequestDesk>(
      std::move(*listener), o.desk, static_cast<std::size_t>(std::max(o.threads, 1)),
      [impl](RequestDesk::Request r) { impl->http.serve(std::move(r)); });
  return impl_->desk->port();
}

void ViewerServer::run() {
  impl_->desk->run();
}

void ViewerServer::start() {
  impl_->thread = std::thread([this] { impl_->desk->run(); });
}

void ViewerServer::stop() {
  impl_->stopping = true;
  if (impl_->desk) impl_->desk->stop();
  if (impl_->thread.joinable()) impl_->thread.join();
  impl_->http.halt();
}

}  // namespace arbiter::server
