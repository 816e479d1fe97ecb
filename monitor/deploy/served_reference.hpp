#pragma once
// A servant of the monitor's that clients find through a file in the run's directory (the
// clock of a run paced from outside, its operator): kausal tick, kausal inject, controllers.
#include <filesystem>
#include <fstream>
#include <memory>

#include "common/errors.hpp"
#include "idl/orb_runtime.hpp"

namespace kausal {

// Serves `Servant` (a servant with close(), idl/call_gate.hpp) over `target` while the handle
// lives, its reference in `file`; then deactivates it (later calls: OBJECT_NOT_EXIST), waits for
// the calls in progress (they use `target`, which may go with the handle) and removes the file. The
// servant is the POA's to delete once its last call has returned.
template <typename Servant, typename Target>
std::shared_ptr<void> serve_with_reference(OrbRuntime& orb, Target& target,
                                           std::filesystem::path file, const char* what) {
  struct Served {
    Served(OrbRuntime& o, Target& t, std::filesystem::path f)
        : orb(o), servant(new Servant(t)), file(std::move(f)) {}
    OrbRuntime& orb;
    PortableServer::Servant_var<Servant> servant;
    std::filesystem::path file;
    ~Served() {
      std::error_code ignored;
      std::filesystem::remove(file, ignored);
      try {
        orb.deactivate(servant.in());
      } catch (...) {
        // Never activated (the reference could not be made), or the ORB is gone.
      }
      servant->close();
    }
  };
  auto served = std::make_shared<Served>(orb, target, std::move(file));
  const std::string ior = orb.activate(served->servant.in());
  std::ofstream out(served->file, std::ios::trunc);
  out << ior << "\n";
  if (!out.flush())
    throw InputError(served->file.string() + ": cannot write the " + what + "'s reference");
  return served;
}

}  // namespace kausal
