#include "system/fmu/shipped_archives.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "common/errors.hpp"
#include "common/request_limits.hpp"

namespace kausal {

namespace fs = std::filesystem;

ShippedArchives::~ShippedArchives() {
  std::error_code ignored;
  if (!dir_.empty()) fs::remove_all(dir_, ignored);
}

void ShippedArchives::place(const std::string& component, CompositeRecipe& recipe,
                            bool authenticated) {
  for (std::size_t k = 0; k < recipe.members.size(); ++k) {
    MemberRecipe& member = recipe.members[k];
    FmuSource& fmu = member.fmu;
    if (fmu.archive_bytes.empty()) continue;
    const std::string where = "member '" + member.name + "': the shipped FMU archive";
    if (!authenticated)
      throw ModelError(component, where +
                                      " is taken only over TLS (--tls-ca), where every "
                                      "caller is one of the run's: it holds a binary to "
                                      "load, and code from a caller nobody authenticated "
                                      "is never run");
    if (fmu.archive_bytes.size() > limits::max_shipped_archive_bytes)
      throw ModelError(component, where + " has " + std::to_string(fmu.archive_bytes.size()) +
                                      " bytes, more than " +
                                      std::to_string(limits::max_shipped_archive_bytes));
    // Its file name only (and the member's index, not its name), never a path the sender
    // chose: ../ or / cannot leave the directory.
    const fs::path name = fs::path(fmu.archive).filename();
    if (name.empty() || name == "." || name == "..")
      throw ModelError(component, where + " has no file name ('" + fmu.archive + "')");
    if (dir_.empty()) {
      std::string pattern = (fs::temp_directory_path() / "kausal-shipped-XXXXXX").string();
      if (!::mkdtemp(pattern.data()))
        throw ModelError(component,
                         where + ": cannot make a directory for it: " + std::strerror(errno));
      dir_ = pattern;
    }
    const fs::path copy = dir_ / std::to_string(k) / name;
    std::error_code error;
    fs::create_directories(copy.parent_path(), error);
    std::ofstream out(copy, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(fmu.archive_bytes.data()),
              static_cast<std::streamsize>(fmu.archive_bytes.size()));
    if (error || !out.flush())
      throw ModelError(component, where + ": cannot write it to " + copy.string());
    fmu.archive = copy.string();
    fmu.archive_bytes = {};
    fmu.unpack_root.clear();
  }
}

}  // namespace kausal
