#include "common/sha256.hpp"

#include <openssl/sha.h>

#include <cstring>
#include <fstream>
#include <stdexcept>

#include "common/errors.hpp"

namespace kausal {

// The low-level SHA256_CTX, not EVP: only its midstate can be saved in a checkpoint and
// restored (EVP contexts are opaque). OpenSSL 3 deprecates these functions but still ships
// and supports them; the deprecation warning is silenced here and only here.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

struct Sha256::Context {
  SHA256_CTX c;
};

Sha256::Sha256() : ctx_(std::make_unique<Context>()) {
  if (SHA256_Init(&ctx_->c) != 1) throw std::runtime_error("OpenSSL: cannot initialise SHA-256");
}
Sha256::~Sha256() = default;

void Sha256::update(const void* data, std::size_t bytes) {
  SHA256_Update(&ctx_->c, data, bytes);
}

std::string hex_of(const unsigned char* bytes, std::size_t count) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * count);
  for (std::size_t k = 0; k < count; ++k) {
    hex += digits[bytes[k] >> 4];
    hex += digits[bytes[k] & 15];
  }
  return hex;
}

std::string Sha256::hex() const {
  SHA256_CTX copy = ctx_->c;
  unsigned char out[SHA256_DIGEST_LENGTH];
  if (SHA256_Final(out, &copy) != 1) throw std::runtime_error("OpenSSL: cannot finish SHA-256");
  return hex_of(out, sizeof out);
}

Sha256::Midstate Sha256::midstate() const {
  const SHA256_CTX& c = ctx_->c;
  Midstate m;
  for (int i = 0; i < 8; ++i) m.h[i] = c.h[i];
  // Nh:Nl count bits; the unfinished block's bytes sit at the start of `data` (num of them).
  m.length = ((std::uint64_t{c.Nh} << 32) | c.Nl) / 8;
  m.pending.assign(reinterpret_cast<const char*>(c.data), c.num);
  return m;
}

void Sha256::restore(const Midstate& m) {
  if (m.pending.size() != m.length % SHA256_CBLOCK)
    throw InputError("SHA-256 midstate: " + std::to_string(m.pending.size()) +
                     " pending bytes do not fit a length of " + std::to_string(m.length));
  SHA256_CTX& c = ctx_->c;
  SHA256_Init(&c);  // md_len and a zeroed block
  for (int i = 0; i < 8; ++i) c.h[i] = m.h[i];
  const std::uint64_t bits = m.length * 8;
  c.Nl = static_cast<SHA_LONG>(bits & 0xffffffffu);
  c.Nh = static_cast<SHA_LONG>(bits >> 32);
  std::memcpy(c.data, m.pending.data(), m.pending.size());
  c.num = static_cast<unsigned int>(m.pending.size());
}

#pragma GCC diagnostic pop

std::string file_sha256(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(file.string() + ": cannot read it");
  Sha256 sha;
  char buf[65536];
  while (in.read(buf, sizeof buf) || in.gcount() > 0)
    sha.update(buf, static_cast<std::size_t>(in.gcount()));
  return sha.hex();
}

}  // namespace kausal
