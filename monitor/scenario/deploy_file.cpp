#include "monitor/scenario/deploy_file.hpp"

#include <fnmatch.h>

#include <set>

#include "monitor/scenario/input_file.hpp"
#include "monitor/scenario/toml_reader.hpp"

namespace kausal {

namespace {

bool matches(const std::string& pattern, const std::string& name) {
  return fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
}

NodeRule read_node(const toml::table& table, const std::string& file, std::size_t index) {
  TableReader r(table, file, "node[" + std::to_string(index) + "]");
  NodeRule rule;
  rule.line = static_cast<int>(table.source().begin.line);
  const auto name = r.text("name");
  if (!name) r.fail_at(table.source(), "missing field " + r.qualified("name"));
  if (!plain_name(*name)) r.fail("name", "must be a plain name (1-64 of A-Z a-z 0-9 . _ -)");
  rule.node = *name;
  const toml::node* list = r.take("components");
  if (!list || !list->is_array() || list->as_array()->empty())
    r.fail_at(list ? list->source() : table.source(),
              r.qualified("components") +
                  " must be a non-empty list of component or process names (globs allowed)");
  for (const auto& item : *list->as_array()) {
    if (!item.is_string() || item.value<std::string>()->empty())
      r.fail_at(item.source(), r.qualified("components") + " entries must be non-empty strings");
    rule.patterns.push_back(*item.value<std::string>());
  }
  r.reject_unknown_keys();
  return rule;
}

}  // namespace

bool plain_name(const std::string& name) {
  if (name.empty() || name.size() > 64 || name == "." || name == "..") return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'))
      return false;
  return true;
}

const NodeRule& DeployFile::node_for(const std::string& process,
                                     const std::vector<std::string>& components) const {
  for (const auto& rule : nodes)
    for (const auto& pattern : rule.patterns) {
      if (matches(pattern, process)) return rule;
      for (const auto& c : components)
        if (matches(pattern, c)) return rule;
    }
  throw InputError(file + ": no [[node]] takes process '" + process +
                   "' (add its name, or a pattern such as \"*\", to a node's components)");
}

std::vector<std::string> DeployFile::node_names() const {
  std::vector<std::string> out;
  for (const auto& rule : nodes) out.push_back(rule.node);
  return out;
}

DeployFile load_deploy_file(const std::string& file) {
  return parse_deploy_file(read_input_file(file, "deployment file"), file);
}

DeployFile parse_deploy_file(const std::string& text, const std::string& file) {
  const toml::table root = parse_toml(text, file);
  TableReader r(root, file, "");
  DeployFile d;
  d.file = file;
  d.naming = r.text("naming").value_or("");
  d.monitor_host = r.text("monitor_host").value_or("");
  const toml::node* nodes = r.take("node");
  if (!nodes || !nodes->is_array_of_tables())
    r.fail_at(nodes ? nodes->source() : root.source(),
              "a deployment file needs [[node]] tables (name, components)");
  std::set<std::string> seen;
  std::size_t index = 0;
  for (const auto& item : *nodes->as_array()) {
    NodeRule rule = read_node(*item.as_table(), file, index++);
    if (!seen.insert(rule.node).second)
      throw InputError(file + ":" + std::to_string(rule.line) + ": node '" + rule.node +
                       "' is listed twice");
    d.nodes.push_back(std::move(rule));
  }
  r.reject_unknown_keys();
  return d;
}

}  // namespace kausal
