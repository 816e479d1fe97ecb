#pragma once
// A String port coupled between FMUs (docs/fmi.md, "String ports"). kausal's couplings carry
// numbers — sampled, held, shipped between processes, kept in state lists and checkpoints,
// hashed into the digest — so a coupled String travels as `text_lanes` numbers, each holding
// `text_lane_bytes` bytes of its text as a whole number below 2^48 (exact in a double). The
// text ends at its first zero byte; the lanes after it are 0. Everything that moves numbers
// moves the text unchanged, and a rollback, a resume or a shipped sample restores it with
// the rest of the state. Only ports a scenario couples become lanes: an FMU's other String
// ports stay out of its signature (and out of the digest).
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace kausal {

inline constexpr std::size_t text_lanes = 16;
inline constexpr std::size_t text_lane_bytes = 6;
// The longest text a coupled String carries.
inline constexpr std::size_t max_coupled_text_bytes = text_lanes * text_lane_bytes;

// The signature's name of lane `lane` of String port `port`: the port's own name for lane 0
// (what a coupling names), "port#2" ... "port#16" for the others.
std::string text_lane_name(const std::string& port, std::size_t lane);

// Packs `text` into lanes (text_lanes values). Returns why it cannot (longer than
// max_coupled_text_bytes, or holding a zero byte), or empty.
std::string pack_text(std::string_view text, std::span<double> lanes);

// The text lanes hold, or why they hold none (a lane that is not a whole number in
// [0, 2^48), or bytes after the text's end): lanes may come from the wire.
struct UnpackedText {
  std::string text;
  std::string problem;  // empty: text is the text
};
UnpackedText unpack_text(std::span<const double> lanes);

}  // namespace kausal
