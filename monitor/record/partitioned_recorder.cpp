#include "monitor/record/partitioned_recorder.hpp"

#include <algorithm>
#include <charconv>

#include "common/csv_field.hpp"
#include "common/errors.hpp"
#include "integrator/stepper.hpp"

namespace kausal {

PartitionedRecorder::PartitionedRecorder(const std::filesystem::path& csv,
                                         const PartitionedScenario& s, const PartitionedPlan& plan,
                                         bool keep_rows)
    : scenario_(s),
      steps_(s, std::vector<std::uint64_t>(s.partitions.size(), 0)),
      keep_rows_(keep_rows) {
  std::string header = "t";
  for (std::size_t p = 0; p < s.partitions.size(); ++p) {
    sha_.push_back(std::make_unique<Sha256>());
    offsets_.push_back(row_width_);
    row_width_ += plan.state_names[p].size();
    for (const auto& name : plan.state_names[p]) {
      header += ',';
      header += csv_field(name);
    }
  }
  if (csv.empty()) return;
  csv_.open(csv, std::ios::binary | std::ios::trunc);
  if (!csv_) throw InputError(csv.string() + ": cannot create trajectory file");
  csv_ << header << '\n';
  csv_bytes_ = header.size() + 1;
}

PartitionedRecorder::PartitionedRecorder(const std::filesystem::path& csv,
                                         const PartitionedScenario& s, const PartitionedPlan& plan,
                                         const PartitionedPosition& from)
    : PartitionedRecorder("", s, plan) {
  const std::size_t n = s.partitions.size();
  if (from.recorded.size() != n || from.digests.size() != n)
    throw InputError("checkpoint: recorded steps of " + std::to_string(from.recorded.size()) +
                     " partitions, the scenario has " + std::to_string(n));
  steps_ = DeliveredSteps(s, from.recorded);
  for (std::size_t p = 0; p < n; ++p) sha_[p]->restore(from.digests[p]);
  for (const auto& [tick, row] : from.pending_rows) {
    if (row.size() != row_width_)
      throw InputError("checkpoint: a pending row of " + std::to_string(row.size()) +
                       " values, expected " + std::to_string(row_width_));
    pending_[tick] = row;
    std::size_t filled = 0;
    for (std::size_t p = 0; p < n; ++p)
      if (tick < from.recorded[p] * s.partitions[p].ticks_per_step) ++filled;
    filled_[tick] = filled;
  }
  if (csv.empty()) return;
  csv_ = continue_csv(csv, from.csv_bytes);
  csv_bytes_ = from.csv_bytes;
}

PartitionedPosition PartitionedRecorder::position() {
  flush();
  PartitionedPosition at{{steps_.next().begin(), steps_.next().end()}, {}, csv_bytes_, pending_};
  for (const auto& sha : sha_) at.digests.push_back(sha->midstate());
  return at;
}

void PartitionedRecorder::record(std::size_t p, const StateBatch& batch) {
  const std::uint64_t first = batch.first_step;
  steps_.take(p, batch);
  const std::uint64_t ticks_per_step = scenario_.partitions[p].ticks_per_step;
  for (std::size_t k = 0; k < batch.count(); ++k) {
    const double* x = batch.states.data() + k * batch.state_size;
    sha_[p]->update(x, batch.state_size * sizeof(double));
    const std::uint64_t tick = (first + k) * ticks_per_step;
    if (tick % scenario_.output_ticks != 0 && tick != scenario_.ticks) continue;
    auto& row = pending_[tick];
    if (row.empty()) {
      row.assign(row_width_, 0.0);
      row[0] = step_time(scenario_.t0(), scenario_.tick, tick);
    }
    std::copy(x, x + batch.state_size, row.begin() + static_cast<std::ptrdiff_t>(offsets_[p]));
    ++filled_[tick];
  }
  write_ready_rows();
}

void PartitionedRecorder::finished(RunResult& r) {
  flush();
  r.trajectory_sha256 = digest();
  observer_ = nullptr;
}

void PartitionedRecorder::write_ready_rows() {
  char buf[32];
  while (!pending_.empty() && filled_[pending_.begin()->first] == scenario_.partitions.size()) {
    const auto& row = pending_.begin()->second;
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (i) line += ',';
      auto [end, ec] = std::to_chars(buf, buf + sizeof buf, row[i]);
      line.append(buf, end);
    }
    if (csv_.is_open()) {
      csv_ << line << '\n';
      csv_bytes_ += line.size() + 1;
    }
    if (keep_rows_) rows_.push_back(row);
    if (observer_)
      observer_->committed(pending_.begin()->first,
                           std::span<const double>(row).subspan(1));  // without t
    filled_.erase(pending_.begin()->first);
    pending_.erase(pending_.begin());
  }
}

std::string PartitionedRecorder::digest() const {
  std::vector<Sha256::Midstate> partitions;
  for (const auto& sha : sha_) partitions.push_back(sha->midstate());
  return digest_of(partitions);
}

std::string PartitionedRecorder::digest_of(const std::vector<Sha256::Midstate>& partitions) {
  Sha256 all;
  for (const auto& m : partitions) {
    Sha256 sha;
    sha.restore(m);
    const std::string part = sha.hex();
    all.update(part.data(), part.size());
  }
  return all.hex();
}

void PartitionedRecorder::flush() {
  if (csv_.is_open()) csv_.flush();
}

}  // namespace kausal
