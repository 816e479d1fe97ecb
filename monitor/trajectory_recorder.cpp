#include "monitor/trajectory_recorder.hpp"

#include <openssl/evp.h>
#include <bit>
#include <charconv>
#include <cstring>

#include "integrator/stepper.hpp"
#include "system/errors.hpp"

namespace kausal {

struct Sha256::Context {
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  ~Context() { EVP_MD_CTX_free(md); }
};

Sha256::Sha256() : ctx_(std::make_unique<Context>()) {
  if (!ctx_->md || EVP_DigestInit_ex(ctx_->md, EVP_sha256(), nullptr) != 1)
    throw std::runtime_error("OpenSSL: cannot initialise SHA-256");
}
Sha256::~Sha256() = default;

void Sha256::update(const void* data, std::size_t bytes) {
  EVP_DigestUpdate(ctx_->md, data, bytes);
}

std::string Sha256::hex() const {
  Context copy;
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_MD_CTX_copy_ex(copy.md, ctx_->md) != 1 || EVP_DigestFinal_ex(copy.md, out, &len) != 1)
    throw std::runtime_error("OpenSSL: cannot finish SHA-256");
  static constexpr char digits[] = "0123456789abcdef";
  std::string hex;
  for (unsigned i = 0; i < len; ++i) {
    hex += digits[out[i] >> 4];
    hex += digits[out[i] & 15];
  }
  return hex;
}

TrajectoryRecorder::TrajectoryRecorder(const std::filesystem::path& csv, std::size_t pendulums,
                                       std::uint64_t output_every, std::uint64_t last_step,
                                       double t0, double h)
    : output_every_(output_every),
      last_step_(last_step),
      t0_(t0),
      h_(h),
      last_flush_(std::chrono::steady_clock::now()) {
  if (csv.empty()) return;
  csv_.open(csv, std::ios::binary | std::ios::trunc);
  if (!csv_) throw InputError(csv.string() + ": cannot create trajectory file");
  std::string header = "t";
  for (std::size_t i = 1; i <= pendulums; ++i)
    header += ",phi_" + std::to_string(i) + ",omega_" + std::to_string(i);
  csv_ << header << '\n';
}

void TrajectoryRecorder::commit(std::uint64_t step, std::span<const PendulumState> states) {
  static_assert(std::endian::native == std::endian::little,
                "the digest is defined over little-endian doubles; add a byte swap here");
  sha_.update(states.data(), states.size_bytes());
  last_ = step;
  if (csv_.is_open() && (step % output_every_ == 0 || step == last_step_)) write_row(step, states);
}

void TrajectoryRecorder::write_row(std::uint64_t step, std::span<const PendulumState> states) {
  // Shortest representation that reads back to the same double.
  char buf[32];
  auto put = [&](double v) {
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    row_.append(buf, end);
  };
  row_.clear();
  put(step_time(t0_, h_, step));
  for (const auto& x : states) {
    row_ += ',';
    put(x[0]);
    row_ += ',';
    put(x[1]);
  }
  row_ += '\n';
  csv_.write(row_.data(), static_cast<std::streamsize>(row_.size()));
  const auto now = std::chrono::steady_clock::now();
  if (now - last_flush_ > std::chrono::milliseconds(500)) {
    csv_.flush();
    last_flush_ = now;
  }
}

void TrajectoryRecorder::flush() {
  if (csv_.is_open()) csv_.flush();
}

}  // namespace kausal
