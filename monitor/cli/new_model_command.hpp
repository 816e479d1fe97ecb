#pragma once
// kausal new-model NAME: a model of one's own as a project outside kausal's tree
// (docs/adding-a-model.md, "A model out of tree"): a CMake project that finds an installed
// kausal (find_package(kausal)), builds a model library with one model NAME to edit, a
// scenario of two of them coupled, and a test that runs it under every method.
#include <filesystem>
#include <string>

namespace CLI {
class App;
}

namespace kausal {

struct NewModelOptions {
  std::string name;
  std::filesystem::path dir;  // default: ./NAME
};

CLI::App* add_new_model_command(CLI::App& app, NewModelOptions& options);

// Writes the project; InputError (exit 2) for a name that is not a C identifier in lower
// case, a built-in model's name, or a directory that exists and is not empty.
int new_model_command(const NewModelOptions& options);

}  // namespace kausal
