#pragma once
// What a running run serves in its output directory for outside clients (clock.ior for
// kausal tick, operator.ior for kausal inject): the reference, and calls that name a run
// that has gone instead of crashing.
#include <filesystem>
#include <fstream>
#include <string>

#include "common/errors.hpp"
#include "idl/kausal.hh"

namespace kausal {

// The IOR in run_dir/file. InputError saying which run serves it (`served_by`) if missing.
inline std::string run_reference(const std::filesystem::path& run_dir, const std::string& file,
                                 const std::string& served_by) {
  const auto path = run_dir / file;
  std::ifstream in(path);
  std::string ior;
  if (!in || !std::getline(in, ior) || ior.rfind("IOR:", 0) != 0)
    throw InputError(path.string() + ": no reference (is " + served_by + " writing to " +
                     run_dir.string() + "?)");
  return ior;
}

// A call to the run's `what`; a run that cannot be reached is a PeerError (exit 3). A
// client without TLS cannot reach a run that serves only TLS: `tls` says whether this one
// has it, so that the message names that cause too.
template <typename Call>
auto on_run(const std::string& what, bool tls, Call&& call) -> decltype(call()) {
  try {
    return call();
  } catch (const CORBA::UserException&) {
    throw;  // the interface's own answer: the caller handles it
  } catch (const CORBA::Exception& e) {
    throw PeerError(what, std::string("the run cannot be reached (") + e._name() +
                              "): it has "
                              "ended or does not serve one" +
                              (tls ? ""
                                   : ", or it uses TLS: give the run's --tls-ca and a "
                                     "--tls-cert from its CA"));
  }
}

}  // namespace kausal
