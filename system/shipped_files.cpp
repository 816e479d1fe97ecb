#include "system/shipped_files.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "common/errors.hpp"
#include "common/request_limits.hpp"

namespace kausal {

namespace fs = std::filesystem;

ShippedFiles::~ShippedFiles() {
  std::error_code ignored;
  if (!dir_.empty()) fs::remove_all(dir_, ignored);
}

void ShippedFiles::place(const std::string& component, CompositeRecipe& recipe,
                         bool authenticated) {
  for (std::size_t k = 0; k < recipe.members.size(); ++k) {
    MemberRecipe& member = recipe.members[k];
    const std::string who = "member '" + member.name + "': ";
    if (!member.fmu.archive_bytes.empty()) {
      member.fmu.archive = write(component, k, who + "the shipped FMU archive", member.fmu.archive,
                                 member.fmu.archive_bytes, authenticated);
      member.fmu.archive_bytes = {};
      member.fmu.unpack_root.clear();
    }
    if (!member.library_bytes.empty()) {
      member.library = write(component, k, who + "the shipped model library", member.library,
                             member.library_bytes, authenticated);
      member.library_bytes = {};
    }
  }
}

std::string ShippedFiles::write(const std::string& component, std::size_t member,
                                const std::string& where, const std::string& path,
                                const std::vector<std::uint8_t>& bytes, bool authenticated) {
  if (!authenticated)
    throw ModelError(component, where +
                                    " is taken only over TLS (--tls-ca), where every caller is "
                                    "one of the run's: it holds a binary to load, and code from "
                                    "a caller nobody authenticated is never run");
  if (bytes.size() > limits::max_shipped_archive_bytes)
    throw ModelError(component, where + " has " + std::to_string(bytes.size()) +
                                    " bytes, more than " +
                                    std::to_string(limits::max_shipped_archive_bytes));
  // Its file name only (and the member's index, not its name), never a path the sender chose:
  // ../ or / cannot leave the directory.
  const fs::path name = fs::path(path).filename();
  if (name.empty() || name == "." || name == "..")
    throw ModelError(component, where + " has no file name ('" + path + "')");
  if (dir_.empty()) {
    std::string pattern = (fs::temp_directory_path() / "kausal-shipped-XXXXXX").string();
    if (!::mkdtemp(pattern.data()))
      throw ModelError(component,
                       where + ": cannot make a directory for it: " + std::strerror(errno));
    dir_ = pattern;
  }
  const fs::path copy = dir_ / std::to_string(member) / name;
  std::error_code error;
  fs::create_directories(copy.parent_path(), error);
  std::ofstream out(copy, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  if (error || !out.flush())
    throw ModelError(component, where + ": cannot write it to " + copy.string());
  return copy.string();
}

}  // namespace kausal
