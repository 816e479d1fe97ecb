#include "system/fmu/clock_schedule.hpp"

#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace kausal::fmu {

void ClockSchedule::periodic(std::size_t k, double base, double interval) {
  clocks_.at(k) = {base, interval, 0, true, true};
}

void ClockSchedule::once(std::size_t k, double at) {
  clocks_.at(k) = {at, 0, 0, false, true};
}

void ClockSchedule::stop(std::size_t k) {
  clocks_.at(k).scheduled = false;
}

double ClockSchedule::next() const {
  double next = std::numeric_limits<double>::infinity();
  for (const Entry& e : clocks_)
    if (e.scheduled) next = std::min(next, e.at());
  return next;
}

double ClockSchedule::tolerance(double t) {
  return 1e-12 * (1.0 + std::abs(t));
}

std::vector<std::size_t> ClockSchedule::due(double t) const {
  std::vector<std::size_t> out;
  for (std::size_t k = 0; k < clocks_.size(); ++k)
    if (clocks_[k].scheduled && clocks_[k].at() <= t + tolerance(t)) out.push_back(k);
  return out;
}

void ClockSchedule::ticked(std::size_t k) {
  Entry& e = clocks_.at(k);
  if (e.periodic)
    ++e.ticks;
  else
    e.scheduled = false;
}

namespace {
void put(std::vector<std::uint8_t>& out, std::uint64_t v) {
  for (int b = 0; b < 8; ++b) out.push_back(static_cast<std::uint8_t>(v >> (8 * b)));
}
std::uint64_t take(std::span<const std::uint8_t>& in) {
  std::uint64_t v = 0;
  for (int b = 0; b < 8; ++b) v |= std::uint64_t{in[static_cast<std::size_t>(b)]} << (8 * b);
  in = in.subspan(8);
  return v;
}
}  // namespace

std::vector<std::uint8_t> ClockSchedule::save() const {
  std::vector<std::uint8_t> out;
  out.reserve(clocks_.size() * bytes_per_clock);
  for (const Entry& e : clocks_) {
    put(out, std::bit_cast<std::uint64_t>(e.base));
    put(out, std::bit_cast<std::uint64_t>(e.interval));
    put(out, e.ticks);
    out.push_back(static_cast<std::uint8_t>((e.periodic ? 1 : 0) | (e.scheduled ? 2 : 0)));
  }
  return out;
}

void ClockSchedule::restore(std::span<const std::uint8_t> bytes) {
  if (bytes.size() != clocks_.size() * bytes_per_clock)
    throw std::invalid_argument("a clock schedule of " + std::to_string(bytes.size()) +
                                " bytes for " + std::to_string(clocks_.size()) + " clocks");
  for (Entry& e : clocks_) {
    e.base = std::bit_cast<double>(take(bytes));
    e.interval = std::bit_cast<double>(take(bytes));
    e.ticks = take(bytes);
    e.periodic = (bytes[0] & 1) != 0;
    e.scheduled = (bytes[0] & 2) != 0;
    bytes = bytes.subspan(1);
  }
}

}  // namespace kausal::fmu
