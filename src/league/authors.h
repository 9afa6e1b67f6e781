// Authors and their login tokens (docs/competition.md). An author is made by the organizer at
// the command line, which prints the author's token once; the store keeps only a random salt
// and HMAC-SHA-256(salt, secret), so a copy of the store logs nobody in. A token is
// "NAME.SECRET": the name says whose salt and hash to check it against (names never hold a '.'),
// and the secret is 32 bytes from the kernel as 64 hex digits, so that guessing one is hopeless
// and no slow password hash is needed. Hashes are compared in constant time.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/json.h"
#include "tournament/store.h"

namespace arbiter::league {

struct NewAuthor {
  tournament::Author author;
  std::string token;  // shown once, never stored
};

// Makes an author named `name` (core/seat_name.h's rule) with `role` ("author" or
// "organizer"). Refused: a bad name or role, a name taken (revoked names too).
Expected<NewAuthor> add_author(tournament::Store& store, const std::string& name,
                               const std::string& role);

// The author a token logs in: nothing unless it is well formed, names an author, matches, and
// was not revoked (whatever the cause, a caller is told only kBadToken); an Error only when the
// store failed.
Expected<std::optional<tournament::Author>> authenticate(tournament::Store& store,
                                                         std::string_view token);

// What every refused token is told.
inline constexpr std::string_view kBadToken = "the token is not valid";

// Whether two strings are equal, in a time that depends only on their lengths.
bool same_bytes(std::string_view a, std::string_view b);

// Webhooks: the organizer points an author's events at a URL (http:// only, no user or
// fragment); each POST carries X-Arbiter-Signature: sha256=HEX, the HMAC-SHA-256 of its body by
// a key made here and shown once. Refused: an unknown author, a URL not of that form.
Expected<std::string> set_webhook(tournament::Store& store, const std::string& author,
                                  const std::string& url);

// The signature header's value for `body` signed with `key`.
std::string webhook_signature(std::string_view key, std::string_view body);

}  // namespace arbiter::league
