#pragma once
// SHA-256 with a midstate that can be saved and continued (checkpoint.json): the digest of
// every committed result, in the monitor's recorders and in event-group processes alike.
#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

namespace kausal {

// Bytes as lowercase hex, two digits each (digests, MACs, checkpoint bytes).
std::string hex_of(const unsigned char* bytes, std::size_t count);

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(const void* data, std::size_t bytes);
  // Hex digest of everything so far; the running digest can be continued afterwards.
  std::string hex() const;
  // The running digest's midstate (checkpoint.json): the eight chaining words, the bytes
  // hashed so far and the bytes of the unfinished block. restore() continues it exactly.
  struct Midstate {
    std::array<std::uint32_t, 8> h{};
    std::uint64_t length = 0;  // bytes hashed so far
    std::string pending;       // the last length % 64 bytes, not yet compressed
  };
  Midstate midstate() const;
  // Throws InputError if the midstate is inconsistent (pending length vs. length).
  void restore(const Midstate& m);

 private:
  struct Context;
  std::unique_ptr<Context> ctx_;
};

// The hex SHA-256 of a file's bytes; InputError "PATH: cannot read it".
std::string file_sha256(const std::filesystem::path& file);

}  // namespace kausal
