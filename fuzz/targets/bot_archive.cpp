// A bot upload (league/archive.h): the bytes of a tar (any compression) or zip. Properties: a
// refused upload gets a one-line error; an accepted tree packs to the canonical archive, which
// reads back to the very same tree (the same content hash), and passes the check made before
// anything is stored (pack_checked); its manifest, if any, is read to an answer.
#include "fuzz_support.h"
#include "league/archive.h"
#include "league/bots.h"
#include "league/manifest.h"

using namespace arbiter;
using namespace arbiter::league;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ArchiveCaps caps;
  caps.unpacked_bytes = std::uint64_t{8} << 20;
  caps.files = 1000;
  auto tree = read_archive(fuzz::text_of(data, size), caps);
  if (!tree) {
    fuzz::check_error(tree.error(), "read_archive");
    return 0;
  }
  const std::string hash = content_hash(*tree);
  ArchiveCaps own = caps;
  own.ratio = 0;
  own.packed_bytes = UINT64_MAX;
  auto back = read_archive(pack(*tree), own);
  FUZZ_CHECK(back.has_value(), "an accepted tree does not read back from its canonical archive: " +
                                   (back ? std::string() : back.error().message));
  FUZZ_CHECK(content_hash(*back) == hash, "the canonical archive reads back as another tree");
  FUZZ_CHECK(pack_checked(*tree).has_value(), "an accepted tree is refused before storing");
  if (const TreeEntry* m = tree->find(kManifestName);
      m != nullptr && m->kind == TreeEntry::Kind::file)
    if (auto manifest = parse_manifest(m->data, "arbiter-bot.toml"); !manifest)
      fuzz::check_error(manifest.error(), "parse_manifest");
  return 0;
}
