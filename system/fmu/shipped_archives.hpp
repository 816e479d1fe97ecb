#pragma once
// FMU archives a System received as bytes (FmuSource::archive_bytes: its monitor on another
// host, where the .fmu file's path means nothing): written into a private directory of the
// System's and the recipe's members pointed at those copies, so that the FMU is read and
// unpacked as one found at its path. The directory goes with this object.
#include <filesystem>

#include "system/composite_model.hpp"

namespace kausal {

class ShippedArchives {
 public:
  ShippedArchives() = default;
  ~ShippedArchives();
  ShippedArchives(const ShippedArchives&) = delete;
  ShippedArchives& operator=(const ShippedArchives&) = delete;

  // Every member with archive bytes gets them written to <dir>/<member's index>/<the archive's
  // file name> and that path as its archive (its bytes dropped); such a member is unpacked in a
  // directory of its own (no unpack_root: the monitor's path is not this host's). ModelError
  // naming `component` and the member for bytes beyond limits::max_shipped_archive_bytes or
  // a file that cannot be written; unless `authenticated` (the bytes came over TLS, from a
  // caller with a certificate of the run's CA), for any archive bytes at all: an FMU holds a
  // binary the System would load, and code from a caller nobody authenticated is never run.
  void place(const std::string& component, CompositeRecipe& recipe, bool authenticated);

 private:
  std::filesystem::path dir_;  // made on the first archive
};

}  // namespace kausal
