#include "monitor/run/output_dir.hpp"

#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "common/errors.hpp"

namespace kausal {
namespace fs = std::filesystem;

namespace {

// What run and compare write at the top of their directory (README.md, "Output"): files of
// a run, the method and layout directories of a comparison, the report and its pictures.
constexpr const char* kWritten[] = {
    "trajectory.csv", "summary.json",  "trace.json", "checkpoint.json", "checkpoint.json.tmp",
    "bridge.csv",     "scenario.toml", "logs",       "attempts",        "report.html",
    "*.png",          "render-*.log",  "sequential", "conservative",    "conservative-*",
    "optimistic",     "process",       "pendulum",   "single",          "injections.jsonl",
    "operator.ior",   "clock.ior",     "replay"};

bool written_by_kausal(const std::string& name) {
  for (const char* pattern : kWritten)
    if (fnmatch(pattern, name.c_str(), 0) == 0) return true;
  return false;
}

[[noreturn]] void unusable(const fs::path& dir, const std::string& why) {
  throw InputError(dir.string() + ": cannot be the output directory (--out): " + why);
}

// Room below PATH_MAX for what goes inside (logs/integrator-100000.log, attempts/K/...).
constexpr std::size_t kMaxDirBytes = PATH_MAX - 256;

}  // namespace

void prepare_output_dir(const fs::path& dir, bool force) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(dir, ec);
  if (ec || absolute.string().size() > kMaxDirBytes)
    unusable(dir, "its path is longer than " + std::to_string(kMaxDirBytes) + " bytes");
  for (const auto& part : absolute)
    if (part.string().size() > NAME_MAX)
      unusable(dir, "a name in it is longer than " + std::to_string(NAME_MAX) + " bytes");
  fs::create_directories(dir, ec);
  if (ec) unusable(dir, ec.message());
  if (!fs::is_directory(dir, ec)) unusable(dir, "it is not a directory");
  // Writing is the only test that holds for root and on /proc or read-only mounts alike.
  std::string probe = (dir / ".kausal-write-test-XXXXXX").string();
  const int fd = mkstemp(probe.data());
  if (fd < 0) unusable(dir, std::string("cannot write in it: ") + std::strerror(errno));
  close(fd);
  unlink(probe.c_str());

  std::vector<std::string> names;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    names.push_back(it->path().filename().string());
  if (ec) unusable(dir, "cannot list it: " + ec.message());
  if (names.empty()) return;
  if (!force)
    throw InputError(dir.string() + ": the output directory is not empty (" +
                     std::to_string(names.size()) +
                     " entries): give another --out, or --force to replace the earlier run's "
                     "files in it");
  for (const auto& name : names)
    if (written_by_kausal(name)) {
      fs::remove_all(dir / name, ec);
      if (ec) unusable(dir, "cannot remove " + (dir / name).string() + ": " + ec.message());
    }
}

}  // namespace kausal
