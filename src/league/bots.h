// Stored bots: adding a version (read and check the files, store them by hash, build them behind
// the walls, pass the gate) and the shelf a worker runs them from (a private cache filled from
// the store, every tree checked against its hash before it runs).
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "arena/bot_shelf.h"
#include "league/archive.h"
#include "league/build.h"
#include "league/manifest.h"
#include "tournament/spec.h"
#include "tournament/store.h"

namespace arbiter::league {

// The gate a built version passes before it becomes active (bot check): given the version and
// the directory holding its runnable files; an Error says which check failed.
using Gate =
    std::function<Expected<void>(const tournament::BotVersion&, const std::filesystem::path& dir)>;

// Where a worker keeps stored bots' files unless told: $XDG_CACHE_HOME/arbiter/bots, else
// ~/.cache/arbiter/bots.
std::filesystem::path default_bot_cache();

struct AddOptions {
  ArchiveCaps caps;
  BuildCaps build;
  Gate gate;                                          // none: active once built
  std::filesystem::path cache = default_bot_cache();  // where the gate's files are unpacked
  std::function<void(const std::string&)> say;        // progress lines for people; none: quiet
  // Whose bot it is (league/authors.h): a known author whose token was not revoked; the bot's
  // name must be new or theirs. Empty: the organizer's, who may add to any name.
  std::string author;
};

// A bot's files as read from a directory or an archive, with their checked manifest.
struct BotFiles {
  Tree tree;
  Manifest manifest;
};
// Every check of add_bot before anything is stored: the files (archive.h) and the manifest at
// their top. One-line Errors naming the path.
Expected<BotFiles> read_bot(const std::filesystem::path& path, const ArchiveCaps& caps);

// The same for the bytes of an uploaded archive; `label` names it in errors.
Expected<BotFiles> read_uploaded_bot(std::string_view bytes, const std::string& label,
                                     const ArchiveCaps& caps);

// Whether `author` (empty: the organizer) may add bots: a known author not revoked.
Expected<void> author_may_add(tournament::Store& store, const std::string& author);

// add_bot in two steps, for a server that answers the upload before the build: stage_bot
// stores the files and the new version ("building" or "checking") and is quick; admit_bot
// builds it and passes it through the gate (minutes, at worst), as add_bot says.
struct StagedBot {
  tournament::BotVersion version;
  BotFiles files;
};
Expected<StagedBot> stage_bot(tournament::Store& store, BotFiles files, const std::string& label,
                              const AddOptions& options);
Expected<tournament::BotVersion> admit_bot(tournament::Store& store, const StagedBot& staged,
                                           const AddOptions& options);

// Reads the bot at `path` (a directory or an archive), checks it and its manifest, and stores
// it as the next version of its name. An Error (nothing stored) when the files or the manifest
// are refused. Otherwise the version as it ended: "active", or "build-failed"/"check-failed"
// with the reason (its files and build log are kept).
Expected<tournament::BotVersion> add_bot(tournament::Store& store,
                                         const std::filesystem::path& path,
                                         const AddOptions& options);

// "alice@3" and "alice" (the newest active version) as stored: the version, or an Error naming
// what there is.
Expected<tournament::BotVersion> find_bot_version(tournament::Store& store,
                                                  const StoredBotRef& ref);

// A directory of ours no one else may enter (0700), new, under `parent` (made if missing).
Expected<std::filesystem::path> private_dir(const std::filesystem::path& parent,
                                            const std::string& prefix);

// Pins every stored-bot entrant of `spec` (bot:NAME or bot:NAME@V) to the version it plays
// and its files' hash (Entrant::artifact), so that every match of the tournament runs the same
// files. Refused ("player NAME: ..."): an unknown bot or version, one for another game, one that
// is not active.
Expected<void> pin_entrants(tournament::Store& store, tournament::TournamentSpec& spec);

// The tree packed as the store keeps it, read back and checked to be the same tree (the same
// hash) before anything is stored: a tree arbiter could not hand back whole is refused here,
// with the reason, and not after it was stored.
Expected<Packed> pack_checked(const Tree& tree);

// The files stored under `hash`, read back and checked: they must pack to that very hash.
Expected<Tree> fetch_tree(tournament::Store& store, const std::string& hash,
                          const ArchiveCaps& caps = {});

// The shelf of a worker: versions looked up in the store, their runnable files fetched into
// `cache` (private), each tree checked against its hash the first time this process uses it
// (a cache that does not match is fetched again). Thread-safe.
class StoreShelf final : public BotShelf {
 public:
  StoreShelf(tournament::Store& store, std::filesystem::path cache);
  Expected<ShelvedProgram> take(const StoredBotRef& ref, const std::string& artifact,
                                const ProgramTerms& terms) override;
  // The directory holding `artifact`'s files, fetched and checked if need be.
  Expected<std::filesystem::path> open(const std::string& artifact);

 private:
  tournament::Store& store_;
  std::filesystem::path cache_;
  std::mutex mu_;
  std::set<std::string> checked_;  // artifacts whose cached files matched, this process
};

}  // namespace arbiter::league
