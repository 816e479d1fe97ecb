#include "monitor/record/checkpoint_key.hpp"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "common/errors.hpp"
#include "common/sha256.hpp"

namespace kausal {
namespace fs = std::filesystem;

namespace {

constexpr std::size_t kKeyBytes = 32;
using Key = std::array<unsigned char, kKeyBytes>;

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

[[noreturn]] void key_error(const fs::path& file, const std::string& what) {
  throw InputError(file.string() + ": " + what + " (the key that authenticates checkpoints; " +
                   "KAUSAL_CHECKPOINT_KEY names another file)");
}

// The key in `file`, or nothing if there is no such file.
std::optional<Key> read_key(const fs::path& file) {
  const Fd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT) return std::nullopt;
    key_error(file, std::string("cannot be read: ") + std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) key_error(file, "is not a file");
  if (st.st_uid != ::geteuid()) key_error(file, "belongs to another user");
  // Like ssh's keys: a secret others may read (or replace) vouches for nothing.
  if ((st.st_mode & 077) != 0)
    key_error(file, "may be read or changed by other users: chmod 600 it");
  std::array<char, 2 * kKeyBytes + 2> text{};
  const ssize_t n = ::read(fd.get(), text.data(), text.size());
  std::size_t size = n > 0 ? static_cast<std::size_t>(n) : 0;
  if (size > 0 && text[size - 1] == '\n') --size;
  Key key{};
  bool ok = size == 2 * kKeyBytes;
  for (std::size_t k = 0; ok && k < kKeyBytes; ++k) {
    const int hi = hex_digit(text[2 * k]), lo = hex_digit(text[2 * k + 1]);
    ok = hi >= 0 && lo >= 0;
    key[k] = static_cast<unsigned char>(16 * hi + lo);
  }
  if (!ok) key_error(file, "is not 64 lowercase hex digits");
  return key;
}

// A new random key in `file`, or the one another process put there first.
Key create_key(const fs::path& file) {
  std::error_code ec;
  if (file.has_parent_path() && !fs::exists(file.parent_path(), ec)) {
    fs::create_directories(file.parent_path(), ec);
    if (ec) key_error(file, "its folder cannot be created: " + ec.message());
    fs::permissions(file.parent_path(), fs::perms::owner_all, ec);
  }
  Key key{};
  if (RAND_bytes(key.data(), static_cast<int>(key.size())) != 1)
    key_error(file, "no random bytes for a new key (OpenSSL RAND_bytes)");
  const std::string text = hex_of(key.data(), key.size()) + "\n";
  const fs::path temp = file.string() + ".new." + std::to_string(::getpid());
  {
    const Fd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600));
    if (fd.get() < 0) key_error(file, std::string("cannot be created: ") + std::strerror(errno));
    if (::write(fd.get(), text.data(), text.size()) != static_cast<ssize_t>(text.size()) ||
        ::fsync(fd.get()) != 0) {
      ::unlink(temp.c_str());
      key_error(file, std::string("cannot be written: ") + std::strerror(errno));
    }
  }
  // link, not rename: a key another process created meanwhile stays, and both use it.
  const int linked = ::link(temp.c_str(), file.c_str());
  const int error = errno;
  ::unlink(temp.c_str());
  if (linked != 0 && error != EEXIST)
    key_error(file, std::string("cannot be created: ") + std::strerror(error));
  return *read_key(file);
}

std::string mac_of(const Key& key, std::string_view text) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> mac{};
  unsigned int size = 0;
  if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
            reinterpret_cast<const unsigned char*>(text.data()), text.size(), mac.data(), &size))
    throw InputError("checkpoint: HMAC-SHA256 failed (OpenSSL)");
  return hex_of(mac.data(), size);
}

}  // namespace

fs::path checkpoint_key_file() {
  if (const char* file = std::getenv("KAUSAL_CHECKPOINT_KEY"); file && *file) return file;
  if (const char* config = std::getenv("XDG_CONFIG_HOME"); config && *config)
    return fs::path(config) / "kausal" / "checkpoint.key";
  if (const char* home = std::getenv("HOME"); home && *home)
    return fs::path(home) / ".config" / "kausal" / "checkpoint.key";
  throw InputError(
      "checkpoint: no place for the key that authenticates checkpoints: set "
      "KAUSAL_CHECKPOINT_KEY (a file) or HOME");
}

std::string checkpoint_mac(std::string_view text) {
  const fs::path file = checkpoint_key_file();
  const std::optional<Key> key = read_key(file);
  return mac_of(key ? *key : create_key(file), text);
}

bool checkpoint_mac_matches(std::string_view text, std::string_view mac) {
  const fs::path file = checkpoint_key_file();
  const std::optional<Key> key = read_key(file);
  if (!key) key_error(file, "does not exist, so this checkpoint cannot be verified here");
  const std::string expected = mac_of(*key, text);
  return mac.size() == expected.size() &&
         CRYPTO_memcmp(mac.data(), expected.data(), expected.size()) == 0;
}

}  // namespace kausal
