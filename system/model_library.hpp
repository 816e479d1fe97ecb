#pragma once
// Models built outside kausal (docs/adding-a-model.md, "A model out of tree"): a shared
// library, compiled against an installed kausal (find_package(kausal)), that registers its
// models as the built-in ones register theirs. A scenario names it beside the model
// (`library = "build/libtank.so"`); every process that builds the model (the monitor, a
// System) loads it once. It runs with the rights of the process that loads it, as an FMU's
// binary does: name only libraries you trust.
//
// The library defines, with the macro below, the version of this interface it was built
// for and the function that registers its models:
//
//   #include "system/model_library.hpp"
//   KAUSAL_MODEL_LIBRARY(registry) { registry.add({"tank", "...", {...}, [](auto& v) {...}}); }
#include <memory>
#include <string>

#include "system/model_registry.hpp"

namespace kausal {

// Changes whenever Model, ModelRegistry or what they use changes shape: a library built for
// another version is refused, not called.
inline constexpr int kModelLibraryVersion = 1;

// Loads the library at `path` (absolute) once per process and registers its models beside
// the built-in ones. ModelError naming `component` and the library: it cannot be opened,
// lacks the two functions, was built for another version, or registers a name kausal has.
void load_model_library(const std::string& component, const std::string& path);

// A model a loaded library registered (null if none did), checked and built as
// ModelRegistry::make does.
std::unique_ptr<Model> make_library_model(const std::string& component, const std::string& name,
                                          const Parameters& parameters);

// The library that registered model `name`, or empty (a built-in model, or none).
std::string library_of_model(const std::string& name);

}  // namespace kausal

#define KAUSAL_MODEL_LIBRARY(registry)                                                   \
  extern "C" __attribute__((visibility("default"))) int kausal_model_library_version() { \
    return kausal::kModelLibraryVersion;                                                 \
  }                                                                                      \
  extern "C" __attribute__((visibility("default"))) void kausal_register_models(         \
      kausal::ModelRegistry& registry)
