#pragma once
// Plain C++ values <-> IDL values of the composite model a System builds for a partition.
// Like convert.hpp this file only copies; the System checks what arrives.
#include <vector>

#include "idl/convert.hpp"
#include "system/composite_model.hpp"

namespace kausal {

// ---- the composite a System builds ----

inline idl::MemberSetupSeq to_idl(const std::vector<MemberRecipe>& members) {
  idl::MemberSetupSeq out;
  out.length(wire_size(members.size()));
  for (CORBA::ULong k = 0; k < out.length(); ++k) {
    out[k].name = members[k].name.c_str();
    out[k].model = members[k].model.c_str();
    out[k].parameters = to_idl(members[k].parameters);
    out[k].fmu.archive = members[k].fmu.archive.c_str();
    out[k].fmu.archive_bytes = to_octets(members[k].fmu.archive_bytes);
    out[k].fmu.co_simulation = members[k].fmu.co_simulation;
    out[k].fmu.unpack_root = members[k].fmu.unpack_root.c_str();
    out[k].library = members[k].library.c_str();
    out[k].library_bytes = to_octets(members[k].library_bytes);
    const auto& strings = members[k].fmu.strings;
    out[k].fmu.strings.length(wire_size(strings.size()));
    for (CORBA::ULong j = 0; j < out[k].fmu.strings.length(); ++j)
      out[k].fmu.strings[j] = {strings[j].first.c_str(), strings[j].second.c_str()};
    const auto& texts = members[k].fmu.coupled_texts;
    out[k].fmu.coupled_texts.length(wire_size(texts.size()));
    for (CORBA::ULong j = 0; j < out[k].fmu.coupled_texts.length(); ++j)
      out[k].fmu.coupled_texts[j] = texts[j].c_str();
  }
  return out;
}

inline idl::DirectLinkSeq to_idl(const std::vector<DirectLink>& links) {
  idl::DirectLinkSeq out;
  out.length(wire_size(links.size()));
  for (CORBA::ULong k = 0; k < out.length(); ++k)
    out[k] = {wire_size(links[k].from), wire_size(links[k].from_output), wire_size(links[k].to),
              wire_size(links[k].to_input)};
  return out;
}

inline idl::ConstantInputSeq to_idl(const std::vector<ConstantInput>& constants) {
  idl::ConstantInputSeq out;
  out.length(wire_size(constants.size()));
  for (CORBA::ULong k = 0; k < out.length(); ++k) {
    const InputTable& table = constants[k].table;
    out[k] = {wire_size(constants[k].member),
              wire_size(constants[k].input),
              constants[k].value,
              to_seq(table.times),
              to_seq(table.values),
              table.interpolation == Interpolation::hold};
  }
  return out;
}

inline idl::HeldInputSeq to_idl(const std::vector<HeldInput>& held) {
  idl::HeldInputSeq out;
  out.length(wire_size(held.size()));
  for (CORBA::ULong k = 0; k < out.length(); ++k)
    out[k] = {wire_size(held[k].member), wire_size(held[k].input), held[k].parameter.c_str()};
  return out;
}

inline CompositeRecipe from_idl(const idl::MemberSetupSeq& members, const idl::DirectLinkSeq& links,
                                const idl::ConstantInputSeq& constants,
                                const idl::HeldInputSeq& held) {
  CompositeRecipe r;
  for (CORBA::ULong k = 0; k < members.length(); ++k) {
    FmuSource fmu{members[k].fmu.archive.in(),
                  static_cast<bool>(members[k].fmu.co_simulation),
                  members[k].fmu.unpack_root.in(),
                  {},
                  to_bytes(members[k].fmu.archive_bytes)};
    for (CORBA::ULong j = 0; j < members[k].fmu.strings.length(); ++j)
      fmu.strings.emplace_back(members[k].fmu.strings[j].name.in(),
                               members[k].fmu.strings[j].value.in());
    for (CORBA::ULong j = 0; j < members[k].fmu.coupled_texts.length(); ++j)
      fmu.coupled_texts.emplace_back(members[k].fmu.coupled_texts[j].in());
    r.members.push_back({members[k].name.in(), members[k].model.in(),
                         from_idl(members[k].parameters), std::move(fmu), members[k].library.in(),
                         to_bytes(members[k].library_bytes)});
  }
  for (CORBA::ULong k = 0; k < links.length(); ++k)
    r.links.push_back({links[k].from, links[k].from_output, links[k].to, links[k].to_input});
  for (CORBA::ULong k = 0; k < constants.length(); ++k)
    r.constants.push_back(
        {constants[k].member, constants[k].input, constants[k].value,
         InputTable{to_vector(constants[k].table_times), to_vector(constants[k].table_values),
                    constants[k].table_held ? Interpolation::hold : Interpolation::linear}});
  for (CORBA::ULong k = 0; k < held.length(); ++k)
    r.held.push_back({held[k].member, held[k].input, held[k].parameter.in()});
  return r;
}

}  // namespace kausal
