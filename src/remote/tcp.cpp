// TCP listener and connector (IPv4 listening; connecting to whatever the host resolves to).
#include "remote/tcp.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <utility>
#include <cerrno>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "core/entropy.h"
#include "remote/fd_channel.h"
#include "remote/io.h"

namespace arbiter {

Expected<Address> parse_address(std::string_view text, std::string_view what, bool any_port) {
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0)
    return fail(fmt::format("{} \"{}\": expected HOST:PORT, e.g. 127.0.0.1:{}", what, text,
                            any_port ? 0 : 8080));
  const std::string_view digits = text.substr(colon + 1);
  const std::uint32_t low = any_port ? 0 : 1;
  std::uint32_t port = 0;
  const bool number = !digits.empty() && digits.size() <= 5 &&
                      digits.find_first_not_of("0123456789") == std::string_view::npos;
  if (number)
    for (char c : digits) port = port * 10 + static_cast<std::uint32_t>(c - '0');
  if (!number || port < low || port > 65535)
    return fail(
        fmt::format("{} \"{}\": the port must be a number from {} to 65535", what, text, low));
  return Address{std::string(text.substr(0, colon)), static_cast<std::uint16_t>(port)};
}
namespace {

void set_nodelay(int fd) {
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

// The peer's IP address, and how describe() names it (with the port).
std::pair<std::string, std::string> address_text(const sockaddr* addr) {
  char host[INET6_ADDRSTRLEN] = "?";
  if (addr->sa_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(addr);
    ::inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
    return {host, fmt::format("{}:{}", host, ntohs(in->sin_port))};
  }
  if (addr->sa_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(addr);
    ::inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
    return {host, fmt::format("[{}]:{}", host, ntohs(in6->sin6_port))};
  }
  return {"?", "?"};
}

// The IPv4 address to listen on; "localhost" is taken to mean the loopback address rather than
// whatever the resolver says, so that listening never depends on DNS.
Expected<in_addr> listen_address(const std::string& host) {
  in_addr addr{};
  if (host.empty() || host == "localhost") {
    addr.s_addr = htonl(INADDR_LOOPBACK);
    return addr;
  }
  if (::inet_pton(AF_INET, host.c_str(), &addr) == 1) return addr;
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = ::getaddrinfo(host.c_str(), nullptr, &hints, &found);
  if (rc != 0) return fail(fmt::format("cannot resolve \"{}\": {}", host, ::gai_strerror(rc)));
  addr = reinterpret_cast<const sockaddr_in*>(found->ai_addr)->sin_addr;
  ::freeaddrinfo(found);
  return addr;
}

}  // namespace

Expected<std::unique_ptr<TcpListener>> TcpListener::listen(const std::string& host,
                                                           std::uint16_t port, int backlog) {
  auto addr = listen_address(host);
  if (!addr) return std::unexpected(addr.error());
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return fail(fmt::format("cannot create a socket: {}", std::strerror(errno)));
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr = *addr;
  sa.sin_port = htons(port);
  socklen_t len = sizeof sa;
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&sa), sizeof sa) < 0 ||
      ::listen(fd, backlog) < 0 || ::getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len) < 0) {
    const int err = errno;
    ::close(fd);
    return fail(fmt::format("cannot listen on {}:{}: {}", host, port, std::strerror(err)));
  }
  return std::unique_ptr<TcpListener>(new TcpListener(fd, ntohs(sa.sin_port)));
}

TcpListener::~TcpListener() {
  close();
}

void TcpListener::close() {
  close_fd(fd_);
}

Expected<std::optional<TcpListener::Accepted>> TcpListener::accept_now() {
  for (;;) {
    if (fd_ < 0) return fail("listener closed");
    sockaddr_storage peer{};
    socklen_t len = sizeof peer;
    const int fd =
        ::accept4(fd_, reinterpret_cast<sockaddr*>(&peer), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd >= 0) {
      set_nodelay(fd);
      auto [host, text] = address_text(reinterpret_cast<const sockaddr*>(&peer));
      return Accepted{fd, std::move(host), std::move(text)};
    }
    switch (errno) {
      case EAGAIN:
#if EWOULDBLOCK != EAGAIN
      case EWOULDBLOCK:
#endif
        return std::optional<Accepted>();
      // A connection that died in the queue, or a signal: neither concerns the listener.
      case EINTR:
      case ECONNABORTED:
      case EPROTO:
      case EPERM:
        continue;
      default:
        return fail(fmt::format("accept failed: {}", std::strerror(errno)));
    }
  }
}

Expected<std::optional<std::unique_ptr<Channel>>> TcpListener::accept(const Deadline& deadline,
                                                                      Framing framing,
                                                                      ChannelLimits limits) {
  for (;;) {
    auto accepted = accept_now();
    if (!accepted) return std::unexpected(accepted.error());
    if (*accepted)
      return std::optional<std::unique_ptr<Channel>>(std::make_unique<FdChannel>(
          (*accepted)->fd, (*accepted)->fd, framing, limits, "tcp " + (*accepted)->peer));
    switch (wait_for(fd_, POLLIN, -1, deadline)) {
      case Ready::ready:
        break;
      case Ready::timeout:
        return std::optional<std::unique_ptr<Channel>>();
      case Ready::woken:
      case Ready::invalid:
        return fail("listener closed");
    }
  }
}

SignUpDesk::SignUpDesk(TcpListener& listener, Framing framing, Rules rules, ChannelLimits limits)
    : listener_(listener), framing_(framing), rules_(rules), limits_(limits) {
  rules_.max_pending = std::max<std::size_t>(rules_.max_pending, 1);
  rules_.max_pending_per_host = std::max<std::size_t>(rules_.max_pending_per_host, 1);
}

SignUpDesk::~SignUpDesk() {
  for (Pending& p : pending_) p.channel->close();
}

void SignUpDesk::conclude(std::size_t index, ChannelResult<Json> hello) {
  done_.push_back({std::move(pending_[index].channel), std::move(hello), pending_[index].number});
}

void SignUpDesk::admit(TcpListener::Accepted accepted, Instant now) {
  // Make room (pending_to_drop); the count is for the message.
  const std::size_t of_host = static_cast<std::size_t>(std::count_if(
      pending_.begin(), pending_.end(), [&](const Pending& p) { return p.host == accepted.host; }));
  const bool host_full = of_host >= rules_.max_pending_per_host;
  if (const auto quietest = pending_to_drop(pending_, accepted.host,
                                            {rules_.max_pending, rules_.max_pending_per_host})) {
    conclude(*quietest,
             std::unexpected(ChannelFault{
                 Why::timeout,
                 fmt::format("dropped to make room: {} connections were waiting to sign up{}, "
                             "and this one had been silent the longest",
                             host_full ? of_host : pending_.size(),
                             host_full ? " from " + accepted.host : std::string())}));
    pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(*quietest));
  }
  auto channel =
      std::make_unique<FdChannel>(accepted.fd, accepted.fd, framing_, limits_, "tcp " + accepted.peer);
  pending_.push_back({std::move(channel), accepted.fd, std::move(accepted.host), now,
                      now + rules_.wait, accepted_++});
}

Expected<std::optional<SignUpDesk::Arrival>> SignUpDesk::next(const Deadline& deadline) {
  // Connections accepted in one round at most, so that a flood cannot starve the reading.
  constexpr int kAcceptsPerRound = 256;
  const Clock& clock = SteadyClock::instance();
  std::vector<pollfd> fds;
  for (;;) {
    if (!done_.empty()) {
      Arrival arrival = std::move(done_.front());
      done_.pop_front();
      return arrival;
    }
    if (listener_.fd() < 0) return fail("listener closed");
    // Sleep until something is readable, the first pending wait ends, or the deadline.
    Duration sleep = deadline.remaining();
    const Instant now = clock.now();
    for (const Pending& p : pending_) sleep = std::min<Duration>(sleep, p.until - now);
    sleep = std::max<Duration>(sleep, Duration::zero());
    fds.assign(1, pollfd{listener_.fd(), POLLIN, 0});
    for (const Pending& p : pending_) fds.push_back({p.fd, POLLIN, 0});
    const timespec timeout{static_cast<time_t>(sleep.count() / 1'000'000'000),
                           static_cast<long>(sleep.count() % 1'000'000'000)};
    if (::ppoll(fds.data(), fds.size(), &timeout, nullptr) < 0 && errno != EINTR)
      return fail(fmt::format("poll failed: {}", std::strerror(errno)));

    const Instant woke = clock.now();
    for (std::size_t i = 0; i < pending_.size(); ++i) {
      Pending& p = pending_[i];
      if (fds[i + 1].revents != 0) {
        p.heard = woke;
        auto hello = p.channel->try_receive();
        if (!hello)
          conclude(i, std::unexpected(hello.error()));
        else if (*hello)
          conclude(i, std::move(**hello));
      }
      // Its wait is over only after it has had its chance to be read.
      if (p.channel && woke >= p.until)
        conclude(i, std::unexpected(ChannelFault{
                        Why::timeout,
                        fmt::format("no sign-up within {} ms",
                                    std::chrono::duration_cast<std::chrono::milliseconds>(
                                        rules_.wait)
                                        .count())}));
    }
    std::erase_if(pending_, [](const Pending& p) { return p.channel == nullptr; });

    if (fds[0].revents != 0) {
      for (int n = 0; n < kAcceptsPerRound; ++n) {
        auto accepted = listener_.accept_now();
        if (!accepted) return std::unexpected(accepted.error());
        if (!*accepted) break;
        admit(std::move(**accepted), woke);
      }
    }
    if (done_.empty() && deadline.passed()) return std::optional<Arrival>();
  }
}

namespace {

// One connection attempt to `addr`; the connected descriptor or errno.
std::expected<int, int> connect_one(const addrinfo& addr, const Deadline& deadline) {
  const int fd = ::socket(addr.ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return std::unexpected(errno);
  int rc;
  do {
    rc = ::connect(fd, addr.ai_addr, addr.ai_addrlen);
  } while (rc < 0 && errno == EINTR);
  if (rc < 0 && errno != EINPROGRESS) {
    const int err = errno;
    ::close(fd);
    return std::unexpected(err);
  }
  if (rc < 0) {
    int err = 0;
    switch (wait_for(fd, POLLOUT, -1, deadline)) {
      case Ready::ready: {
        socklen_t len = sizeof err;
        if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0) err = errno;
        break;
      }
      case Ready::timeout:
        err = ETIMEDOUT;
        break;
      case Ready::woken:
      case Ready::invalid:
        err = EBADF;
        break;
    }
    if (err != 0) {
      ::close(fd);
      return std::unexpected(err);
    }
  }
  set_nodelay(fd);
  return fd;
}

}  // namespace

Expected<std::unique_ptr<Channel>> tcp_connect(const std::string& host, std::uint16_t port,
                                               const Deadline& deadline, Framing framing,
                                               ChannelLimits limits) {
  const std::string service = std::to_string(port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  // A numeric address needs no resolver (which no deadline bounds); only names go to it.
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found);
  if (rc == EAI_NONAME) {
    hints.ai_flags = AI_NUMERICSERV;
    rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found);
  }
  if (rc != 0) return fail(fmt::format("cannot resolve \"{}\": {}", host, ::gai_strerror(rc)));

  // IPv4 first: our own listeners are IPv4 only, and "localhost" often resolves to ::1 first.
  std::vector<const addrinfo*> candidates;
  for (const addrinfo* a = found; a; a = a->ai_next) candidates.push_back(a);
  std::stable_partition(candidates.begin(), candidates.end(),
                        [](const addrinfo* a) { return a->ai_family == AF_INET; });
  int err = EADDRNOTAVAIL;
  int fd = -1;
  for (const addrinfo* a : candidates) {
    auto connected = connect_one(*a, deadline);
    if (connected) {
      fd = *connected;
      break;
    }
    err = connected.error();
    if (err == ETIMEDOUT) break;
  }
  ::freeaddrinfo(found);
  if (fd < 0) {
    return fail(fmt::format("cannot connect to {}:{}: {}", host, port,
                            err == ETIMEDOUT ? "timed out" : std::strerror(err)));
  }
  return std::make_unique<FdChannel>(fd, fd, framing, limits, fmt::format("tcp {}:{}", host, port));
}

std::string make_token(std::string_view seat) {
  return std::string(seat) + '-' + to_hex(unguessable_bytes(16));
}

bool tokens_match(std::string_view expected, std::string_view given) {
  if (expected.empty() || expected.size() != given.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < expected.size(); ++i)
    diff |= static_cast<unsigned char>(expected[i] ^ given[i]);
  return diff == 0;
}

}  // namespace arbiter
