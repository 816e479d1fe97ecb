#include "monitor/scenario/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "common/errors.hpp"

namespace kausal {
namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Closes the descriptor whatever happens.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0) close(fd_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

std::string read_input_file(const std::filesystem::path& file, const std::string& what) {
  const std::string name = file.string();
  // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it.
  const Descriptor fd(open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
  if (fd.get() < 0) throw InputError(name + ": cannot open " + what + ": " + std::strerror(errno));
  struct stat st {};
  if (fstat(fd.get(), &st) != 0)
    throw InputError(name + ": cannot read " + what + ": " + std::strerror(errno));
  const std::string too_large = name + ": " + what + " is larger than " +
                                std::to_string(kMaxInputFileBytes >> 20) +
                                " MiB (the limit of every file kausal reads)";
  if (!S_ISREG(st.st_mode))
    throw InputError(name + ": " + what + " must be a regular file (this is " +
                     kind_of(st.st_mode) + ")");
  if (static_cast<std::uintmax_t>(st.st_size) > kMaxInputFileBytes) throw InputError(too_large);
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t n = read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(name + ": cannot read " + what + ": " + std::strerror(errno));
    if (n == 0) return text;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > kMaxInputFileBytes) throw InputError(too_large);  // it grew meanwhile
  }
}

nlohmann::ordered_json read_input_json(const std::filesystem::path& file, const std::string& what) {
  return parse_input_json(read_input_file(file, what), file.string(), what);
}

nlohmann::ordered_json parse_input_json(const std::string& text, const std::string& name,
                                        const std::string& what) {
  using json = nlohmann::ordered_json;
  // The parser itself does not recurse; it reports the depth of every value it builds.
  const json::parser_callback_t bounded = [&](int depth, json::parse_event_t, json&) {
    if (depth > kMaxJsonDepth)
      throw InputError(name + ": " + what + " nests deeper than " + std::to_string(kMaxJsonDepth) +
                       " levels");
    return true;
  };
  try {
    return json::parse(text, bounded);
  } catch (const json::exception& e) {
    throw InputError(name + ": " + what + " is not valid JSON: " + e.what());
  }
}

}  // namespace kausal
