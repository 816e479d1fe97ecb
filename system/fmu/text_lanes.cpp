#include "system/fmu/text_lanes.hpp"

#include <cmath>
#include <cstdint>

namespace kausal {

namespace {
constexpr double lane_limit = 281474976710656.0;  // 2^48
}

std::string text_lane_name(const std::string& port, std::size_t lane) {
  return lane == 0 ? port : port + "#" + std::to_string(lane + 1);
}

std::string pack_text(std::string_view text, std::span<double> lanes) {
  if (text.size() > max_coupled_text_bytes)
    return "its text is " + std::to_string(text.size()) +
           " bytes long; a coupled String carries at most " +
           std::to_string(max_coupled_text_bytes);
  if (text.find('\0') != std::string_view::npos) return "its text holds a zero byte";
  for (std::size_t lane = 0; lane < lanes.size(); ++lane) {
    // First byte highest: a lane's number orders like its bytes.
    std::uint64_t value = 0;
    for (std::size_t b = 0; b < text_lane_bytes; ++b) {
      const std::size_t at = lane * text_lane_bytes + b;
      const unsigned char byte = at < text.size() ? static_cast<unsigned char>(text[at]) : 0;
      value = value << 8 | byte;
    }
    lanes[lane] = static_cast<double>(value);
  }
  return {};
}

UnpackedText unpack_text(std::span<const double> lanes) {
  UnpackedText out;
  bool ended = false;
  for (std::size_t lane = 0; lane < lanes.size(); ++lane) {
    const double x = lanes[lane];
    if (!(x >= 0 && x < lane_limit) || std::floor(x) != x) {
      out.problem = "lane " + std::to_string(lane + 1) + " holds " + std::to_string(x) +
                    ", not six bytes of text";
      return out;
    }
    const auto value = static_cast<std::uint64_t>(x);
    for (std::size_t b = 0; b < text_lane_bytes; ++b) {
      const auto byte = static_cast<char>(value >> (8 * (text_lane_bytes - 1 - b)) & 0xff);
      if (byte == '\0') {
        ended = true;
      } else if (ended) {
        out.problem = "lane " + std::to_string(lane + 1) + " holds bytes after the text's end";
        out.text.clear();
        return out;
      } else {
        out.text.push_back(byte);
      }
    }
  }
  return out;
}

}  // namespace kausal
