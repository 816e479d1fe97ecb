#include "system/composite_model.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "common/errors.hpp"
#include "common/request_limits.hpp"
#include "system/fmu/fmu_model.hpp"
#include "system/model_library.hpp"

namespace kausal {

namespace {

Eigen::Index index_of(std::size_t i) {
  return static_cast<Eigen::Index>(i);
}

}  // namespace

CompositeModel::CompositeModel(std::vector<CompositeMember> members, std::vector<DirectLink> links,
                               std::vector<ConstantInput> constants,
                               const std::vector<HeldInput>& held)
    : members_(std::move(members)), has_links_(!links.empty()) {
  // A change names its member: two of one name would leave it to chance which one it reaches.
  for (std::size_t k = 0; k < members_.size(); ++k)
    for (std::size_t j = 0; j < k; ++j)
      if (members_[j].name == members_[k].name)
        throw ModelError(members_[k].name, "two members of the partition have this name");
  for (const auto& m : members_)
    if (m.model->steps_itself() && members_.size() > 1)
      throw ModelError(m.name,
                       "steps itself (a co-simulation FMU): it must be alone in its partition");
  Layout at;
  for (const auto& m : members_) {
    layout_.push_back(at);
    sources_.emplace_back(m.model->input_size());
    if (m.model->state_size() > 0) blocks_.push_back({m.name, at.state, m.model->state_size()});
    at.state += m.model->state_size();
    at.output += m.model->output_size();
    at.indicator += m.model->indicator_count();
  }
  indicator_count_ = at.indicator;
  auto bind = [&](std::size_t member, std::size_t input, InputSource source) {
    InputSource& slot = sources_.at(member).at(input);
    if (slot.kind != InputSource::open)
      throw ModelError(
          members_[member].name,
          "input '" + members_[member].model->signature().inputs[input] + "' is bound twice");
    slot = source;
  };
  for (const auto& l : links)
    bind(l.to, l.to_input, {InputSource::linked, layout_.at(l.from).output + l.from_output, 0, {}});
  for (const auto& c : constants)
    bind(c.member, c.input, {InputSource::constant, 0, c.value, {}, c.table});
  for (const auto& h : held)
    if (h.parameter.empty()) bind(h.member, h.input, {InputSource::held, 0, 0, {}});
  versions_.resize(members_.size());
  held_parameters_.resize(members_.size());
  build_signature(held);
  outputs_.resize(index_of(signature_.outputs.size()));
  for (const auto& m : members_) inputs_.emplace_back(index_of(m.model->input_size()));
}

void CompositeModel::build_signature(const std::vector<HeldInput>& held) {
  for (std::size_t k = 0; k < members_.size(); ++k) {
    const auto& name = members_[k].name;
    const Signature& s = members_[k].model->signature();
    for (const auto& x : s.states) signature_.states.push_back(name + "." + x);
    for (const auto& y : s.outputs) signature_.outputs.push_back(name + "." + y);
    for (std::size_t i = 0; i < s.inputs.size(); ++i) {
      InputSource& source = sources_[k][i];
      if (source.kind != InputSource::open) continue;
      source.index = signature_.inputs.size();
      signature_.inputs.push_back(name + "." + s.inputs[i]);
    }
  }
  for (const HeldInput& h : held) {
    const CompositeMember& m = members_[h.member];
    if (!h.parameter.empty()) {
      add_held_parameter(h.member, h.parameter, signature_.inputs.size());
      signature_.inputs.push_back(m.name + "." + h.parameter);
      continue;
    }
    sources_[h.member][h.input].index = signature_.inputs.size();
    signature_.inputs.push_back(m.name + "." + m.model->signature().inputs[h.input]);
  }
}

void CompositeModel::add_held_parameter(std::size_t k, const std::string& name, std::size_t input) {
  const CompositeMember& m = members_[k];
  if (m.registered.empty())
    throw ModelError(m.name, "its parameters cannot change, so events cannot set '" + name + "'");
  const auto named = std::find_if(m.parameters.begin(), m.parameters.end(),
                                  [&](const auto& p) { return p.first == name; });
  auto& held = held_parameters_[k];
  if (!held) held.emplace();
  for (const auto& [other, at] : held->inputs)
    if (other == name) throw ModelError(m.name, "parameter '" + name + "' is held twice");
  held->inputs.emplace_back(name, input);
  // Until an event sets it: the value the member was built with (a parameter left at its
  // default must be named to be held).
  if (named == m.parameters.end())
    throw ModelError(m.name, "parameter '" + name + "' is not given, so events cannot set it");
  held->values.push_back(named->second);
}

Vector CompositeModel::initial_state() const {
  Vector x(index_of(signature_.states.size()));
  for (std::size_t k = 0; k < members_.size(); ++k)
    x.segment(index_of(layout_[k].state), index_of(members_[k].model->state_size())) =
        members_[k].model->initial_state();
  return x;
}

void CompositeModel::output(double t, VectorView x, VectorOut y) const {
  for (std::size_t k = 0; k < members_.size(); ++k) {
    const Model& m = model_at(k, t);
    m.output(t, x.segment(index_of(layout_[k].state), index_of(m.state_size())),
             y.segment(index_of(layout_[k].output), index_of(m.output_size())));
  }
}

void CompositeModel::member_inputs(double t, VectorView x, VectorView u) const {
  take_held_parameters(u);
  if (has_links_) output(t, x, outputs_);
  for (std::size_t k = 0; k < members_.size(); ++k) {
    Vector& in = inputs_[k];
    for (std::size_t i = 0; i < sources_[k].size(); ++i) {
      const InputSource& s = sources_[k][i];
      in[index_of(i)] = s.kind == InputSource::open || s.kind == InputSource::held
                            ? u[index_of(s.index)]
                        : s.kind == InputSource::linked ? outputs_[index_of(s.index)]
                                                        : s.value_at(t);
    }
  }
}

void CompositeModel::derivative(double t, VectorView x, VectorView u, VectorOut dx) const {
  member_inputs(t, x, u);
  for (std::size_t k = 0; k < members_.size(); ++k) {
    const Model& m = model_at(k, t);
    const auto rows = index_of(m.state_size());
    const auto at = index_of(layout_[k].state);
    m.derivative(t, x.segment(at, rows), inputs_[k], dx.segment(at, rows));
  }
}

// Without direct links the Jacobian is block diagonal: each member's own (analytic or
// differenced) block. With links the cross terms need the chain rule through the outputs;
// central differences of the whole composite give them.
bool CompositeModel::has_jacobian() const {
  if (has_links_) return false;
  for (const auto& m : members_)
    if (!m.model->has_jacobian()) return false;
  return true;
}

void CompositeModel::jacobian(double t, VectorView x, VectorView u, MatrixOut J) const {
  if (has_links_) return Model::jacobian(t, x, u, J);
  J.setZero();
  member_inputs(t, x, u);
  for (std::size_t k = 0; k < members_.size(); ++k) {
    const Model& m = model_at(k, t);
    const auto n = index_of(m.state_size());
    const auto at = index_of(layout_[k].state);
    m.jacobian(t, x.segment(at, n), inputs_[k], J.block(at, at, n, n));
  }
}

void CompositeModel::indicators(double t, VectorView x, VectorView u, VectorOut g) const {
  if (indicator_count_ == 0) return;
  member_inputs(t, x, u);
  for (std::size_t k = 0; k < members_.size(); ++k) {
    const Model& m = model_at(k, t);
    if (m.indicator_count() == 0) continue;
    m.indicators(t, x.segment(index_of(layout_[k].state), index_of(m.state_size())), inputs_[k],
                 g.segment(index_of(layout_[k].indicator), index_of(m.indicator_count())));
  }
}

void CompositeModel::on_crossing(std::size_t indicator, double t, VectorOut x) const {
  for (std::size_t k = 0; k < members_.size(); ++k) {
    const Model& m = model_at(k, t);
    if (indicator < layout_[k].indicator || indicator >= layout_[k].indicator + m.indicator_count())
      continue;
    try {
      m.on_crossing(indicator - layout_[k].indicator, t,
                    x.segment(index_of(layout_[k].state), index_of(m.state_size())));
    } catch (const ModelError& e) {
      throw ModelError(members_[k].name, e.reason());
    }
    return;
  }
  throw ModelError("composite", "no indicator " + std::to_string(indicator));
}

bool CompositeModel::completes_steps() const {
  return std::any_of(members_.begin(), members_.end(),
                     [](const auto& m) { return m.model->completes_steps(); });
}

void CompositeModel::completed_step(double t, VectorOut x) const {
  for (std::size_t k = 0; k < members_.size(); ++k) {
    const Model& m = model_at(k, t);
    if (!m.completes_steps()) continue;
    try {
      m.completed_step(t, x.segment(index_of(layout_[k].state), index_of(m.state_size())));
    } catch (const ModelError& e) {
      throw ModelError(members_[k].name, e.reason());
    }
  }
}

InternalState CompositeModel::internal_state() const {
  InternalState state = InternalState::none;
  for (const auto& m : members_) {
    const InternalState own = m.model->internal_state();
    if (own == InternalState::unrestorable) return own;
    if (own == InternalState::restorable) state = own;
  }
  return state;
}

std::string CompositeModel::unrestorable_reason() const {
  for (const auto& m : members_)
    if (m.model->internal_state() == InternalState::unrestorable)
      return m.model->unrestorable_reason();  // (it names the subsystem)
  return {};
}

Bytes CompositeModel::save_internal() const {
  Bytes all;
  for (const auto& m : members_) {
    if (m.model->internal_state() == InternalState::none) continue;
    Bytes own;
    try {
      own = m.model->save_internal();
    } catch (const ModelError& e) {
      throw ModelError(m.name, e.reason());
    }
    const std::uint64_t size = own.size();
    for (int b = 0; b < 8; ++b) all.push_back(static_cast<std::uint8_t>(size >> (8 * b)));
    all.insert(all.end(), own.begin(), own.end());
  }
  return all;
}

// The bytes may come from the wire or a checkpoint file: every length is checked.
void CompositeModel::restore_internal(std::span<const std::uint8_t> bytes) const {
  std::size_t at = 0;
  for (const auto& m : members_) {
    if (m.model->internal_state() == InternalState::none) continue;
    if (bytes.size() - at < 8)
      throw ModelError(m.name, "internal state: the bytes end before this member's");
    std::uint64_t size = 0;
    for (int b = 0; b < 8; ++b)
      size |= std::uint64_t{bytes[at + static_cast<std::size_t>(b)]} << (8 * b);
    at += 8;
    if (size > bytes.size() - at)
      throw ModelError(m.name, "internal state: " + std::to_string(size) + " bytes announced, " +
                                   std::to_string(bytes.size() - at) + " left");
    try {
      m.model->restore_internal(bytes.subspan(at, static_cast<std::size_t>(size)));
    } catch (const ModelError& e) {
      throw ModelError(m.name, e.reason());
    }
    at += static_cast<std::size_t>(size);
  }
  if (at != bytes.size())
    throw ModelError("composite", "internal state: " + std::to_string(bytes.size() - at) +
                                      " bytes more than the members hold");
}

bool CompositeModel::steps_itself() const {
  return members_.size() == 1 && members_[0].model->steps_itself();
}

void CompositeModel::step(double t, double h, VectorView u, MatrixView du, VectorOut x) const {
  if (!steps_itself()) return Model::step(t, h, u, du, x);
  member_inputs(t, x, u);
  // The member's inputs that are the partition's own carry their derivatives, and those that
  // follow a table interpolated linearly their slope; constants, held inputs and links are
  // held over the step.
  const auto& sources = sources_[0];
  const bool sloped = std::any_of(sources.begin(), sources.end(), [](const InputSource& s) {
    return s.kind == InputSource::constant && !s.table.empty() &&
           s.table.interpolation == Interpolation::linear;
  });
  Matrix member_du = Matrix::Zero(inputs_[0].size(), std::max<Eigen::Index>(du.cols(), sloped));
  for (std::size_t i = 0; i < sources.size() && member_du.cols() > 0; ++i) {
    const InputSource& s = sources[i];
    if (s.kind == InputSource::open && du.cols() > 0)
      member_du.row(index_of(i)).head(du.cols()) = du.row(index_of(s.index));
    else if (s.kind == InputSource::constant)
      member_du(index_of(i), 0) = s.slope_at(t);
  }
  try {
    members_[0].model->step(t, h, inputs_[0], member_du, x);
  } catch (const ModelError& e) {
    throw ModelError(members_[0].name, e.reason());
  }
}

double CompositeModel::InputSource::value_at(double t) const {
  double v = table.empty() ? value : table(t);
  for (const auto& [from, changed] : later) {
    if (t < from) break;
    v = changed;
  }
  return v;
}

double CompositeModel::InputSource::slope_at(double t) const {
  if (table.empty() || (!later.empty() && later.front().first <= t)) return 0;
  return table.slope(t);
}

void CompositeModel::take_held_parameters(VectorView u) const {
  for (std::size_t k = 0; k < members_.size(); ++k) {
    auto& held = held_parameters_[k];
    if (!held) continue;
    // Bit for bit: a value that differs in any bit is another model. (Every derivative asks:
    // the common case, nothing changed, costs a comparison and no allocation.)
    const auto value_of = [&](std::size_t j) { return u[index_of(held->inputs[j].second)]; };
    bool same = held->model != nullptr;
    for (std::size_t j = 0; same && j < held->inputs.size(); ++j)
      same = std::bit_cast<std::uint64_t>(value_of(j)) ==
             std::bit_cast<std::uint64_t>(held->values[j]);
    if (same) continue;
    std::vector<double> values(held->inputs.size());
    Parameters parameters = members_[k].parameters;
    for (std::size_t j = 0; j < held->inputs.size(); ++j) {
      values[j] = value_of(j);
      for (auto& [name, value] : parameters)
        if (name == held->inputs[j].first) value = values[j];
    }
    held->model = rebuilt(k, parameters, held->inputs.front().first);
    // Only once the model is built: a value it refuses changes nothing.
    held->values = std::move(values);
  }
}

std::unique_ptr<Model> CompositeModel::rebuilt(std::size_t k, const Parameters& parameters,
                                               const std::string& changed) const {
  const CompositeMember& member = members_[k];
  // make_model names an unknown parameter or a bad value.
  std::unique_ptr<Model> model = make_model(member.name, member.registered, parameters);
  const Model& was = *member.model;
  if (model->state_size() != was.state_size() || model->input_size() != was.input_size() ||
      model->output_size() != was.output_size() ||
      model->indicator_count() != was.indicator_count())
    throw ModelError(member.name, "parameter '" + changed +
                                      "' would change the model's states, inputs or outputs");
  return model;
}

const Model& CompositeModel::model_at(std::size_t k, double t) const {
  // A member whose parameters events set: as the composite inputs last set them (outputs are
  // asked for at states a derivative or an indicator was computed at, with the same inputs).
  if (const auto& held = held_parameters_[k]; held && held->model) return *held->model;
  const Model* m = members_[k].model.get();
  for (const Version& v : versions_[k]) {
    if (t < v.from) break;
    m = v.model.get();
  }
  return *m;
}

// What changed at or before t becomes the value in force: no call asks for an earlier time.
void CompositeModel::settle(double t) {
  const auto after_t = [t](double from) { return from > t; };
  for (auto& member_sources : sources_)
    for (InputSource& s : member_sources) {
      const auto past = std::find_if(s.later.begin(), s.later.end(),
                                     [&](const auto& e) { return after_t(e.first); });
      if (past == s.later.begin()) continue;
      s.value = std::prev(past)->second;
      s.later.erase(s.later.begin(), past);
      s.table = {};  // the change holds from before every time still asked for: the table is done
    }
  for (std::size_t k = 0; k < members_.size(); ++k) {
    auto& versions = versions_[k];
    const auto past = std::find_if(versions.begin(), versions.end(),
                                   [&](const Version& v) { return after_t(v.from); });
    if (past == versions.begin()) continue;
    members_[k].model = std::move(std::prev(past)->model);
    members_[k].parameters = std::move(std::prev(past)->parameters);
    versions.erase(versions.begin(), past);
  }
}

std::size_t CompositeModel::unsettled_changes() const {
  std::size_t n = 0;
  for (const auto& member_sources : sources_)
    for (const InputSource& s : member_sources) n += s.later.size();
  for (const auto& versions : versions_) n += versions.size();
  return n;
}

void CompositeModel::change(const ModelChange& c) {
  if (!std::isfinite(c.value) || !std::isfinite(c.from))
    throw ModelError(c.member, "'" + c.name + "': the new value is not finite");
  if (!std::isfinite(c.settled))
    throw ModelError(c.member, "'" + c.name + "': the settled time is not finite");
  settle(c.settled);
  if (unsettled_changes() >= limits::max_unsettled_changes)
    throw ModelError(c.member, "'" + c.name +
                                   "': " + std::to_string(limits::max_unsettled_changes) +
                                   " changes not yet committed are kept already (the most a "
                                   "System keeps for a rollback): wait for the run to commit");
  const auto member = std::find_if(members_.begin(), members_.end(),
                                   [&](const CompositeMember& m) { return m.name == c.member; });
  if (member == members_.end()) throw ModelError(c.member, "is not a subsystem of this partition");
  const auto k = static_cast<std::size_t>(member - members_.begin());
  const auto& inputs = member->model->signature().inputs;
  const auto input = std::find(inputs.begin(), inputs.end(), c.name);
  if (input == inputs.end()) return change_parameter(k, c);
  InputSource& source = sources_[k][static_cast<std::size_t>(input - inputs.begin())];
  if (source.kind != InputSource::constant)
    throw ModelError(c.member, "input '" + c.name +
                                   (source.kind == InputSource::held
                                        ? "' is set by events: only constant inputs change"
                                        : "' is fed by another subsystem: only constant inputs "
                                          "change"));
  // In order of time; a second change at the same time replaces the first.
  auto& later = source.later;
  auto at =
      std::find_if(later.begin(), later.end(), [&](const auto& e) { return e.first >= c.from; });
  if (at != later.end() && at->first == c.from)
    at->second = c.value;
  else
    later.insert(at, {c.from, c.value});
}

void CompositeModel::change_parameter(std::size_t k, const ModelChange& c) {
  const CompositeMember& member = members_[k];
  if (member.registered.empty())
    throw ModelError(member.name, "has no input '" + c.name + "' and its parameters cannot change");
  if (held_parameters_[k])
    throw ModelError(member.name, "'" + c.name +
                                      "': events set parameters of this member, so the "
                                      "operator's changes do not (only constant inputs change)");
  // The parameters in force at c.from, with the new value.
  Parameters parameters = member.parameters;
  for (const Version& v : versions_[k])
    if (v.from <= c.from) parameters = v.parameters;
  auto named = std::find_if(parameters.begin(), parameters.end(),
                            [&](const auto& p) { return p.first == c.name; });
  if (named != parameters.end())
    named->second = c.value;
  else
    parameters.emplace_back(c.name, c.value);
  std::unique_ptr<Model> model = rebuilt(k, parameters, c.name);
  auto& versions = versions_[k];
  auto at = std::find_if(versions.begin(), versions.end(),
                         [&](const Version& v) { return v.from >= c.from; });
  if (at != versions.end() && at->from == c.from)
    *at = {c.from, std::move(parameters), std::move(model)};
  else
    versions.insert(at, {c.from, std::move(parameters), std::move(model)});
}

}  // namespace kausal

namespace kausal {
namespace {

void check_index(const std::string& component, const std::string& field, std::size_t value,
                 std::size_t count, const std::string& what) {
  if (value < count) return;
  std::string reason = field;
  reason += ": " + std::to_string(value) + " is out of range (" + what + " " +
            std::to_string(count) + ")";
  throw ModelError(component, reason);
}

std::string member_has(const CompositeMember& m, const char* ports) {
  std::string out = "member '";
  out += m.name + "' has";
  return out + " " + ports + ":";
}

}  // namespace

std::unique_ptr<CompositeModel> build_composite(const std::string& component,
                                                const CompositeRecipe& recipe) {
  std::vector<CompositeMember> members;
  for (const auto& m : recipe.members) {
    const std::string at = "members[" + std::to_string(members.size()) + "]";
    if (m.name.empty()) throw ModelError(component, at + ".name is empty");
    try {
      if (!m.library.empty()) load_model_library(m.name, m.library);
      if (m.model == "fmu")
        members.push_back({m.name, make_fmu_model(component, m), {}, {}});
      else
        members.push_back(
            {m.name, make_model(m.name, m.model, m.parameters), m.model, m.parameters});
    } catch (const ModelError& e) {
      throw ModelError(component, at + " ('" + m.name + "'): " + e.reason());
    }
  }
  const std::size_t n = members.size();
  for (std::size_t k = 0; k < recipe.links.size(); ++k) {
    const DirectLink& l = recipe.links[k];
    const std::string at = "links[" + std::to_string(k) + "]";
    check_index(component, at + ".from", l.from, n, "members:");
    check_index(component, at + ".to", l.to, n, "members:");
    check_index(component, at + ".from_output", l.from_output, members[l.from].model->output_size(),
                member_has(members[l.from], "outputs"));
    check_index(component, at + ".to_input", l.to_input, members[l.to].model->input_size(),
                member_has(members[l.to], "inputs"));
  }
  for (std::size_t k = 0; k < recipe.constants.size(); ++k) {
    const ConstantInput& c = recipe.constants[k];
    const std::string at = "constants[" + std::to_string(k) + "]";
    check_index(component, at + ".member", c.member, n, "members:");
    check_index(component, at + ".input", c.input, members[c.member].model->input_size(),
                member_has(members[c.member], "inputs"));
    if (!std::isfinite(c.value)) throw ModelError(component, at + ".value is not finite");
    if (!c.table.empty())
      if (const std::string problem = c.table.problem(at + ".table"); !problem.empty())
        throw ModelError(component, problem);
  }
  for (std::size_t k = 0; k < recipe.held.size(); ++k) {
    const HeldInput& h = recipe.held[k];
    const std::string at = "held[" + std::to_string(k) + "]";
    check_index(component, at + ".member", h.member, n, "members:");
    if (h.parameter.empty())
      check_index(component, at + ".input", h.input, members[h.member].model->input_size(),
                  member_has(members[h.member], "inputs"));
  }
  return std::make_unique<CompositeModel>(std::move(members), recipe.links, recipe.constants,
                                          recipe.held);
}

}  // namespace kausal
