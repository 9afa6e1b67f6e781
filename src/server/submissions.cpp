#include "server/submissions.h"

#include <charconv>
#include <optional>

#include <fmt/format.h>
#include <httplib.h>

#include "core/printable.h"
#include "core/units.h"
#include "league/authors.h"

namespace arbiter::server {

namespace {

using tournament::BotVersion;

constexpr std::size_t kOutbox = 1000;  // events waiting to be posted; the oldest go beyond

struct Target {
  std::string host;
  int port = 80;
  std::string path = "/";
};

// "http://HOST[:PORT][/PATH]" (league::set_webhook checked its form), or nothing.
std::optional<Target> webhook_target(std::string_view url) {
  if (!url.starts_with("http://")) return std::nullopt;
  url.remove_prefix(7);
  Target t;
  const std::size_t slash = url.find('/');
  std::string_view authority = url.substr(0, slash);
  if (slash != std::string_view::npos) t.path = std::string(url.substr(slash));
  const std::size_t colon = authority.rfind(':');
  if (colon != std::string_view::npos && authority.find(']', colon) == std::string_view::npos) {
    const auto digits = authority.substr(colon + 1);
    if (std::from_chars(digits.data(), digits.data() + digits.size(), t.port).ec != std::errc())
      return std::nullopt;
    authority = authority.substr(0, colon);
  }
  if (authority.size() > 2 && authority.front() == '[' && authority.back() == ']')
    authority = authority.substr(1, authority.size() - 2);
  if (authority.empty()) return std::nullopt;
  t.host = std::string(authority);
  return t;
}

Json version_json(const BotVersion& v) {
  return {{"bot", v.name},      {"version", v.version}, {"game", v.game},
          {"status", v.status}, {"reason", v.reason},   {"created", v.created},
          {"author", v.author}, {"source", v.source},   {"artifact", v.artifact}};
}

bool may_see(const Principal& who, const BotVersion& v) {
  return who.organizer() || (!v.author.empty() && v.author == who.name);
}

}  // namespace

SubmissionApi::SubmissionApi(tournament::Store& store, Options options)
    : store_(store),
      options_(std::move(options)),
      by_author_(options_.uploads_per_hour, std::chrono::hours(1)),
      by_address_(options_.uploads_per_address, std::chrono::hours(1)),
      tests_(options_.tests_per_hour, std::chrono::hours(1)) {
  resume_unfinished();
  for (int i = 0; i < std::max(options_.builders, 1); ++i)
    builders_.emplace_back([this] { build_loop(); });
  notifier_ = std::thread([this] { notify_loop(); });
}

SubmissionApi::~SubmissionApi() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : builders_) t.join();
  notifier_.join();
}

void SubmissionApi::keep_report(const BotVersion& v, const std::string& report) {
  auto log = store_.bot_build_log(v.name, v.version);
  std::string text = log && *log ? **log : std::string();
  if (!text.empty() && text.back() != '\n') text += '\n';
  text += "== bot check ==\n" + report;
  (void)store_.set_bot_status(v.name, v.version, v.status, v.reason, "", text);
}

void SubmissionApi::notify(const BotVersion& v) {
  // Its author hears of it, and every organizer (who sees every bot) that stands.
  std::vector<std::string> to;
  if (!v.author.empty()) to.push_back(v.author);
  if (auto all = store_.authors(); all)
    for (const auto& a : *all)
      if (a.role == "organizer" && a.revoked.empty() && a.name != v.author) to.push_back(a.name);
  const std::string body = dump(Json{{"event", "version"},
                                     {"bot", v.name},
                                     {"version", v.version},
                                     {"author", v.author},
                                     {"status", v.status},
                                     {"reason", v.reason}});
  {
    std::lock_guard lock(mu_);
    for (const std::string& name : to) {
      if (outbox_.size() >= kOutbox) outbox_.pop_front();
      outbox_.emplace_back(name, body);
    }
  }
  cv_.notify_all();
}

void SubmissionApi::notify_loop() {
  for (;;) {
    std::pair<std::string, std::string> next;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !outbox_.empty(); });
      if (stopping_) return;
      next = std::move(outbox_.front());
      outbox_.pop_front();
    }
    auto hook = store_.webhook(next.first);
    if (!hook || !*hook) continue;
    const auto target = webhook_target((*hook)->first);
    if (!target) continue;
    // One try, within seconds: an author's receiver that is down misses the event (the page and
    // GET /api/my/bots still say it).
    httplib::Client client(target->host, target->port);
    client.set_connection_timeout(std::chrono::seconds(3));
    client.set_read_timeout(std::chrono::seconds(5));
    client.set_write_timeout(std::chrono::seconds(5));
    httplib::Headers headers{
        {"X-Arbiter-Signature", league::webhook_signature((*hook)->second, next.second)}};
    (void)client.Post(target->path, headers, next.second, "application/json");
  }
}

void SubmissionApi::resume_unfinished() {
  auto all = store_.bot_versions();
  if (!all) return;  // the store will say so again at the first request
  for (const BotVersion& v : *all) {
    if (v.status != "building" && v.status != "checking") continue;
    auto tree = league::fetch_tree(store_, v.source, options_.add.caps);
    auto manifest = league::decode_manifest(v.manifest);
    if (!tree || !manifest) {
      (void)store_.set_bot_status(v.name, v.version, "check-failed",
                                  "its stored files could not be read back to build it");
      continue;
    }
    queue_.push_back({v, {std::move(*tree), std::move(*manifest)}});
  }
}

void SubmissionApi::build_loop() {
  for (;;) {
    league::StagedBot staged;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      staged = std::move(queue_.front());
      queue_.pop_front();
      ++building_;
    }
    league::AddOptions add = options_.add;
    add.author = staged.version.author;
    std::string report;
    if (options_.check)
      add.gate = league::check_gate(*options_.check,
                                    [&report](const league::CheckReport& r) { report = r.text(); });
    auto ended = league::admit_bot(store_, staged, add);  // the version's row says how it ended
    if (ended && !report.empty()) keep_report(*ended, report);
    if (ended) notify(*ended);
    {
      std::lock_guard lock(mu_);
      --building_;
    }
    cv_.notify_all();
  }
}

void SubmissionApi::wait_idle() {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return stopping_ || (queue_.empty() && building_ == 0); });
}

std::optional<std::string> SubmissionApi::over_cap(const std::string& author,
                                                   const std::string& address) {
  std::lock_guard lock(mu_);
  return over_cap_locked(author, address, options_.now());
}

std::optional<std::string> SubmissionApi::over_cap_locked(const std::string& author,
                                                          const std::string& address,
                                                          Clock::time_point now) {
  if (!by_author_.under(author, now))
    return fmt::format("at most {} uploads an hour: try again later", by_author_.cap());
  if (!by_address_.under(address, now))
    return fmt::format("at most {} uploads an hour from one address: try again later",
                       by_address_.cap());
  return std::nullopt;
}

std::optional<std::string> SubmissionApi::take_test(const std::string& author) {
  std::lock_guard lock(mu_);
  if (tests_.note(author, options_.now())) return std::nullopt;
  return fmt::format("at most {} test matches an hour: try again later", tests_.cap());
}

void SubmissionApi::give_back_test(const std::string& author) {
  std::lock_guard lock(mu_);
  tests_.forget_last(author);
}

std::optional<std::string> SubmissionApi::note_upload(const std::string& author,
                                                      const std::string& address) {
  std::lock_guard lock(mu_);
  const auto now = options_.now();
  if (auto over = over_cap_locked(author, address, now)) return over;
  by_author_.note(author, now);
  by_address_.note(address, now);
  return std::nullopt;
}

ApiReply SubmissionApi::upload(const Principal& who, const std::string& address,
                               std::string_view bytes, const std::string& filename, bool counted) {
  if (!counted)
    if (auto over = note_upload(who.name, address)) return api_error(429, *over);
  const std::string label = filename.empty() ? "the upload" : printable_line(filename);
  auto files = league::read_uploaded_bot(bytes, label, options_.add.caps);
  if (!files) return api_error(400, files.error().message);
  league::AddOptions add = options_.add;
  add.author = who.organizer() ? std::string() : who.name;
  if (auto ok = league::author_may_add(store_, add.author); !ok)
    return api_error(403, ok.error().message);
  auto staged = league::stage_bot(store_, std::move(*files), label, add);
  if (!staged) return api_error(400, staged.error().message);
  Json body = version_json(staged->version);
  {
    std::lock_guard lock(mu_);
    queue_.push_back(std::move(*staged));
  }
  cv_.notify_all();  // builders and the notifier share it
  return {202, body};
}

Expected<std::optional<BotVersion>> SubmissionApi::find(const std::string& name, std::int64_t v) {
  auto all = store_.bot_versions(name);
  if (!all) return std::unexpected(all.error());
  for (auto& b : *all)
    if (b.version == v) return std::optional<BotVersion>{b};
  return std::optional<BotVersion>{};
}

ApiReply SubmissionApi::bots(const Principal& who) {
  auto all = store_.bot_versions();
  if (!all) return store_failed(all.error());
  Json list = Json::array();
  for (const auto& v : *all)
    if (may_see(who, v)) list.push_back(version_json(v));
  return {200, Json{{"author", who.name}, {"role", who.role}, {"versions", list}}};
}

Expected<std::vector<std::string>> SubmissionApi::changes(
    const Principal& who, std::map<std::string, std::string>& seen) {
  auto all = store_.bot_versions();
  if (!all) return std::unexpected(all.error());
  const bool first = seen.empty();
  std::vector<std::string> lines;
  for (const auto& v : *all) {
    if (!may_see(who, v)) continue;
    const std::string key = fmt::format("{}@{}", v.name, v.version);
    const std::string now = v.status + "|" + v.reason;
    auto [it, fresh] = seen.try_emplace(key, now);
    if (!fresh && it->second == now) continue;
    it->second = now;
    if (!first)
      lines.push_back(dump(Json{
          {"bot", v.name}, {"version", v.version}, {"status", v.status}, {"reason", v.reason}}));
  }
  if (first && seen.empty()) seen[""] = "";  // filled, though there was nothing to see yet
  return lines;
}

ApiReply SubmissionApi::version(const Principal& who, const std::string& name, std::int64_t v) {
  auto found = find(name, v);
  if (!found) return store_failed(found.error());
  if (!*found) return api_error(404, fmt::format("no bot version {}@{}", name, v));
  if (!may_see(who, **found))
    return api_error(403, fmt::format("{}@{} is another author's", name, v));
  auto log = store_.bot_build_log(name, v);
  if (!log) return store_failed(log.error());
  Json body = version_json(**found);
  body["manifest"] = (*found)->manifest;
  body["build_log"] = *log ? Json(printable_text(**log)) : Json(nullptr);
  return {200, body};
}

ApiReply SubmissionApi::set_active(const Principal& who, const std::string& name, std::int64_t v,
                                   bool active) {
  auto found = find(name, v);
  if (!found) return store_failed(found.error());
  if (!*found) return api_error(404, fmt::format("no bot version {}@{}", name, v));
  if (!may_see(who, **found))
    return api_error(403, fmt::format("{}@{} is another author's", name, v));
  const std::string from = active ? "retired" : "active";
  if ((*found)->status != from || (active && (*found)->artifact.empty()))
    return api_error(409, fmt::format("{}@{} is {}: only {} versions can be {}", name, v,
                                      (*found)->status, from, active ? "brought back" : "retired"));
  const std::string why = active ? "" : fmt::format("retired by {}", who.name);
  if (auto ok = store_.set_bot_status(name, v, active ? "active" : "retired", why); !ok)
    return store_failed(ok.error());
  (*found)->status = active ? "active" : "retired";
  (*found)->reason = why;
  notify(**found);
  return {200, version_json(**found)};
}

}  // namespace arbiter::server
