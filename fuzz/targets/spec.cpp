// The tournament file reader (tournament/spec.h, TOML). The input is the file, read through a
// memfd. Properties: a refused file gets a one-line error; an accepted spec survives the JSON
// form the store keeps (decode_spec(encode_spec(s)) encodes the same), and validating it against
// the registry ends with an answer.
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_support.h"
#include "tournament/spec.h"

using namespace arbiter;
using namespace arbiter::tournament;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const int fd = memfd_create("tournament.toml", 0);
  FUZZ_CHECK(fd >= 0, "memfd_create failed");
  FUZZ_CHECK(ftruncate(fd, 0) == 0, "ftruncate failed");
  FUZZ_CHECK(pwrite(fd, data, size, 0) == static_cast<ssize_t>(size), "pwrite failed");
  static const std::string path = "/proc/self/fd/" + std::to_string(fd);

  auto spec = read_spec_file(path);
  if (!spec) {
    fuzz::check_error(spec.error(), "read_spec_file");
    return 0;
  }
  const Json stored = encode_spec(*spec);
  auto back = decode_spec(stored);
  FUZZ_CHECK(back.has_value(), "a spec read from a file does not decode from its JSON form: " +
                                   dump(stored) + ": " + (back ? "" : back.error().message));
  FUZZ_CHECK(encode_spec(*back) == stored, "the JSON form of a spec changes: " + dump(stored));
  if (auto ok = validate_spec(*spec); !ok) fuzz::check_error(ok.error(), "validate_spec");
  return 0;
}
