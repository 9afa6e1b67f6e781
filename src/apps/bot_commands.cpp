// `arbiter bot ...`: stored, versioned bots (league/bots.h): add, list, versions, show, retire,
// export.
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "apps/commands.h"
#include "apps/tournament_cli.h"
#include "core/units.h"
#include "league/bots.h"
#include "league/check.h"

namespace arbiter::cli {
namespace {

namespace fs = std::filesystem;
using tournament::BotVersion;

struct BotArgs {
  std::string store = kDefaultStore;
  std::vector<std::string> paths;
  std::string ref;
  std::string file;
  std::string max_size = "64M";
  double build_time = 300;
  std::string cache;
  std::string why;
  std::string author;
  bool build_log = false;
  bool built = false;
  bool no_check = false;
  bool unsafe_no_sandbox = false;
  int matches = 10;
  double per_call = 6;
  double check_time = 300;
};

void print_check(const league::CheckReport& report) {
  fmt::print("{}", report.text());
}

league::Gate printing_gate(int matches, double seconds) {
  league::CheckOptions options;
  options.matches = matches;
  options.time = std::chrono::milliseconds(std::llround(seconds * 1000));
  return league::check_gate(options, print_check);
}

std::string label(const BotVersion& v) {
  return fmt::format("{}@{}", v.name, v.version);
}

// A NAME@V (or NAME: the newest active version) of the store, or null after saying why.
std::optional<BotVersion> version_or_report(tournament::Store& store, const std::string& text,
                                            int& exit_code) {
  auto ref = parse_stored_bot(std::string(kStoredBotPrefix) + text);
  if (!ref) {
    report_error(ref.error().message);
    exit_code = kBadInput;
    return std::nullopt;
  }
  auto version = league::find_bot_version(store, *ref);
  if (!version) {
    report_error(version.error().message);
    exit_code = kBadInput;
    return std::nullopt;
  }
  return *version;
}

void add_command(CLI::App* bot, const std::shared_ptr<BotArgs>& a, int& exit_code) {
  auto* add = bot->add_subcommand(
      "add",
      "Store a bot (a directory or a .tar.gz/.zip of one, with arbiter-bot.toml at its top) as "
      "the next version of its name: checked, stored by content hash, built once behind the "
      "walls, then active. Prints NAME@VERSION and the hash");
  add->add_option("PATH", a->paths, "The bot's directory or archive (several: one after another)")
      ->required();
  add->add_option("--store", a->store,
                  "The store: sqlite:FILE (default sqlite:arbiter.db) or "
                  "postgresql://...");
  add->add_option("--max-size", a->max_size, "The largest archive taken (default 64M)");
  add->add_option("--build-time", a->build_time, "Seconds the build may take (default 300)")
      ->check(seconds_validator(1, 3600));
  add->add_option("--bot-cache", a->cache,
                  "Where built files are unpacked (default "
                  "~/.cache/arbiter/bots)");
  add->add_flag("--unsafe-no-sandbox", a->unsafe_no_sandbox,
                "Build without the walls (only for bots you wrote yourself)");
  add->add_option("--matches", a->matches,
                  "Matches the gate (arbiter bot check) plays before the version is active "
                  "(default 10; at least one per seat it can hold)")
      ->check(CLI::Range(1, 1000));
  add->add_option("--check-time", a->check_time,
                  "Seconds the gate may take in all (default 300); a slower bot fails it")
      ->check(seconds_validator(1, 3600));
  add->add_option("--author", a->author,
                  "The author the bot belongs to (arbiter author add); its name must be new or "
                  "theirs. Default: the organizer's");
  add->callback([a, &exit_code] {
    auto cap = parse_size(a->max_size);
    if (!cap || *cap == 0) {
      report_error(fmt::format("--max-size {}: expected a size such as 64M", a->max_size));
      exit_code = kBadInput;
      return;
    }
    auto store = open_or_report(a->store, tournament::OpenMode::create, exit_code);
    if (!store) return;
    league::AddOptions options;
    options.caps.packed_bytes = *cap;
    options.build.time = std::chrono::milliseconds(static_cast<std::int64_t>(a->build_time * 1000));
    options.build.sandbox = !a->unsafe_no_sandbox;
    if (!a->cache.empty()) options.cache = a->cache;
    options.say = [](const std::string& line) { std::cerr << line << '\n'; };
    options.gate = printing_gate(a->matches, a->check_time);
    options.author = a->author;
    for (const std::string& path : a->paths) {
      auto version = league::add_bot(*store, path, options);
      if (!version) {
        report_error(version.error().message);
        exit_code = kBadInput;
        continue;
      }
      if (version->status == "active") {
        fmt::print("{} {} active\n", label(*version), version->artifact);
      } else {
        fmt::print("{} {} {}: {}\n", label(*version), version->source, version->status,
                   version->reason);
        if (version->status == "build-failed")
          fmt::print("  (arbiter bot show {} --build-log{} shows what happened)\n", label(*version),
                     store_flag(a->store));
        else
          fmt::print("  (arbiter bot check {}{} plays the check again)\n", label(*version),
                     store_flag(a->store));
        if (exit_code == 0) exit_code = kFailed;
      }
    }
  });
}

void add_read_commands(CLI::App* bot, const std::shared_ptr<BotArgs>& a, int& exit_code) {
  auto* list =
      bot->add_subcommand("list", "Every stored bot: its game, newest and active versions");
  auto* versions = bot->add_subcommand("versions", "Every version of one bot, oldest first");
  versions->add_option("NAME", a->ref, "The bot's name")->required();
  auto* show = bot->add_subcommand("show", "One version: its manifest, hashes and status");
  show->add_option("NAME[@VERSION]", a->ref, "The version (default: the newest active one)")
      ->required();
  show->add_flag("--build-log", a->build_log, "Print its build log");
  for (auto* cmd : {list, versions, show})
    cmd->add_option("--store", a->store, "The store (default sqlite:arbiter.db)");

  list->callback([a, &exit_code] {
    auto store = open_or_report(a->store, tournament::OpenMode::existing, exit_code);
    if (!store) return;
    auto all = store->bot_versions();
    if (!all) return report_error(all.error().message), void(exit_code = kFailed);
    std::map<std::string, std::vector<BotVersion>> by_name;
    for (auto& v : *all) by_name[v.name].push_back(v);
    fmt::print("{:<20} {:<14} {:>7} {:>7}  {:<13} {}\n", "bot", "game", "newest", "active",
               "status", "author");
    for (const auto& [name, vs] : by_name) {
      std::string active = "-";
      for (const auto& v : vs)
        if (v.status == "active") active = std::to_string(v.version);
      fmt::print("{:<20} {:<14} {:>7} {:>7}  {:<13} {}\n", name, vs.back().game, vs.back().version,
                 active, vs.back().status, vs.back().author.empty() ? "-" : vs.back().author);
    }
    if (by_name.empty()) fmt::print("(no bots yet: arbiter bot add DIR)\n");
  });
  versions->callback([a, &exit_code] {
    auto store = open_or_report(a->store, tournament::OpenMode::existing, exit_code);
    if (!store) return;
    auto vs = store->bot_versions(a->ref);
    if (!vs) return report_error(vs.error().message), void(exit_code = kFailed);
    if (vs->empty()) {
      report_error(fmt::format("no stored bot {} (arbiter bot list shows them)", a->ref));
      exit_code = kBadInput;
      return;
    }
    for (const auto& v : *vs)
      fmt::print("{:<24} {:<13} {} {}{}\n", label(v), v.status, v.created,
                 v.artifact.empty() ? v.source : v.artifact,
                 v.reason.empty() ? "" : "  " + printable_line(v.reason));
  });
  show->callback([a, &exit_code] {
    auto store = open_or_report(a->store, tournament::OpenMode::existing, exit_code);
    if (!store) return;
    auto v = version_or_report(*store, a->ref, exit_code);
    if (!v) return;
    if (a->build_log) {
      auto log = store->bot_build_log(v->name, v->version);
      if (!log) return report_error(log.error().message), void(exit_code = kFailed);
      if (!*log) {
        fmt::print("{} has no build log (its manifest has no build command)\n", label(*v));
        return;
      }
      fmt::print("{}", printable_text(**log));
      return;
    }
    fmt::print("{}  {}\n", label(*v), v->status);
    if (!v->reason.empty()) fmt::print("  why:      {}\n", printable_line(v->reason));
    fmt::print("  game:     {}\n  author:   {}\n  created:  {}\n  source:   {}\n  runs:     {}\n",
               v->game, v->author.empty() ? "(the organizer)" : v->author, v->created, v->source,
               v->artifact.empty() ? "(not built)" : v->artifact);
    fmt::print("  manifest: {}\n", printable_line(dump(v->manifest)));
  });
}

void add_write_commands(CLI::App* bot, const std::shared_ptr<BotArgs>& a, int& exit_code) {
  auto* retire = bot->add_subcommand(
      "retire",
      "Take a version out of play: no new tournament or ladder match picks it (its "
      "tournaments already made still play it)");
  retire->add_option("NAME@VERSION", a->ref, "The version")->required();
  retire->add_option("--why", a->why, "Why, kept with it");
  auto* exp = bot->add_subcommand("export",
                                  "Write a version's files as a .tar.gz (as uploaded, "
                                  "or --built: as built)");
  exp->add_option("NAME@VERSION", a->ref, "The version")->required();
  exp->add_option("FILE", a->file, "Where to write it")->required();
  exp->add_flag("--built", a->built, "The built files that run, not the uploaded ones");
  for (auto* cmd : {retire, exp})
    cmd->add_option("--store", a->store, "The store (default sqlite:arbiter.db)");

  retire->callback([a, &exit_code] {
    if (a->ref.find('@') == std::string::npos) {
      report_error(fmt::format("retire {}: name the version, e.g. {}@1", a->ref, a->ref));
      exit_code = kBadInput;
      return;
    }
    auto store = open_or_report(a->store, tournament::OpenMode::existing, exit_code);
    if (!store) return;
    auto v = version_or_report(*store, a->ref, exit_code);
    if (!v) return;
    if (auto ok = store->set_bot_status(v->name, v->version, "retired",
                                        a->why.empty() ? "retired" : a->why);
        !ok)
      return report_error(ok.error().message), void(exit_code = kFailed);
    fmt::print("{} retired\n", label(*v));
  });
  exp->callback([a, &exit_code] {
    if (auto ok = check_output_path(a->file); !ok)
      return report_error(ok.error().message), void(exit_code = kBadInput);
    auto store = open_or_report(a->store, tournament::OpenMode::existing, exit_code);
    if (!store) return;
    auto v = version_or_report(*store, a->ref, exit_code);
    if (!v) return;
    const std::string hash = a->built ? v->artifact : v->source;
    if (hash.empty())
      return report_error(fmt::format("{} was never built", label(*v))), void(exit_code = kFailed);
    auto tree = league::fetch_tree(*store, hash);
    if (!tree) return report_error(tree.error().message), void(exit_code = kDamaged);
    if (auto ok = write_file(a->file, league::pack(*tree)); !ok)
      return report_error(ok.error().message), void(exit_code = kFailed);
    fmt::print("{} {} -> {} ({} files, {})\n", label(*v), hash, a->file, tree->entries.size(),
               format_size(tree->bytes()));
  });
}

void add_check_command(CLI::App* bot, const std::shared_ptr<BotArgs>& a, int& exit_code) {
  auto* check = bot->add_subcommand(
      "check",
      "Play a bot against the house bots behind the walls, on every seat it can hold, and say "
      "which checks it passes: starts, answers, legal, limits, exits. Exit 0 only when all do");
  check
      ->add_option("BOT", a->ref,
                   "A directory or archive with arbiter-bot.toml (built first "
                   "if it has a build command), or a stored NAME@VERSION")
      ->required();
  check
      ->add_option("--matches", a->matches,
                   "How many matches (default 10; at least one per "
                   "seat it can hold)")
      ->check(CLI::Range(1, 1000));
  check->add_option("--per-call", a->per_call, "Seconds it may take per call (default 6)")
      ->check(seconds_validator());
  check
      ->add_option("--check-time", a->check_time,
                   "Seconds the whole check may take (default 300); a slower bot fails it")
      ->check(seconds_validator(1, 3600));
  check->add_option("--store", a->store, "The store of a NAME@VERSION (default sqlite:arbiter.db)");
  check->add_option("--bot-cache", a->cache, "Where a stored bot's files are unpacked");
  check->callback([a, &exit_code] {
    league::CheckOptions options;
    options.matches = a->matches;
    options.per_call = std::chrono::milliseconds(std::llround(a->per_call * 1000));
    options.time = std::chrono::milliseconds(std::llround(a->check_time * 1000));
    options.say = [](const std::string& line) { std::cerr << line << '\n'; };
    std::error_code ec;
    if (fs::exists(a->ref, ec)) {
      auto files = league::read_bot(a->ref, league::ArchiveCaps{});
      if (!files) return report_error(files.error().message), void(exit_code = kBadInput);
      auto scratch = league::private_dir(fs::temp_directory_path(), "arbiter-check-");
      if (!scratch) return report_error(scratch.error().message), void(exit_code = kFailed);
      league::Tree runnable = files->tree;
      if (!files->manifest.build.empty()) {
        std::cerr << "building: "
                  << printable_line(fmt::format("{}", fmt::join(files->manifest.build, " ")))
                  << '\n';
        auto built =
            league::build_bot(runnable, files->manifest, league::BuildCaps{}, *scratch / "build");
        if (!built.ok) {
          fmt::print("{}FAIL build   {}\n", printable_text(built.log),
                     printable_line(built.reason));
          fs::remove_all(*scratch, ec);
          exit_code = kFailed;
          return;
        }
        runnable = std::move(built.built);
      }
      // What bot add would store: a bot that passes here is one the store can hand back.
      for (const league::Tree* tree : {&files->tree, &runnable})
        if (auto packed = league::pack_checked(*tree); !packed) {
          report_error(fmt::format("{}: {}", a->ref, packed.error().message));
          fs::remove_all(*scratch, ec);
          exit_code = kBadInput;
          return;
        }
      if (auto ok = league::unpack(runnable, *scratch / "bot"); !ok) {
        report_error(ok.error().message);
        fs::remove_all(*scratch, ec);
        exit_code = kFailed;
        return;
      }
      const league::CheckReport report =
          league::check_bot(files->manifest, *scratch / "bot", options);
      fs::remove_all(*scratch, ec);
      print_check(report);
      if (!report.ok()) exit_code = kFailed;
      return;
    }
    if (a->ref.find('/') != std::string::npos)
      return report_error(fmt::format("{}: no such directory or archive", a->ref)),
             void(exit_code = kBadInput);
    auto store = open_or_report(a->store, tournament::OpenMode::existing, exit_code);
    if (!store) return;
    auto v = version_or_report(*store, a->ref, exit_code);
    if (!v) return;
    auto manifest = league::decode_manifest(v->manifest);
    if (!manifest) return report_error(manifest.error().message), void(exit_code = kDamaged);
    league::StoreShelf shelf(*store,
                             a->cache.empty() ? league::default_bot_cache() : fs::path(a->cache));
    if (v->artifact.empty())
      return report_error(fmt::format("{} was never built ({})", label(*v), v->status)),
             void(exit_code = kFailed);
    auto dir = shelf.open(v->artifact);
    if (!dir) return report_error(dir.error().message), void(exit_code = kFailed);
    const league::CheckReport report = league::check_bot(*manifest, *dir, options);
    print_check(report);
    if (!report.ok()) exit_code = kFailed;
  });
}

}  // namespace

void add_bot_commands(CLI::App& app, int& exit_code) {
  auto* bot = app.add_subcommand(
      "bot",
      "Stored bots: versions built once behind the walls, then played by name (bot:NAME "
      "or bot:NAME@VERSION as a player)");
  bot->require_subcommand(1);
  auto args = std::make_shared<BotArgs>();
  add_command(bot, args, exit_code);
  add_read_commands(bot, args, exit_code);
  add_write_commands(bot, args, exit_code);
  add_check_command(bot, args, exit_code);
}

}  // namespace arbiter::cli
