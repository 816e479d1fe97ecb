#include "system/model_library.hpp"

#include <dlfcn.h>

#include <map>
#include <mutex>
#include <set>

#include "common/errors.hpp"

namespace kausal {
namespace {

// The loaded libraries and what they registered: one per process, filled from any thread
// that builds a model.
struct Loaded {
  std::mutex mutex;
  std::set<std::string> paths;
  ModelRegistry models;
  std::map<std::string, std::string> library_of;  // model name → the library's path
};

Loaded& loaded() {
  static Loaded l;
  return l;
}

}  // namespace

void load_model_library(const std::string& component, const std::string& path) {
  Loaded& l = loaded();
  const std::lock_guard lock(l.mutex);
  if (l.paths.contains(path)) return;
  const std::string what = "model library " + path;
  // Kept open for the process's life: its models' code must outlive every model built.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) throw ModelError(component, what + " cannot be loaded: " + dlerror());
  using Version = int (*)();
  using Register = void (*)(ModelRegistry&);
  const auto version = reinterpret_cast<Version>(dlsym(handle, "kausal_model_library_version"));
  const auto add = reinterpret_cast<Register>(dlsym(handle, "kausal_register_models"));
  if (!version || !add)
    throw ModelError(component, what +
                                    " is not a kausal model library (it defines no "
                                    "KAUSAL_MODEL_LIBRARY: docs/adding-a-model.md)");
  if (version() != kModelLibraryVersion)
    throw ModelError(component, what + " was built for model library version " +
                                    std::to_string(version()) + ", this kausal loads version " +
                                    std::to_string(kModelLibraryVersion) + ": rebuild it");
  ModelRegistry added;
  try {
    add(added);
  } catch (const std::exception& e) {
    throw ModelError(component, what + ": registering its models failed: " + e.what());
  }
  for (const auto& [name, info] : added.all()) {
    if (model_registry().find(name) || l.models.find(name))
      throw ModelError(component,
                       what + " registers '" + name + "', a model kausal has already: rename it");
  }
  for (const auto& [name, info] : added.all()) {
    l.models.add(info);
    l.library_of[name] = path;
  }
  l.paths.insert(path);
}

std::unique_ptr<Model> make_library_model(const std::string& component, const std::string& name,
                                          const Parameters& parameters) {
  Loaded& l = loaded();
  const std::lock_guard lock(l.mutex);
  if (!l.models.find(name)) return nullptr;
  return l.models.make(component, name, parameters);
}

std::string library_of_model(const std::string& name) {
  Loaded& l = loaded();
  const std::lock_guard lock(l.mutex);
  const auto it = l.library_of.find(name);
  return it == l.library_of.end() ? std::string() : it->second;
}

}  // namespace kausal
