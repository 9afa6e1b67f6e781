#include "server/link.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <fstream>
#include <utility>

#include <fmt/format.h>

#include "remote/child_process.h"

namespace arbiter::server {
namespace {

// OpenSSL's oldest queued error, as one line; `fallback` if it queued none.
std::string tls_error(std::string_view fallback) {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return std::string(fallback);
  char text[256];
  ERR_error_string_n(code, text, sizeof text);
  return text;
}

// Whether `path` opens for reading: a clearer error than OpenSSL's when it does not.
Expected<void> readable(const std::filesystem::path& path, std::string_view flag) {
  std::ifstream in(path);
  if (!in) return fail(fmt::format("{} {}: cannot read it", flag, path.string()));
  return {};
}

}  // namespace

Expected<std::shared_ptr<TlsContext>> TlsContext::load(const std::filesystem::path& cert,
                                                       const std::filesystem::path& key) {
  if (auto ok = readable(cert, "--tls-cert"); !ok) return std::unexpected(ok.error());
  if (auto ok = readable(key, "--tls-key"); !ok) return std::unexpected(ok.error());
  ERR_clear_error();
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (ctx == nullptr) return fail("TLS: " + tls_error("no context"));
  std::shared_ptr<TlsContext> out(new TlsContext(ctx));
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION |
                               SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_NO_TICKET);
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
  if (SSL_CTX_use_certificate_chain_file(ctx, cert.c_str()) != 1)
    return fail(fmt::format("--tls-cert {}: not a PEM certificate chain ({})", cert.string(),
                            tls_error("unreadable")));
  bool mismatch = false;
  if (SSL_CTX_use_PrivateKey_file(ctx, key.c_str(), SSL_FILETYPE_PEM) != 1) {
    mismatch = ERR_GET_REASON(ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH;
    if (!mismatch)
      return fail(fmt::format("--tls-key {}: not a PEM private key ({})", key.string(),
                              tls_error("unreadable")));
    ERR_clear_error();
  }
  if (mismatch || SSL_CTX_check_private_key(ctx) != 1)
    return fail(fmt::format("--tls-key {}: not the key of the certificate in {}", key.string(),
                            cert.string()));
  return out;
}

TlsContext::~TlsContext() {
  SSL_CTX_free(ctx_);
}

Link::Link(int fd, const TlsContext* tls) : fd_(fd) {
  if (tls == nullptr) return;
  // OpenSSL writes to the socket with write(), which raises SIGPIPE at a peer gone.
  ChildProcess::ignore_sigpipe();
  ssl_ = SSL_new(tls->get());
  if (ssl_ != nullptr && SSL_set_fd(ssl_, fd) == 1) {
    SSL_set_accept_state(ssl_);
    return;
  }
  SSL_free(ssl_);  // no session: every recv fails, and the desk drops the connection
  ssl_ = nullptr;
  broken_ = true;
}

Link::Link(Link&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      ssl_(std::exchange(other.ssl_, nullptr)),
      wants_(other.wants_),
      broken_(other.broken_) {}

Link& Link::operator=(Link&& other) noexcept {
  if (this != &other) {
    SSL_free(ssl_);
    fd_ = std::exchange(other.fd_, -1);
    ssl_ = std::exchange(other.ssl_, nullptr);
    wants_ = other.wants_;
    broken_ = other.broken_;
  }
  return *this;
}

Link::~Link() {
  SSL_free(ssl_);
}

bool Link::buffered() const {
  return ssl_ != nullptr && SSL_pending(ssl_) > 0;
}

ssize_t Link::failed(int result) {
  const int why = SSL_get_error(ssl_, result);
  ERR_clear_error();
  switch (why) {
    case SSL_ERROR_WANT_READ:
      wants_ = POLLIN;
      errno = EAGAIN;
      return -1;
    case SSL_ERROR_WANT_WRITE:
      wants_ = POLLOUT;
      errno = EAGAIN;
      return -1;
    case SSL_ERROR_ZERO_RETURN:
      return 0;
    case SSL_ERROR_SYSCALL:
      if (errno == 0) return 0;  // the peer closed without a close_notify
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) errno = ECONNRESET;
      return -1;
    default:  // not TLS, a failed handshake, a bad record
      errno = ECONNRESET;
      return -1;
  }
}

ssize_t Link::recv(char* buf, std::size_t size) {
  if (broken_) {
    errno = ECONNRESET;
    return -1;
  }
  if (ssl_ == nullptr) {
    wants_ = POLLIN;
    return ::recv(fd_, buf, size, 0);
  }
  if (size == 0) return 0;
  ERR_clear_error();
  errno = 0;
  const int n = SSL_read(ssl_, buf, static_cast<int>(std::min<std::size_t>(size, 1 << 30)));
  if (n > 0) return n;
  return failed(n);
}

ssize_t Link::send(const char* buf, std::size_t size) {
  if (broken_) {
    errno = ECONNRESET;
    return -1;
  }
  if (ssl_ == nullptr) {
    wants_ = POLLOUT;
    return ::send(fd_, buf, size, MSG_NOSIGNAL);
  }
  if (size == 0) return 0;
  ERR_clear_error();
  errno = 0;
  const int n = SSL_write(ssl_, buf, static_cast<int>(std::min<std::size_t>(size, 1 << 30)));
  if (n > 0) return n;
  const ssize_t r = failed(n);
  if (r != 0) return r;
  errno = EPIPE;  // a peer gone mid-answer is a failed write, not "0 bytes taken"
  return -1;
}

void Link::finish() {
  if (ssl_ != nullptr && !broken_ && SSL_is_init_finished(ssl_)) {
    ERR_clear_error();
    SSL_shutdown(ssl_);
    ERR_clear_error();
  }
  if (fd_ >= 0) ::shutdown(fd_, SHUT_WR);
}

}  // namespace arbiter::server
