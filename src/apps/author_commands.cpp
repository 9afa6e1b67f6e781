// `arbiter author ...`: who may log in to the submission server (league/authors.h): add (prints
// the login token once), list, revoke.
#include <iostream>
#include <map>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "apps/commands.h"
#include "apps/tournament_cli.h"
#include "core/seat_name.h"
#include "league/authors.h"

namespace arbiter::cli {
namespace {

struct AuthorArgs {
  std::string store = kDefaultStore;
  std::string name;
  std::string role = "author";
  std::string token_file;
  std::string url;
};

void add_new_author_command(CLI::App* author, const std::shared_ptr<AuthorArgs>& a,
                            int& exit_code) {
  auto* add = author->add_subcommand(
      "add",
      "Make an author (or an organizer) and print their login token, once: the store keeps only "
      "a salted hash of it");
  add->add_option("NAME", a->name, "The author's name (1 to 20 ASCII letters or digits)")
      ->required();
  add->add_option("--role", a->role,
                  "author (uploads and follows their own bots) or organizer (runs the "
                  "competition; default author)")
      ->check(CLI::IsMember({"author", "organizer"}));
  add->add_option("--token-file", a->token_file,
                  "Write the token to this new file (mode 0600) instead of printing it");
  add->callback([a, &exit_code] {
    if (!valid_seat_name(a->name)) {  // before the store is opened: nothing made for a typo
      report_error(fmt::format("author name \"{}\": {}", a->name, kSeatNameRule));
      exit_code = kBadInput;
      return;
    }
    auto store = open_or_report(a->store, tournament::OpenMode::create, exit_code);
    if (!store) return;
    auto made = league::add_author(*store, a->name, a->role);
    if (!made) return report_error(made.error().message), void(exit_code = kBadInput);
    if (!a->token_file.empty()) {
      if (auto written = write_secret_file(a->token_file, made->token + "\n"); !written) {
        // The author exists but nobody holds the token: say so rather than leave it silent.
        report_error(
            fmt::format("{} (the author {} was made: arbiter author revoke {} and add "
                        "another name)",
                        written.error().message, a->name, a->name));
        exit_code = kFailed;
        return;
      }
      fmt::print("{} ({}): token written to {}\n", made->author.name, made->author.role,
                 a->token_file);
      return;
    }
    fmt::print("{} ({}): token {}\n", made->author.name, made->author.role, made->token);
    std::cerr << "Keep it: it is shown only this once. It logs in to arbiter serve --submissions "
                 "(the login page, or the header Authorization: Bearer TOKEN).\n";
  });
}

void add_read_and_revoke(CLI::App* author, const std::shared_ptr<AuthorArgs>& a, int& exit_code) {
  auto* list = author->add_subcommand("list", "Every author: role, when made, revoked or not");
  list->callback([a, &exit_code] {
    auto store = open_or_report(a->store, tournament::OpenMode::existing, exit_code);
    if (!store) return;
    auto all = store->authors();
    if (!all) return report_error(all.error().message), void(exit_code = kFailed);
    auto bots = store->bot_versions();
    if (!bots) return report_error(bots.error().message), void(exit_code = kFailed);
    std::map<std::string, std::set<std::string>> owned;
    for (const auto& v : *bots)
      if (!v.author.empty()) owned[v.author].insert(v.name);
    fmt::print("{:<20} {:<10} {:<20} {:<20} {}\n", "author", "role", "created", "revoked", "bots");
    for (const auto& au : *all) {
      std::string names;
      for (const auto& n : owned[au.name]) names += (names.empty() ? "" : " ") + n;
      fmt::print("{:<20} {:<10} {:<20} {:<20} {}\n", au.name, au.role, au.created,
                 au.revoked.empty() ? "-" : au.revoked, names.empty() ? "-" : names);
    }
    if (all->empty()) fmt::print("(no authors yet: arbiter author add NAME)\n");
  });
  auto* revoke = author->add_subcommand(
      "revoke", "Revoke an author's token at once (their bots stay theirs and keep playing)");
  revoke->add_option("NAME", a->name, "The author")->required();
  revoke->callback([a, &exit_code] {
    auto store = open_or_report(a->store, tournament::OpenMode::existing, exit_code);
    if (!store) return;
    auto done = store->revoke_author(a->name);
    if (!done) return report_error(done.error().message), void(exit_code = kFailed);
    if (!*done) {
      auto known = store->author_secret(a->name);
      report_error(known && *known
                       ? fmt::format("the author {} was revoked already", a->name)
                       : fmt::format("no author {} (arbiter author list shows them)", a->name));
      exit_code = kBadInput;
      return;
    }
    fmt::print("{}: revoked\n", a->name);
  });
  auto* hook = author->add_subcommand(
      "webhook",
      "Post the author's events (a version built, failed, retired) to a URL, signed: prints the "
      "signing key once");
  hook->add_option("NAME", a->name, "The author")->required();
  hook->add_option("URL", a->url, "http://HOST[:PORT]/PATH; \"\" removes it")->required();
  hook->callback([a, &exit_code] {
    auto store = open_or_report(a->store, tournament::OpenMode::existing, exit_code);
    if (!store) return;
    auto key = league::set_webhook(*store, a->name, a->url);
    if (!key) return report_error(key.error().message), void(exit_code = kBadInput);
    if (a->url.empty()) return void(fmt::print("{}: no webhook\n", a->name));
    fmt::print("{}: events go to {}; signing key {}\n", a->name, a->url, *key);
    std::cerr << "Each POST carries X-Arbiter-Signature: sha256=HMAC-SHA-256(key, body) in hex "
                 "(docs/competition.md).\n";
  });
  for (auto* cmd : {author->get_subcommand("add"), list, revoke, hook})
    cmd->add_option("--store", a->store,
                    "The store: sqlite:FILE (default sqlite:arbiter.db) or postgresql://...");
}

}  // namespace

void add_author_commands(CLI::App& app, int& exit_code) {
  auto* author = app.add_subcommand(
      "author", "Who may log in to the submission server: authors and organizers, by token");
  author->require_subcommand(1);
  auto a = std::make_shared<AuthorArgs>();
  add_new_author_command(author, a, exit_code);
  add_read_and_revoke(author, a, exit_code);
}

}  // namespace arbiter::cli
