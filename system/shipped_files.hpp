#pragma once
// The files of a partition's members a System received as bytes (its monitor on another host,
// where their paths mean nothing): FMU archives (FmuSource::archive_bytes) and model libraries
// (MemberRecipe::library_bytes), written into a private directory of the System's and the
// recipe's members pointed at those copies, so that each is read as one found at its path. The
// directory goes with this object.
#include <filesystem>

#include "system/composite_model.hpp"

namespace kausal {

class ShippedFiles {
 public:
  ShippedFiles() = default;
  ~ShippedFiles();
  ShippedFiles(const ShippedFiles&) = delete;
  ShippedFiles& operator=(const ShippedFiles&) = delete;

  // Every member's shipped bytes are written to <dir>/<member's index>/<the file's name> and
  // that path becomes its archive or library (the bytes dropped); a shipped FMU is unpacked in
  // a directory of its own (no unpack_root: the monitor's path is not this host's).
  // ModelError naming `component` and the member for bytes beyond
  // limits::max_shipped_archive_bytes or a file that cannot be written; unless `authenticated`
  // (the bytes came over TLS, from a caller with a certificate of the run's CA), for any bytes
  // at all: an FMU and a model library hold a binary the System would load, and code from a
  // caller nobody authenticated is never run.
  void place(const std::string& component, CompositeRecipe& recipe, bool authenticated);

 private:
  // Writes `bytes` as <dir>/<member>/<path's file name>; returns that path.
  std::string write(const std::string& component, std::size_t member, const std::string& where,
                    const std::string& path, const std::vector<std::uint8_t>& bytes,
                    bool authenticated);

  std::filesystem::path dir_;  // made on the first file
};

}  // namespace kausal
