// libFuzzer target (make sanitize; make test runs it for a bounded time under ASan + UBSan): an
// .fmu archive on arbitrary bytes, as the user hands one to kausal: the zip reader (libzip
// behind kausal's checks of every entry), the unpacker and the model description read from
// the archive. Bad archives must end as kausal::InputError; anything else — a crash, a
// sanitizer report, another exception, a hang, a file written outside the unpack directory
// — is a finding. The seeds are the test FMUs (tests/fmus).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "system/fmu/fmu_archive.hpp"
#include "tests/fuzz/refused_or_read.hpp"

namespace {

namespace fs = std::filesystem;

// The archive and what it unpacks to, in the working directory (ctest: the build directory),
// emptied when the fuzzer starts. (libFuzzer ends with _Exit: nothing could remove it at the
// end, so it is one directory reused, not a new one in /tmp per run.)
const fs::path& work_dir() {
  static const fs::path dir = [] {
    const fs::path d = fs::current_path() / "fmu_archive_fuzzer.work";
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

}  // namespace

using kausal::fuzz::refused_or_read;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fs::path fmu = work_dir() / "fuzz.fmu";
  const fs::path unpacked = work_dir() / "unpacked";
  std::ofstream(fmu, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  refused_or_read([&] { kausal::fmu::read_model_description(fmu); });
  refused_or_read([&] { kausal::fmu::unpack_fmu(fmu, unpacked); });
  // Nothing lands beside the unpack directory (an entry named ../x, an absolute path).
  for (const auto& entry : fs::directory_iterator(work_dir()))
    if (entry.path() != fmu && entry.path() != unpacked) __builtin_trap();
  std::error_code ignored;
  fs::remove_all(unpacked, ignored);
  return 0;
}
