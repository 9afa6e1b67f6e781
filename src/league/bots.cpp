#include "league/bots.h"

#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/printable.h"
#include "core/units.h"

namespace arbiter::league {
namespace {

namespace fs = std::filesystem;

using tournament::BotVersion;
using tournament::Store;

void say(const AddOptions& o, const std::string& line) {
  if (o.say) o.say(line);
}

std::string hex_of(const std::string& hash) {
  return hash.starts_with("sha256:") ? hash.substr(7) : hash;
}

bool looks_like_hash(const std::string& hash) {
  const std::string hex = hex_of(hash);
  return hash.starts_with("sha256:") && hex.size() == 64 &&
         hex.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// Where the version's files become runnable: built, or as uploaded, then through the gate.
Expected<BotVersion> admit(Store& store, BotVersion version, const Tree& source,
                           const Manifest& manifest, const AddOptions& options) {
  std::string artifact = version.source;
  std::optional<std::string> log;
  if (!manifest.build.empty()) {
    say(options, fmt::format("building {}@{}: {} (at most {})", version.name, version.version,
                             printable_line(fmt::format("{}", fmt::join(manifest.build, " "))),
                             format_duration(std::chrono::duration_cast<std::chrono::microseconds>(
                                 options.build.time))));
    auto scratch = private_dir(fs::temp_directory_path(), "arbiter-build-");
    if (!scratch) return std::unexpected(scratch.error());
    BuildOutcome built = build_bot(source, manifest, options.build, *scratch);
    std::error_code ec;
    fs::remove_all(*scratch, ec);
    log = built.log;
    if (!built.ok) {
      if (auto ok = store.set_bot_status(version.name, version.version, "build-failed",
                                         built.reason, "", log);
          !ok)
        return std::unexpected(ok.error());
      version.status = "build-failed";
      version.reason = built.reason;
      return version;
    }
    auto packed = pack_checked(built.built);
    if (!packed) {
      const std::string why = "what it built: " + packed.error().message;
      if (auto ok =
              store.set_bot_status(version.name, version.version, "build-failed", why, "", log);
          !ok)
        return std::unexpected(ok.error());
      version.status = "build-failed";
      version.reason = why;
      return version;
    }
    artifact = packed->hash;
    if (auto ok = store.put_blob(artifact, packed->bytes); !ok) return std::unexpected(ok.error());
  }
  if (auto ok = store.set_bot_status(version.name, version.version, "checking", "", artifact, log);
      !ok)
    return std::unexpected(ok.error());
  version.artifact = artifact;
  std::string status = "active";
  std::string reason;
  if (options.gate) {
    StoreShelf shelf(store, options.cache);
    auto dir = shelf.open(artifact);
    if (!dir) return std::unexpected(dir.error());
    if (auto passed = options.gate(version, *dir); !passed) {
      status = "check-failed";
      reason = passed.error().message;
    }
  }
  if (auto ok = store.set_bot_status(version.name, version.version, status, reason); !ok)
    return std::unexpected(ok.error());
  version.status = status;
  version.reason = reason;
  return version;
}

}  // namespace

Expected<fs::path> private_dir(const fs::path& parent, const std::string& prefix) {
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec) return fail(fmt::format("{}: {}", parent.string(), ec.message()));
  std::string tmpl = (parent / (prefix + "XXXXXX")).string();
  if (::mkdtemp(tmpl.data()) == nullptr)
    return fail(fmt::format("{}: {}", parent.string(), std::strerror(errno)));
  return fs::path(tmpl);
}

fs::path default_bot_cache() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && xdg[0] == '/')
    return fs::path(xdg) / "arbiter" / "bots";
  const char* home = std::getenv("HOME");
  return fs::path(home != nullptr && home[0] == '/' ? home : "/tmp") / ".cache" / "arbiter" /
         "bots";
}

namespace {

Expected<BotFiles> with_manifest(Expected<Tree> tree, const std::string& label) {
  if (!tree) return std::unexpected(tree.error());
  const TreeEntry* manifest_entry = tree->find(kManifestName);
  if (manifest_entry == nullptr || manifest_entry->kind != TreeEntry::Kind::file)
    return fail(fmt::format("{}: no {} at the top of the bot's files (bots/kits/ has examples)",
                            label, kManifestName));
  auto manifest = parse_manifest(manifest_entry->data, label + "/" + std::string(kManifestName));
  if (!manifest) return std::unexpected(manifest.error());
  return BotFiles{std::move(*tree), std::move(*manifest)};
}

}  // namespace

Expected<BotFiles> read_bot(const fs::path& path, const ArchiveCaps& caps) {
  return with_manifest(read_bot_files(path, caps), path.string());
}

Expected<BotFiles> read_uploaded_bot(std::string_view bytes, const std::string& label,
                                     const ArchiveCaps& caps) {
  auto tree = read_archive(bytes, caps);
  if (!tree) return fail(fmt::format("{}: {}", label, tree.error().message));
  return with_manifest(std::move(*tree), label);
}

Expected<void> author_may_add(Store& store, const std::string& author) {
  if (author.empty()) return {};
  auto who = store.author_secret(author);
  if (!who) return std::unexpected(who.error());
  if (!*who) return fail(fmt::format("no author {} (arbiter author list shows them)", author));
  if (!(*who)->author.revoked.empty())
    return fail(fmt::format("the author {} was revoked", author));
  return {};
}

Expected<StagedBot> stage_bot(Store& store, BotFiles files, const std::string& label,
                              const AddOptions& options) {
  const Manifest& manifest = files.manifest;
  // Refused before its files are stored (the store checks again, under its lock).
  auto all = store.bot_versions();
  if (!all) return std::unexpected(all.error());
  const tournament::BotVersion* last = nullptr;
  for (const auto& v : *all) {
    if (v.name == manifest.name) last = &v;
    // "Alice" or "aIice" beside "alice" reads as the same bot on a leaderboard.
    if (v.name != manifest.name &&
        tournament::name_as_it_reads(v.name) == tournament::name_as_it_reads(manifest.name) &&
        v.author != options.author)
      return fail(
          fmt::format("the bot name {} is too close to {}, another's: give yours another "
                      "name",
                      manifest.name, v.name));
  }
  if (last != nullptr) {
    if (last->game != manifest.game)
      return fail(fmt::format("the bot {} plays {}, not {}: give the new one another name",
                              manifest.name, last->game, manifest.game));
    if (auto refused = tournament::ownership_refusal(manifest.name, last->version + 1, last->author,
                                                     options.author))
      return fail(*refused);
  }
  auto packed = pack_checked(files.tree);
  if (!packed) return fail(fmt::format("{}: {}", label, packed.error().message));
  say(options, fmt::format("read {}: {} files, {}, {}", label, files.tree.entries.size(),
                           format_size(files.tree.bytes()), packed->hash));
  if (auto ok = store.put_blob(packed->hash, packed->bytes); !ok)
    return std::unexpected(ok.error());
  auto version =
      store.add_bot_version(manifest.name, manifest.game, encode_manifest(manifest), packed->hash,
                            manifest.build.empty() ? "checking" : "building", options.author);
  if (!version) return std::unexpected(version.error());
  return StagedBot{std::move(*version), std::move(files)};
}

Expected<BotVersion> admit_bot(Store& store, const StagedBot& staged, const AddOptions& options) {
  auto admitted = admit(store, staged.version, staged.files.tree, staged.files.manifest, options);
  if (!admitted)  // the version is in the store: it says why it never became active
    (void)store.set_bot_status(staged.version.name, staged.version.version, "check-failed",
                               admitted.error().message);
  return admitted;
}

Expected<BotVersion> add_bot(Store& store, const fs::path& path, const AddOptions& options) {
  if (auto ok = author_may_add(store, options.author); !ok) return std::unexpected(ok.error());
  auto files = read_bot(path, options.caps);
  if (!files) return std::unexpected(files.error());
  auto staged = stage_bot(store, std::move(*files), path.string(), options);
  if (!staged) return std::unexpected(staged.error());
  return admit_bot(store, *staged, options);
}

Expected<BotVersion> find_bot_version(Store& store, const StoredBotRef& ref) {
  auto versions = store.bot_versions(ref.name);
  if (!versions) return std::unexpected(versions.error());
  if (versions->empty())
    return fail(fmt::format("no stored bot {} (arbiter bot list shows them)", ref.name));
  if (ref.version) {
    for (const BotVersion& v : *versions)
      if (v.version == *ref.version) return v;
    return fail(fmt::format("{} has no version {} (its newest is {}@{})", ref.name, *ref.version,
                            ref.name, versions->back().version));
  }
  for (auto it = versions->rbegin(); it != versions->rend(); ++it)
    if (it->status == "active") return *it;
  return fail(fmt::format("{} has no active version (its newest, {}@{}, is {})", ref.name, ref.name,
                          versions->back().version, versions->back().status));
}

Expected<void> pin_entrants(Store& store, tournament::TournamentSpec& spec) {
  for (tournament::Entrant& entrant : spec.players) {
    if (!is_stored_bot(entrant.bot)) continue;
    const auto refuse = [&](const std::string& why) {
      return fail(fmt::format("player {}: {}", entrant.name, why));
    };
    auto ref = parse_stored_bot(entrant.bot);
    if (!ref) return refuse(ref.error().message);
    auto version = find_bot_version(store, *ref);
    if (!version) return refuse(version.error().message);
    const std::string label = fmt::format("{}@{}", version->name, version->version);
    if (version->game != spec.game)
      return refuse(fmt::format("{} plays {}, not {}", label, version->game, spec.game));
    if (version->status != "active")
      return refuse(fmt::format("{} is {}{}, not active", label, version->status,
                                version->reason.empty() ? "" : " (" + version->reason + ")"));
    entrant.bot = std::string(kStoredBotPrefix) + label;
    entrant.artifact = version->artifact;
  }
  return {};
}

Expected<Packed> pack_checked(const Tree& tree) {
  Packed packed = pack_with_hash(tree);
  ArchiveCaps own;
  own.ratio = 0;  // the canonical form of a tree already read within the caps
  own.packed_bytes = UINT64_MAX;
  auto back = read_archive(packed.bytes, own);
  if (!back) return fail("the files cannot be stored as they are: " + back.error().message);
  if (content_hash(*back) != packed.hash)
    return fail("the files cannot be stored as they are: they read back as other files");
  return packed;
}

Expected<Tree> fetch_tree(Store& store, const std::string& hash, const ArchiveCaps& caps_in) {
  // The store's own blobs, trusted no further than their hash: every check but the ratio (a
  // canonical tar of zeros compresses far beyond it) and the packed size (the unpacked cap holds).
  ArchiveCaps caps = caps_in;
  caps.ratio = 0;
  caps.packed_bytes = UINT64_MAX;
  if (!looks_like_hash(hash))
    return fail(fmt::format("\"{}\" is not a content hash", printable_line(hash)));
  auto bytes = store.blob(hash);
  if (!bytes) return std::unexpected(bytes.error());
  if (!*bytes) return fail(fmt::format("the store has no files {}", hash));
  auto tree = read_archive(**bytes, caps);
  if (!tree)
    return fail(fmt::format("the stored files {} are damaged: {}", hash, tree.error().message));
  if (const std::string got = content_hash(*tree); got != hash)
    return fail(fmt::format("the stored files {} are damaged: they pack to {}", hash, got));
  return tree;
}

StoreShelf::StoreShelf(Store& store, fs::path cache) : store_(store), cache_(std::move(cache)) {}

Expected<fs::path> StoreShelf::open(const std::string& artifact) {
  if (!looks_like_hash(artifact))
    return fail(fmt::format("\"{}\" is not a content hash", printable_line(artifact)));
  std::lock_guard lock(mu_);
  const fs::path dir = cache_ / hex_of(artifact);
  std::error_code ec;
  if (checked_.contains(artifact) && fs::is_directory(fs::symlink_status(dir, ec))) return dir;
  if (fs::is_symlink(fs::symlink_status(dir, ec))) {
    fs::remove(dir, ec);  // ours are directories: a link is not what we put there
  } else if (fs::exists(fs::symlink_status(dir, ec))) {
    auto cached = read_directory(dir);
    if (cached && content_hash(*cached) == artifact) {
      checked_.insert(artifact);
      return dir;
    }
    fs::remove_all(dir, ec);  // not what it should be: fetched again
    if (ec) return fail(fmt::format("{}: {}", dir.string(), ec.message()));
  }
  // A cache made here is ours alone; one the organizer named and made is left as it is.
  if (fs::create_directories(cache_, ec)) ::chmod(cache_.c_str(), 0700);
  auto tree = fetch_tree(store_, artifact);
  if (!tree) return std::unexpected(tree.error());
  auto staging = private_dir(cache_, ".fetch-");
  if (!staging) return std::unexpected(staging.error());
  const fs::path unpacked = *staging / "tree";
  if (auto ok = unpack(*tree, unpacked); !ok) {
    fs::remove_all(*staging, ec);
    return std::unexpected(ok.error());
  }
  fs::rename(unpacked, dir, ec);
  fs::remove_all(*staging, ec);
  if (!fs::is_directory(dir))
    return fail(fmt::format("{}: the bot's files could not be put there", dir.string()));
  checked_.insert(artifact);
  return dir;
}

Expected<ShelvedProgram> StoreShelf::take(const StoredBotRef& ref, const std::string& artifact,
                                          const ProgramTerms& terms) {
  auto version = find_bot_version(store_, ref);
  if (!version) return std::unexpected(version.error());
  const std::string label = fmt::format("{}@{}", version->name, version->version);
  // A version plays once it passed the gate; a retired one only in the tournaments that pinned
  // it before it was retired.
  const bool playable =
      version->status == "active" || (version->status == "retired" && !artifact.empty());
  if (!playable || version->artifact.empty())
    return fail(fmt::format("{} cannot play: it is {}{}", label, version->status,
                            version->reason.empty() ? "" : " (" + version->reason + ")"));
  if (!artifact.empty() && artifact != version->artifact)
    return fail(fmt::format("{} was pinned to {} and the store has {}", label, artifact,
                            version->artifact));
  auto manifest = decode_manifest(version->manifest);
  if (!manifest)
    return fail(fmt::format("{}: its stored manifest: {}", label, manifest.error().message));
  auto dir = open(version->artifact);
  if (!dir) return fail(fmt::format("{}: {}", label, dir.error().message));
  ShelvedProgram program;
  program.argv = manifest->run;
  program.terms = apply_manifest(*manifest, terms);
  program.terms.dir = *dir;
  program.artifact = version->artifact;
  program.label = label;
  return program;
}

}  // namespace arbiter::league
