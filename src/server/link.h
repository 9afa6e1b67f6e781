// Link: one connection's bytes, plain TCP or TLS over it (OpenSSL), on a non-blocking socket.
// recv() and send() answer as ::recv and ::send do on such a socket: bytes, 0 for a peer gone,
// or -1 with errno EAGAIN when they must wait; wants() then says what to poll the socket for
// before trying again (a TLS handshake may have to write while it reads, and the other way).
// The handshake happens inside the first recv(), so a client slow to shake hands is timed like
// one slow to send its request.
//
// A Link owns its TLS session, not its socket: whoever holds the Link closes `fd`.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <string>

#include "core/json.h"

struct ssl_st;
struct ssl_ctx_st;

namespace arbiter::server {

// A server's certificate chain and private key (PEM files), checked to belong together; TLS 1.2
// and later, no renegotiation, no compression.
class TlsContext {
 public:
  static Expected<std::shared_ptr<TlsContext>> load(const std::filesystem::path& cert,
                                                    const std::filesystem::path& key);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;
  ssl_ctx_st* get() const { return ctx_; }

 private:
  explicit TlsContext(ssl_ctx_st* ctx) : ctx_(ctx) {}
  ssl_ctx_st* ctx_;
};

class Link {
 public:
  Link() = default;
  // `fd` must be non-blocking. With `tls`, a server-side session is started on it.
  Link(int fd, const TlsContext* tls);
  Link(Link&&) noexcept;
  Link& operator=(Link&&) noexcept;
  ~Link();

  int fd() const { return fd_; }
  bool secure() const { return ssl_ != nullptr; }
  ssize_t recv(char* buf, std::size_t size);
  // Never raises SIGPIPE (a TLS link needs the process to ignore it: Link(fd, tls) sees to it).
  ssize_t send(const char* buf, std::size_t size);
  // POLLIN or POLLOUT: what the last recv() or send() that answered EAGAIN waits for.
  short wants() const { return wants_; }
  // Bytes already taken off the socket and decrypted, which poll() cannot see: read them now.
  bool buffered() const;
  // Says it has nothing more to send (a TLS close_notify, then shutdown(SHUT_WR)); best effort,
  // never waits. The socket stays open.
  void finish();

 private:
  ssize_t failed(int result);
  int fd_ = -1;
  ssl_st* ssl_ = nullptr;
  short wants_ = 0x001;  // POLLIN
  bool broken_ = false;  // its TLS session could not be made
};

}  // namespace arbiter::server
