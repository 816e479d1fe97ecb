#include "monitor/record/collision_log.hpp"

#include <algorithm>
#include <charconv>

#include "common/errors.hpp"
#include "integrator/pendulum_block.hpp"

namespace kausal {

CollisionLog::CollisionLog(const Scenario& s, std::filesystem::path csv, bool resumed)
    : s_(s), csv_(std::move(csv)), work_(PendulumState{}), sweep_(s.chain) {
  for (const PendulumParams& p : s.chain.pendulums) coefficients_.push_back(coefficients_of(p));
  if (resumed) return;  // opened by resumed(), which knows the step
  out_.open(csv_, std::ios::trunc);
  if (!out_) throw InputError(csv_.string() + ": cannot write");
  out_ << kHeader << '\n';
}

void CollisionLog::committed(std::uint64_t step, std::span<const PendulumState> states,
                             std::uint64_t collisions) {
  if (step > 0 && collisions > collisions_ && !before_.empty())
    find_impacts(step, states, collisions - collisions_);
  collisions_ = collisions;
  before_.assign(states.begin(), states.end());
}

void CollisionLog::resumed(std::uint64_t step, std::span<const PendulumState> states,
                           std::uint64_t collisions) {
  keep_rows_up_to(step);
  collisions_ = collisions;
  before_.assign(states.begin(), states.end());
}

void CollisionLog::pushed(std::uint64_t, std::span<const PendulumState> states) {
  before_.assign(states.begin(), states.end());
}

void CollisionLog::finished(RunResult&) {
  if (out_.is_open()) out_.flush();
}

void CollisionLog::find_impacts(std::uint64_t step, std::span<const PendulumState> states,
                                std::uint64_t count) {
  const std::span<const BobPair> pairs = sweep_.candidates(states);
  std::vector<std::uint32_t> members;
  for (const BobPair& p : pairs) members.insert(members.end(), {p.i, p.j});
  std::sort(members.begin(), members.end());
  members.erase(std::unique(members.begin(), members.end()), members.end());
  std::vector<PendulumState> again(states.begin(), states.end());
  const double t = step_time(s_.t0(), s_.h, step - 1);
  for (const std::uint32_t m : members) {
    again[m] = before_[m];
    step_pendulums(s_.method, std::span(coefficients_).subspan(m, 1), t, s_.h,
                   std::span(again).subspan(m, 1), work_);
  }
  const std::uint64_t found =
      sweep_.resolve_pairs(again, step, pairs, [&](const BobPair& pair, const Impact& impact) {
        const PendulumState left = again[pair.i], right = again[pair.j];
        apply_pendulum_impulse(s_.chain.pendulums[pair.i], impact.left_impulse,
                               again[pair.i].data());
        apply_pendulum_impulse(s_.chain.pendulums[pair.j], impact.right_impulse,
                               again[pair.j].data());
        write(step, pair, impact, left, right, again[pair.i][1], again[pair.j][1]);
      });
  const bool same =
      found == count && std::equal(again.begin(), again.end(), states.begin(), states.end());
  if (!same)
    throw SimulationError("collisions.csv: step " + std::to_string(step) + " taken again has " +
                          std::to_string(found) + " impacts where the run committed " +
                          std::to_string(count) + (found == count ? ", and other states" : ""));
  if (!out_) throw SimulationError(csv_.string() + ": cannot write (disk full?)");
}

// Shortest representations that read back to the same doubles, as trajectory.csv's.
void CollisionLog::write(std::uint64_t step, const BobPair& pair, const Impact& impact,
                         const PendulumState& left, const PendulumState& right, double left_after,
                         double right_after) {
  std::string row;
  char buf[32];
  const auto put = [&](double v) {
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    row.append(buf, end);
    row += ',';
  };
  put(step_time(s_.t0(), s_.h, step));
  row += std::to_string(step) + ',' + std::to_string(pair.i + 1) + ',' +
         std::to_string(pair.j + 1) + ',';
  put(impact.left_impulse);
  put(impact.right_impulse);
  put(impact.approach_speed);
  put(left[0]);
  put(left[1]);
  put(left_after);
  put(right[0]);
  put(right[1]);
  put(right_after);
  row.back() = '\n';
  out_ << row;
}

// The rows of steps up to `step` (the header, and no partial last line of a run that died
// while writing it), then appending.
void CollisionLog::keep_rows_up_to(std::uint64_t step) {
  std::ifstream in(csv_);
  std::string kept = std::string(kHeader) + '\n', line;
  std::getline(in, line);  // the header
  while (std::getline(in, line) && !in.eof()) {
    const auto comma = line.find(',');
    std::uint64_t row_step = 0;
    if (comma == std::string::npos) break;
    const char* first = line.data() + comma + 1;
    const auto [end, ec] = std::from_chars(first, line.data() + line.size(), row_step);
    if (ec != std::errc() || *end != ',' || row_step > step) break;
    kept += line + '\n';
  }
  in.close();
  out_.open(csv_, std::ios::trunc);
  if (!out_) throw InputError(csv_.string() + ": cannot write");
  out_ << kept;
}

}  // namespace kausal
