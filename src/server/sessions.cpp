#include "server/sessions.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/entropy.h"
#include "core/sha256.h"
#include "league/authors.h"

namespace arbiter::server {

namespace {

std::string key_of(std::string_view id) {
  return sha256_hex(id);
}

}  // namespace

SessionBook::SessionBook(tournament::Store& store, Options options)
    : store_(store),
      options_(std::move(options)),
      refused_(options_.max_refused, options_.refused_window) {}

bool SessionBook::throttled(const std::string& address) {
  std::lock_guard lock(mu_);
  return !refused_.under(address, options_.now());
}

std::string SessionBook::throttled_message() const {
  return fmt::format("{} refused tokens from your address in {} minutes: wait before trying again",
                     options_.max_refused, options_.refused_window.count() / 60);
}

Expected<std::optional<tournament::Author>> SessionBook::standing(const std::string& name) {
  auto stored = store_.author_secret(name);
  if (!stored) return std::unexpected(stored.error());
  if (!*stored || !(*stored)->author.revoked.empty()) return std::optional<tournament::Author>{};
  return std::optional<tournament::Author>{(*stored)->author};
}

Expected<std::optional<SessionBook::Opened>> SessionBook::open(std::string_view token,
                                                               const std::string& address) {
  auto who = league::authenticate(store_, token);
  if (!who) return std::unexpected(who.error());
  if (!*who) {
    std::lock_guard lock(mu_);
    refused_.note(address, options_.now());
    return std::optional<Opened>{};
  }
  Opened o;
  o.id = to_hex(unguessable_bytes(32));
  o.who = {(*who)->name, (*who)->role, true, to_hex(unguessable_bytes(32))};
  std::lock_guard lock(mu_);
  const auto now = options_.now();
  std::erase_if(sessions_, [&](const auto& kv) { return kv.second.expires <= now; });
  const auto drop_oldest = [&](bool of_author) {
    auto oldest = sessions_.end();
    for (auto it = sessions_.begin(); it != sessions_.end(); ++it)
      if ((!of_author || it->second.author == o.who.name) &&
          (oldest == sessions_.end() || it->second.order < oldest->second.order))
        oldest = it;
    if (oldest != sessions_.end()) sessions_.erase(oldest);
  };
  while (std::count_if(sessions_.begin(), sessions_.end(), [&](const auto& kv) {
           return kv.second.author == o.who.name;
         }) >= static_cast<std::ptrdiff_t>(std::max<std::size_t>(options_.max_per_author, 1)))
    drop_oldest(true);
  while (!sessions_.empty() && sessions_.size() >= options_.max_sessions) drop_oldest(false);
  sessions_[key_of(o.id)] = {o.who.name, o.who.csrf, now + options_.lifetime, ++opened_};
  return std::optional<Opened>{std::move(o)};
}

Expected<std::optional<Principal>> SessionBook::find(std::string_view id) {
  Principal p;
  {
    std::lock_guard lock(mu_);
    auto it = sessions_.find(key_of(id));
    if (it == sessions_.end()) return std::optional<Principal>{};
    if (it->second.expires <= options_.now()) {
      sessions_.erase(it);
      return std::optional<Principal>{};
    }
    p.name = it->second.author;
    p.csrf = it->second.csrf;
  }
  auto author = standing(p.name);
  if (!author) return std::unexpected(author.error());
  if (!*author) {
    close(id);
    return std::optional<Principal>{};
  }
  p.role = (*author)->role;
  p.by_cookie = true;
  return std::optional<Principal>{std::move(p)};
}

Expected<std::optional<Principal>> SessionBook::bearer(std::string_view token,
                                                       const std::string& address) {
  auto who = league::authenticate(store_, token);
  if (!who) return std::unexpected(who.error());
  if (!*who) {
    std::lock_guard lock(mu_);
    refused_.note(address, options_.now());
    return std::optional<Principal>{};
  }
  return std::optional<Principal>{Principal{(*who)->name, (*who)->role, false, {}}};
}

void SessionBook::close(std::string_view id) {
  std::lock_guard lock(mu_);
  sessions_.erase(key_of(id));
}

std::string cookie_value(std::string_view header, std::string_view name) {
  std::size_t at = 0;
  while (at < header.size()) {
    std::size_t end = header.find(';', at);
    if (end == std::string_view::npos) end = header.size();
    std::string_view part = header.substr(at, end - at);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    if (part.size() > name.size() && part.substr(0, name.size()) == name &&
        part[name.size()] == '=')
      return std::string(part.substr(name.size() + 1));
    at = end + 1;
  }
  return {};
}

}  // namespace arbiter::server
