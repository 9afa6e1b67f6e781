#include "league/authors.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/entropy.h"
#include "core/seat_name.h"
#include "core/sha256.h"

namespace arbiter::league {

namespace {

constexpr std::size_t kSecretBytes = 32;
constexpr std::size_t kSaltBytes = 16;

std::string token_hash(std::string_view salt, std::string_view secret) {
  const auto mac = hmac_sha256(salt, secret);
  return to_hex(std::string_view(reinterpret_cast<const char*>(mac.data()), mac.size()));
}

bool is_hex(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

}  // namespace

bool same_bytes(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  // Read through a volatile so that the loop above is not cut short at the first difference.
  volatile unsigned char seen = diff;
  return seen == 0;
}

Expected<NewAuthor> add_author(tournament::Store& store, const std::string& name,
                               const std::string& role) {
  if (!valid_seat_name(name))
    return fail(fmt::format("author name \"{}\": {}", name, kSeatNameRule));
  if (std::ranges::find(tournament::kAuthorRoles, role) == std::end(tournament::kAuthorRoles))
    return fail(fmt::format("--role {}: expected author or organizer", role));
  const std::string salt = to_hex(unguessable_bytes(kSaltBytes));
  const std::string secret = to_hex(unguessable_bytes(kSecretBytes));
  auto author = store.add_author(name, role, salt, token_hash(salt, secret));
  if (!author) return std::unexpected(author.error());
  return NewAuthor{*author, name + "." + secret};
}

Expected<std::optional<tournament::Author>> authenticate(tournament::Store& store,
                                                         std::string_view token) {
  using Found = std::optional<tournament::Author>;
  const auto dot = token.find('.');
  if (dot == std::string_view::npos) return Found{};
  const std::string name(token.substr(0, dot));
  const std::string_view secret = token.substr(dot + 1);
  if (!valid_seat_name(name) || secret.size() != 2 * kSecretBytes || !is_hex(secret))
    return Found{};
  auto stored = store.author_secret(name);
  if (!stored) return std::unexpected(stored.error());
  if (!*stored) {
    // Hashed all the same, so that the time of a refusal does not tell names that exist.
    (void)same_bytes(token_hash(std::string(2 * kSaltBytes, '0'), secret), std::string(64, '0'));
    return Found{};
  }
  // Hashed and compared even for a revoked author: the answer takes as long either way.
  const bool matches = same_bytes(token_hash((*stored)->salt, secret), (*stored)->hash);
  if (!matches || !(*stored)->author.revoked.empty()) return Found{};
  return Found{(*stored)->author};
}

Expected<std::string> set_webhook(tournament::Store& store, const std::string& author,
                                  const std::string& url) {
  if (!url.empty()) {
    const std::string_view rest = std::string_view(url).substr(url.starts_with("http://") ? 7 : 0);
    const bool ok =
        url.starts_with("http://") && !rest.empty() && rest.front() != '/' &&
        rest.find('@') == std::string_view::npos && rest.find('#') == std::string_view::npos &&
        std::none_of(rest.begin(), rest.end(),
                     [](char c) { return static_cast<unsigned char>(c) <= ' ' || c == 0x7f; });
    if (!ok)
      return fail(
          fmt::format("webhook \"{}\": expected http://HOST[:PORT]/PATH (no user, no "
                      "fragment, no spaces)",
                      url));
  }
  const std::string key = url.empty() ? std::string() : to_hex(unguessable_bytes(kSecretBytes));
  if (auto ok = store.set_webhook(author, url, key); !ok) return std::unexpected(ok.error());
  return key;
}

std::string webhook_signature(std::string_view key, std::string_view body) {
  const auto mac = hmac_sha256(key, body);
  return "sha256=" +
         to_hex(std::string_view(reinterpret_cast<const char*>(mac.data()), mac.size()));
}

}  // namespace arbiter::league
