#include "server/request_desk.h"

#include <arpa/inet.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>

#include <fmt/format.h>

#include "core/json.h"

namespace arbiter::server {
namespace {

using Clock = std::chrono::steady_clock;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The value of header `name` (lower case) in `head`, trimmed: of its first line, or of its
// `last` line; empty if absent.
std::string header(std::string_view head, std::string_view name, bool last = false) {
  std::string found;
  std::size_t at = head.find('\n');
  while (at != std::string_view::npos && at + 1 < head.size()) {
    const std::size_t end = head.find('\n', at + 1);
    std::string_view line = head.substr(at + 1, end == std::string_view::npos ? end : end - at - 1);
    const std::size_t colon = line.find(':');
    if (colon != std::string_view::npos && lower(line.substr(0, colon)) == name) {
      std::string_view value = line.substr(colon + 1);
      while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
        value.remove_prefix(1);
      while (!value.empty() && (value.back() == '\r' || value.back() == ' '))
        value.remove_suffix(1);
      found = std::string(value);
      if (!last) return found;
    }
    at = end;
  }
  return found;
}

// Best effort: the peer gets what the socket takes now, and nothing waits for it.
void send_now(Link& link, std::string_view text) {
  [[maybe_unused]] ssize_t n = link.send(text.data(), text.size());
}

// The client's address a proxy appended to X-Forwarded-For: the last entry of its last line
// (any before came from the client itself), an IPv6 one as its /64 (one client holds a whole
// /64); "unknown" when there is none or it is not an address.
std::string forwarded_for(std::string_view head) {
  std::string last = header(head, "x-forwarded-for", /*last=*/true);
  if (const std::size_t comma = last.rfind(','); comma != std::string::npos)
    last.erase(0, comma + 1);
  const std::size_t first = last.find_first_not_of(" \t");
  const std::size_t end = last.find_last_not_of(" \t\r");
  if (first == std::string::npos) return "unknown";
  last = last.substr(first, end - first + 1);
  if (in_addr v4{}; ::inet_pton(AF_INET, last.c_str(), &v4) == 1) {
    char out[INET_ADDRSTRLEN];
    return ::inet_ntop(AF_INET, &v4, out, sizeof out);
  }
  if (last.size() > 2 && last.front() == '[' && last.back() == ']')
    last = last.substr(1, last.size() - 2);
  if (in6_addr v6{}; ::inet_pton(AF_INET6, last.c_str(), &v6) == 1) {
    std::fill(std::begin(v6.s6_addr) + 8, std::end(v6.s6_addr), 0);
    char out[INET6_ADDRSTRLEN];
    return std::string(::inet_ntop(AF_INET6, &v6, out, sizeof out)) + "/64";
  }
  return "unknown";
}

const char* reason(int status) {
  switch (status) {
    case 408:
      return "Request Timeout";
    case 411:
      return "Length Required";
    case 413:
      return "Payload Too Large";
    case 431:
      return "Request Header Fields Too Large";
    case 503:
      return "Service Unavailable";
    default:
      return "Bad Request";
  }
}

}  // namespace

void answer_and_close(Link& link, int status, const std::string& message) {
  const std::string body = dump(Json{{"error", message}});
  send_now(link, fmt::format("HTTP/1.1 {} {}\r\nContent-Type: application/json\r\nContent-Length: "
                             "{}\r\nConnection: close\r\n\r\n{}",
                             status, reason(status), body.size(), body));
  link.finish();
  ::close(link.fd());
}

RequestDesk::RequestDesk(std::unique_ptr<TcpListener> listener, Rules rules, std::size_t threads,
                         Handler handler)
    : listener_(std::move(listener)),
      rules_([&] {
        if (rules.max_active_per_host == 0)
          rules.max_active_per_host =
              std::max<std::size_t>(4, std::max<std::size_t>(threads, 1) * 3 / 4);
        return rules;
      }()),
      handler_(std::move(handler)) {
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  threads_.resize(std::max<std::size_t>(threads, 1));
}

RequestDesk::~RequestDesk() {
  stop();
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

void RequestDesk::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    // A request thread writing to a client that does not read returns at once.
    for (const int fd : serving_) ::shutdown(fd, SHUT_RDWR);
  }
  work_.notify_all();
  const std::uint64_t one = 1;
  [[maybe_unused]] ssize_t n = ::write(wake_fd_, &one, sizeof one);
}

RequestDesk::Step RequestDesk::read_some(Pending& p) {
  char buf[16 << 10];
  for (;;) {
    const ssize_t n = p.link.recv(buf, sizeof buf);
    if (n == 0) {
      ::close(p.link.fd());  // gone before its request was whole
      return Step::answered;
    }
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      ::close(p.link.fd());
      return Step::answered;
    }
    p.bytes.append(buf, static_cast<std::size_t>(n));
    if (p.body_at == 0) {
      const std::size_t end = p.bytes.find("\r\n\r\n");
      if (end == std::string::npos) {
        if (p.bytes.size() > rules_.max_head) {
          answer_and_close(p.link, 431,
                           fmt::format("a request head is at most {} bytes", rules_.max_head));
          return Step::answered;
        }
        continue;
      }
      if (end + 4 > rules_.max_head) {
        answer_and_close(p.link, 431,
                         fmt::format("a request head is at most {} bytes", rules_.max_head));
        return Step::answered;
      }
      const std::string_view head(p.bytes.data(), end + 2);
      if (!rules_.proxy.empty()) p.host = forwarded_for(head);
      if (!header(head, "transfer-encoding").empty()) {
        answer_and_close(p.link, 411, "give the body's Content-Length (no chunked bodies)");
        return Step::answered;
      }
      const std::string length = header(head, "content-length");
      std::size_t value = 0;
      if (!length.empty()) {
        const auto [ptr, ec] = std::from_chars(length.data(), length.data() + length.size(), value);
        if (ec != std::errc() || ptr != length.data() + length.size()) {
          answer_and_close(p.link, 400, "Content-Length: not a number");
          return Step::answered;
        }
      }
      if (value > rules_.max_body) {
        if (value > rules_.max_upload || !rules_.big_body) {
          answer_and_close(p.link, 413,
                           fmt::format("a request body is at most {} bytes",
                                       std::max(rules_.max_body, rules_.max_upload)));
          return Step::answered;
        }
        const auto gating = std::count_if(pending_.begin(), pending_.end(),
                                          [](const Pending& q) { return q.gating; });
        if (static_cast<std::size_t>(gating) >= rules_.max_gating) {
          answer_and_close(p.link, 503, "too many uploads at once: try again in a moment");
          return Step::answered;
        }
        // big_body decides on its own thread; nothing more is read until it has.
        p.gating = true;
        p.head_end = end + 4;
        p.length = value;
        p.until = Clock::now() + rules_.head_wait + rules_.gate_wait;
        {
          std::lock_guard lock(gate_mu_);
          gate_jobs_.push_back({p.serial, std::string(head), p.host});
        }
        gate_cv_.notify_one();
        return Step::waiting;
      }
      if (const Step step = begin_body(p, end + 4, value); step != Step::waiting) return step;
      continue;
    }
    if (p.bytes.size() >= p.body_at + p.length) {
      p.bytes.resize(p.body_at + p.length);  // a pipelined request after it is not served
      return Step::complete;
    }
  }
  return Step::waiting;
}

RequestDesk::Step RequestDesk::begin_body(Pending& p, std::size_t head_end, std::size_t length) {
  p.body_at = head_end;
  p.length = length;
  // A body has its own time, by its size.
  p.until =
      Clock::now() + rules_.head_wait +
      std::chrono::milliseconds(length * 1000 / std::max<std::size_t>(rules_.min_body_rate, 1));
  const std::string_view head(p.bytes.data(), head_end - 2);
  if (length > 0 && lower(header(head, "expect")) == "100-continue") {
    send_now(p.link, "HTTP/1.1 100 Continue\r\n\r\n");
    // Answered here: the head handed on says nothing more of it.
    const std::size_t at = lower(std::string(head)).find("\r\nexpect:");
    if (at != std::string::npos) {
      const std::size_t eol = p.bytes.find("\r\n", at + 2);
      p.bytes.erase(at, eol - at);
      p.body_at -= eol - at;
    }
  }
  if (p.bytes.size() >= p.body_at + p.length) {
    p.bytes.resize(p.body_at + p.length);
    return Step::complete;
  }
  return Step::waiting;
}

void RequestDesk::gate_loop() {
  for (;;) {
    GateJob job;
    {
      std::unique_lock lock(gate_mu_);
      gate_cv_.wait(lock, [&] { return gate_stopping_ || !gate_jobs_.empty(); });
      if (gate_stopping_) return;
      job = std::move(gate_jobs_.front());
      gate_jobs_.pop_front();
    }
    Verdict verdict;
    try {
      verdict = rules_.big_body(job.head, job.host);
    } catch (...) {
      verdict = {std::nullopt, 503, "the upload could not be checked: try again"};
    }
    {
      std::lock_guard lock(gate_mu_);
      verdicts_[job.serial] = std::move(verdict);
    }
    const std::uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(wake_fd_, &one, sizeof one);
  }
}

void RequestDesk::take_verdicts(std::vector<bool>& gone) {
  std::map<std::uint64_t, Verdict> verdicts;
  {
    std::lock_guard lock(gate_mu_);
    verdicts.swap(verdicts_);
  }
  for (auto& [serial, verdict] : verdicts) {
    const auto it = std::find_if(
        pending_.begin(), pending_.end(),
        [serial = serial](const Pending& p) { return p.serial == serial && p.gating; });
    if (it == pending_.end()) continue;  // it timed out or went meanwhile
    Pending& p = *it;
    const std::size_t i = static_cast<std::size_t>(it - pending_.begin());
    p.gating = false;
    std::string refusal;
    int status = 503;
    if (!verdict.who) {
      status = verdict.status;
      refusal = verdict.message.empty()
                    ? fmt::format("a request body is at most {} bytes (an upload needs a login)",
                                  rules_.max_body)
                    : verdict.message;
    } else if (std::any_of(pending_.begin(), pending_.end(),
                           [&](const Pending& q) { return q.vouched_for == *verdict.who; })) {
      refusal = "one upload at a time: yours is still arriving";
    } else if (static_cast<std::size_t>(
                   std::count_if(pending_.begin(), pending_.end(), [](const Pending& q) {
                     return !q.vouched_for.empty();
                   })) >= rules_.max_uploads) {
      refusal = "too many uploads at once: try again in a moment";
    }
    if (!refusal.empty()) {
      answer_and_close(p.link, status, refusal);
      gone[i] = true;
      continue;
    }
    p.vouched_for = *verdict.who;
    p.heard = Clock::now();
    p.vouched_at = p.heard;
    if (rules_.let_in) rules_.let_in(p.vouched_for, p.host);
    if (begin_body(p, p.head_end, p.length) == Step::complete) {
      hand_over(p);
      gone[i] = true;
    }
  }
}

// Why a vouched upload is dropped now: after `head_wait`, its body must have come at
// `min_body_rate` on average since it was vouched for. Empty while it keeps up.
std::string RequestDesk::behind_pace(const Pending& p, Clock::time_point now) const {
  const auto since = now - p.vouched_at - rules_.head_wait;
  if (since <= Clock::duration::zero()) return {};
  const auto due = static_cast<std::size_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(since).count() *
      static_cast<std::int64_t>(rules_.min_body_rate) / 1000);
  const std::size_t got = p.bytes.size() > p.body_at ? p.bytes.size() - p.body_at : 0;
  if (got >= std::min(due, p.length)) return {};
  return fmt::format("the upload came too slowly ({} of {} bytes; at least {} a second)", got,
                     p.length, rules_.min_body_rate);
}

// Which pending connection to drop so that one more from `host` may wait: among those still
// sending their heads only (pending_to_drop's rule); nothing while there is room.
std::optional<std::size_t> RequestDesk::to_drop(const std::string& host) const {
  struct Waiting {
    std::string host;
    Clock::time_point heard;
    std::size_t index;
  };
  std::vector<Waiting> waiting;
  for (std::size_t i = 0; i < pending_.size(); ++i)
    if (!pending_[i].gating && pending_[i].vouched_for.empty())
      waiting.push_back({pending_[i].host, pending_[i].heard, i});
  // Behind a proxy every connection comes from it: only the whole desk's cap holds.
  const std::size_t per_host =
      rules_.proxy.empty() ? rules_.max_pending_per_host : rules_.max_pending;
  const auto drop = pending_to_drop(waiting, host, {rules_.max_pending, per_host});
  if (!drop) return std::nullopt;
  return waiting[*drop].index;
}

void RequestDesk::hand_over(Pending& p) {
  {
    std::lock_guard lock(mu_);
    std::size_t& mine = active_[p.host];
    if (mine >= rules_.max_active_per_host) {
      if (mine == 0) active_.erase(p.host);
    } else if (queue_.size() < rules_.max_queued) {
      ++mine;
      queue_.push_back({std::move(p.link), std::move(p.bytes), std::move(p.host), p.port});
      work_.notify_one();
      return;
    }
  }
  answer_and_close(p.link, 503, "the viewer is busy: try again in a moment");
}

void RequestDesk::serve_queue() {
  for (;;) {
    Request request;
    {
      std::unique_lock lock(mu_);
      work_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      request = std::move(queue_.front());
      queue_.pop_front();
      serving_.insert(request.link.fd());
    }
    const int fd = request.link.fd();
    const std::string host = request.host;
    try {
      handler_(std::move(request));
    } catch (...) {
      // A handler's failure ends its request only; the handler closes what it was given.
    }
    std::lock_guard lock(mu_);
    serving_.erase(fd);
    ::close(fd);  // under the lock: stop() never shuts a number reused meanwhile
    if (auto it = active_.find(host); it != active_.end() && --it->second == 0) active_.erase(it);
  }
}

void RequestDesk::run() {
  for (auto& t : threads_) t = std::thread([this] { serve_queue(); });
  if (rules_.big_body) gate_ = std::thread([this] { gate_loop(); });
  // Connections accepted in one round at most, so that a flood cannot starve the reading.
  constexpr int kAcceptsPerRound = 256;
  std::vector<pollfd> fds;
  for (;;) {
    {
      std::lock_guard lock(mu_);
      if (stopping_) break;
    }
    auto sleep = std::chrono::milliseconds(1000);
    const auto now = Clock::now();
    for (const Pending& p : pending_) {
      sleep = std::min(sleep, std::chrono::ceil<std::chrono::milliseconds>(p.until - now));
      if (!p.gating && p.link.buffered()) sleep = std::chrono::milliseconds(0);
    }
    fds.assign({pollfd{listener_->fd(), POLLIN, 0}, pollfd{wake_fd_, POLLIN, 0}});
    for (const Pending& p : pending_)
      fds.push_back({p.link.fd(), static_cast<short>(p.gating ? 0 : p.link.wants()), 0});
    if (::poll(fds.data(), fds.size(), static_cast<int>(std::max<long>(sleep.count(), 0))) < 0 &&
        errno != EINTR)
      break;
    if (fds[1].revents != 0) {
      std::uint64_t count = 0;
      [[maybe_unused]] ssize_t n = ::read(wake_fd_, &count, sizeof count);
    }
    const auto woke = Clock::now();
    std::vector<bool> gone(pending_.size(), false);
    take_verdicts(gone);
    for (std::size_t i = 0; i < pending_.size(); ++i) {
      Pending& p = pending_[i];
      if (gone[i]) continue;
      if (p.gating && fds[i + 2].revents != 0) {  // hung up while big_body decided
        ::close(p.link.fd());
        gone[i] = true;
        continue;
      }
      if (!p.gating && (fds[i + 2].revents != 0 || p.link.buffered())) {
        p.heard = woke;
        const Step step = read_some(p);
        if (step == Step::complete) hand_over(p);
        if (step != Step::waiting) {
          gone[i] = true;
          continue;
        }
      }
      // A vouched upload keeps its place only while it keeps the pace: a logged-in author
      // cannot hold one of the few upload slots with a body that never comes.
      if (!p.vouched_for.empty()) {
        if (const std::string slow = behind_pace(p, woke); !slow.empty()) {
          answer_and_close(p.link, 408, slow);
          gone[i] = true;
          continue;
        }
      }
      // Its wait is over only after it has had its chance to be read.
      if (woke >= p.until) {
        if (p.gating)
          answer_and_close(p.link, 503, "no answer in time on who sent this upload: try again");
        else
          answer_and_close(p.link, 408,
                           "the request did not arrive in time (send it whole, at once)");
        gone[i] = true;
      }
    }
    for (std::size_t i = pending_.size(); i-- > 0;)
      if (gone[i]) pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
    if (fds[0].revents != 0) {
      for (int n = 0; n < kAcceptsPerRound; ++n) {
        auto accepted = listener_->accept_now();
        if (!accepted || !*accepted) break;
        auto& a = **accepted;
        if (const auto drop = to_drop(a.host)) {
          answer_and_close(pending_[*drop].link, 503,
                           "dropped to make room: this connection had been silent the longest");
          pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(*drop));
        }
        int port = 0;
        if (const auto colon = a.peer.rfind(':'); colon != std::string::npos)
          std::from_chars(a.peer.data() + colon + 1, a.peer.data() + a.peer.size(), port);
        if (!rules_.proxy.empty() && a.host != rules_.proxy) {
          ::close(a.fd);  // behind a proxy, nobody else may connect
          continue;
        }
        pending_.push_back({Link(a.fd, rules_.tls.get()),
                            std::move(a.host),
                            port,
                            {},
                            woke,
                            woke + rules_.head_wait});
        pending_.back().serial = ++accepted_;
      }
    }
  }
  for (Pending& p : pending_) ::close(p.link.fd());
  pending_.clear();
  {
    std::lock_guard lock(gate_mu_);
    gate_stopping_ = true;
  }
  gate_cv_.notify_all();
  if (gate_.joinable()) gate_.join();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  std::lock_guard lock(mu_);
  for (Request& r : queue_) ::close(r.link.fd());
  queue_.clear();
}

}  // namespace arbiter::server
