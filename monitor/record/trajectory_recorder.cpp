#include "monitor/record/trajectory_recorder.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstring>

#include "common/coarse_clock.hpp"
#include "common/cpus.hpp"
#include "common/errors.hpp"
#include "integrator/stepper.hpp"

namespace kausal {

namespace {

// About 1 MiB of states per block: handing a block over wakes the writers (futex calls on
// three threads), so in a fast run it must be rare. A slow run hands a block over once it
// has waited kBlockWait, so that trajectory.csv and the digest keep up with it. At most
// kBlocksInFlight blocks are in flight: the committing thread waits rather than letting memory
// grow past about 4 MiB.
constexpr std::size_t kBlockStates = 65536;
constexpr std::chrono::milliseconds kBlockWait(100);
constexpr std::size_t kBlocksInFlight = 4;

}  // namespace

TrajectoryRecorder::TrajectoryRecorder(const std::filesystem::path& csv, std::size_t pendulums,
                                       std::uint64_t output_every, std::uint64_t last_step,
                                       double t0, double h)
    : csv_path_(csv),
      output_every_(output_every),
      last_step_(last_step),
      t0_(t0),
      h_(h),
      last_flush_(std::chrono::steady_clock::now()) {
  if (!csv.empty()) {
    csv_.open(csv, std::ios::binary | std::ios::trunc);
    if (!csv_) throw InputError(csv.string() + ": cannot create trajectory file");
    std::string header = "t";
    for (std::size_t i = 1; i <= pendulums; ++i)
      header += ",phi_" + std::to_string(i) + ",omega_" + std::to_string(i);
    header += '\n';
    csv_ << header;
    csv_bytes_ = header.size();
  }
  start_writers();
}

TrajectoryRecorder::TrajectoryRecorder(const std::filesystem::path& csv,
                                       const RecorderPosition& from, std::uint64_t output_every,
                                       std::uint64_t last_step, double t0, double h)
    : last_(from.step),
      csv_path_(csv),
      output_every_(output_every),
      last_step_(last_step),
      t0_(t0),
      h_(h),
      last_flush_(std::chrono::steady_clock::now()) {
  sha_.restore(from.digest);
  if (!csv.empty()) {
    csv_ = continue_csv(csv, from.csv_bytes);
    csv_bytes_ = from.csv_bytes;
  }
  start_writers();
}

std::ofstream continue_csv(const std::filesystem::path& csv, std::uint64_t bytes) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(csv, ec);
  if (ec) throw InputError(csv.string() + ": cannot read the trajectory to continue it");
  if (size < bytes)
    throw InputError(csv.string() + ": " + std::to_string(size) + " bytes, shorter than the " +
                     std::to_string(bytes) + " the checkpoint recorded");
  std::filesystem::resize_file(csv, bytes, ec);
  if (ec) throw InputError(csv.string() + ": cannot cut it to the checkpoint: " + ec.message());
  std::ofstream out(csv, std::ios::binary | std::ios::app);
  if (!out) throw InputError(csv.string() + ": cannot append to the trajectory file");
  return out;
}

TrajectoryRecorder::~TrajectoryRecorder() {
  try {
    drain();  // record what was committed, whatever ends the run
  } catch (...) {
    // The failure was reported by the call that met it first; nothing more to record.
  }
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  for (int w = 0; w < writer_count_; ++w) writers_[w].thread.join();
}

void TrajectoryRecorder::start_writers() {
  writer_count_ = csv_.is_open() ? 2 : 1;
  for (std::size_t k = 0; k < kBlocksInFlight; ++k) {
    blocks_.push_back(std::make_unique<Block>());
    spare_.push_back(blocks_.back().get());
  }
  filling_ = spare_.back();
  spare_.pop_back();
  writers_[0].thread = std::thread([this] { writer_loop(Output::digest); });
  if (writer_count_ == 2) writers_[1].thread = std::thread([this] { writer_loop(Output::csv); });
}

void TrajectoryRecorder::commit(std::uint64_t step, std::span<const PendulumState> states) {
  static_assert(std::endian::native == std::endian::little,
                "the digest is defined over little-endian doubles; add a byte swap here");
  if (states_per_step_ == 0) {
    states_per_step_ = states.size();
    block_steps_ =
        std::max<std::uint64_t>(1, kBlockStates / std::max<std::size_t>(1, states.size()));
  } else if (states.size() != states_per_step_) {
    throw SimulationError("recorder: step " + std::to_string(step) + " has " +
                          std::to_string(states.size()) + " states, earlier steps " +
                          std::to_string(states_per_step_));
  }
  Block& block = *filling_;
  const auto now = coarse_monotonic();
  if (block.steps == 0) {
    block.states.clear();
    block.first_step = step;
    block.started = now;
  }
  block.states.insert(block.states.end(), states.begin(), states.end());
  ++block.steps;
  last_ = step;
  last_block_ = &block;
  if (block.steps >= block_steps_ || now - block.started >= kBlockWait) submit();
}

void TrajectoryRecorder::submit() {
  std::unique_lock lock(mutex_);
  filling_->readers = writer_count_;
  for (int w = 0; w < writer_count_; ++w) writers_[w].queue.push_back(filling_);
  filling_ = nullptr;
  changed_.notify_all();
  // The next block to fill: wait for one the writers are done with (memory stays bounded).
  changed_.wait(lock, [&] { return !spare_.empty() || failure_; });
  if (failure_) std::rethrow_exception(failure_);
  filling_ = spare_.back();
  spare_.pop_back();
}

void TrajectoryRecorder::drain() {
  if (filling_ && filling_->steps > 0) submit();
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] {
    if (failure_) return true;
    for (int w = 0; w < writer_count_; ++w)
      if (!writers_[w].queue.empty() || writers_[w].busy) return false;
    return true;
  });
  if (failure_) std::rethrow_exception(failure_);
}

void TrajectoryRecorder::writer_loop(Output output) {
  Writer& me = writers_[static_cast<int>(output)];
  for (;;) {
    Block* block = nullptr;
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return !me.queue.empty() || stopping_; });
      if (me.queue.empty()) return;
      block = me.queue.front();
      me.queue.pop_front();
      me.busy = true;
    }
    std::exception_ptr failure;
    try {
      record(output, *block);
    } catch (const Error&) {
      failure = std::current_exception();
    } catch (const std::exception& e) {
      failure = std::make_exception_ptr(SimulationError(std::string("recording: ") + e.what()));
    } catch (...) {
      failure = std::make_exception_ptr(SimulationError("recording: unknown failure"));
    }
    {
      std::lock_guard lock(mutex_);
      me.busy = false;
      if (failure && !failure_) failure_ = failure;
      if (--block->readers == 0) {
        block->steps = 0;
        spare_.push_back(block);
      }
    }
    changed_.notify_all();
    if (failure) return;
  }
}

void TrajectoryRecorder::record(Output output, const Block& block) {
  if (output == Output::digest)
    sha_.update(block.states.data(), block.states.size() * sizeof(PendulumState));
  else
    write_rows(block);
}

void TrajectoryRecorder::write_rows(const Block& block) {
  // The block's rows are formatted into one buffer and written with one call: per-row writes
  // through the stream cost as much as formatting the numbers.
  const std::size_t width = block.states.size() / block.steps;
  text_.clear();
  for (std::uint64_t k = 0; k < block.steps; ++k) {
    const std::uint64_t step = block.first_step + k;
    if (step % output_every_ == 0 || step == last_step_)
      format_row(step, std::span(block.states).subspan(k * width, width));
  }
  csv_.write(text_.data(), static_cast<std::streamsize>(text_.size()));
  csv_bytes_ += text_.size();
  if (!csv_) throw SimulationError(csv_path_.string() + ": cannot write (disk full?)");
  const auto now = std::chrono::steady_clock::now();
  if (now - last_flush_ > std::chrono::milliseconds(500)) {
    csv_.flush();
    last_flush_ = now;
  }
}

void TrajectoryRecorder::format_row(std::uint64_t step, std::span<const PendulumState> states) {
  // Shortest representation that reads back to the same double.
  char buf[32];
  auto put = [&](double v) {
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    text_.append(buf, end);
  };
  put(step_time(t0_, h_, step));
  for (const auto& x : states) {
    text_ += ',';
    put(x[0]);
    text_ += ',';
    put(x[1]);
  }
  text_ += '\n';
}

std::string TrajectoryRecorder::digest() {
  drain();
  return sha_.hex();
}

void TrajectoryRecorder::finished(RunResult& r) {
  flush();
  r.trajectory_sha256 = digest();
}

void TrajectoryRecorder::flush() {
  drain();
  if (csv_.is_open()) csv_.flush();
}

bool TrajectoryRecorder::pin_digest_writer(int cpu) {
  return pin_thread(writers_[static_cast<int>(Output::digest)].thread, cpu);
}

std::span<const PendulumState> TrajectoryRecorder::last_states() const {
  if (!last_block_) return {};
  return std::span(last_block_->states).last(states_per_step_);
}

RecorderPosition TrajectoryRecorder::position() {
  flush();
  return {last_.value_or(0), sha_.midstate(), csv_bytes_};
}

}  // namespace kausal
