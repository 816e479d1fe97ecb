#include "system/fmu/fmu_archive.hpp"

#include <sys/stat.h>
#include <zip.h>

#include <fstream>
#include <memory>
#include <string_view>
#include <vector>

#include "common/errors.hpp"

namespace kausal::fmu {

namespace {

using Archive = std::unique_ptr<zip_t, decltype(&zip_discard)>;
using EntryFile = std::unique_ptr<zip_file_t, decltype(&zip_fclose)>;

std::string zip_error_text(int code) {
  zip_error_t error;
  zip_error_init_with_code(&error, code);
  std::string text = zip_error_strerror(&error);
  zip_error_fini(&error);
  return text;
}

Archive open_archive(const std::filesystem::path& fmu) {
  std::error_code ec;
  if (!std::filesystem::exists(fmu, ec)) throw InputError(fmu.string() + ": no such file");
  int code = 0;
  zip_t* archive = zip_open(fmu.c_str(), ZIP_RDONLY, &code);
  if (!archive)
    throw InputError(fmu.string() + ": not a zip archive (" + zip_error_text(code) + ")");
  return Archive(archive, &zip_discard);
}

std::string mib(std::uint64_t bytes) {
  return std::to_string(bytes >> 20) + " MiB";
}

// Reads an entry in chunks, calling sink(data, n) for each; stops with InputError past `limit`
// bytes whatever the entry's header claims (a header can lie about the size).
template <typename Sink>
void read_entry(zip_t* archive, zip_uint64_t index, const std::string& fmu, const std::string& name,
                std::uint64_t limit, const std::string& limit_what, Sink sink) {
  EntryFile file(zip_fopen_index(archive, index, 0), &zip_fclose);
  if (!file) throw InputError(fmu + ": cannot read " + name + " (" + zip_strerror(archive) + ")");
  std::vector<char> chunk(64 * 1024);
  std::uint64_t total = 0;
  for (;;) {
    const zip_int64_t n = zip_fread(file.get(), chunk.data(), chunk.size());
    if (n < 0)
      throw InputError(fmu + ": cannot read " + name + " (" + zip_file_strerror(file.get()) + ")");
    if (n == 0) return;
    total += static_cast<std::uint64_t>(n);
    if (total > limit) throw InputError(fmu + ": " + limit_what);
    sink(chunk.data(), static_cast<std::size_t>(n));
  }
}

std::uint64_t declared_size(zip_t* archive, zip_uint64_t index) {
  zip_stat_t st;
  zip_stat_init(&st);
  if (zip_stat_index(archive, index, 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE)) return 0;
  return st.size;
}

// Where an entry would be written must stay inside the directory: no absolute path, no drive
// letter, no ".." component (with either separator, for archives made on Windows).
bool escapes(std::string_view name) {
  if (name.empty() || name[0] == '/' || name[0] == '\\') return true;
  if (name.size() >= 2 && name[1] == ':') return true;
  std::size_t begin = 0;
  while (begin <= name.size()) {
    std::size_t end = name.find_first_of("/\\", begin);
    if (end == std::string_view::npos) end = name.size();
    if (name.substr(begin, end - begin) == "..") return true;
    begin = end + 1;
  }
  return false;
}

bool is_symlink(zip_t* archive, zip_uint64_t index) {
  zip_uint8_t opsys = 0;
  zip_uint32_t attributes = 0;
  if (zip_file_get_external_attributes(archive, index, 0, &opsys, &attributes) != 0) return false;
  // Unix archivers keep st_mode in the high 16 bits.
  return opsys == ZIP_OPSYS_UNIX && ((attributes >> 16) & S_IFMT) == S_IFLNK;
}

struct Entry {
  zip_uint64_t index;
  std::string name;
  std::uint64_t size;
};

// Every entry checked before anything is written, so a refused archive leaves nothing behind.
std::vector<Entry> checked_entries(zip_t* archive, const std::string& fmu) {
  const zip_int64_t count = zip_get_num_entries(archive, 0);
  if (count < 0) throw InputError(fmu + ": cannot list the archive");
  if (static_cast<std::uint64_t>(count) > max_unpacked_entries)
    throw InputError(fmu + ": has " + std::to_string(count) + " entries, more than the limit of " +
                     std::to_string(max_unpacked_entries));
  std::vector<Entry> entries;
  std::uint64_t total = 0;
  for (zip_uint64_t i = 0; i < static_cast<zip_uint64_t>(count); ++i) {
    const char* name = zip_get_name(archive, i, 0);
    if (!name) throw InputError(fmu + ": entry " + std::to_string(i) + " has no name");
    if (escapes(name))
      throw InputError(fmu + ": entry '" + name +
                       "' would be written outside the directory (absolute path or '..')");
    if (is_symlink(archive, i))
      throw InputError(fmu + ": entry '" + name +
                       "' is a symlink (kausal unpacks plain files only)");
    entries.push_back({i, name, declared_size(archive, i)});
    total += entries.back().size;
    if (total > max_unpacked_bytes)
      throw InputError(fmu + ": unpacks to more than the limit of " + mib(max_unpacked_bytes));
  }
  return entries;
}

void write_entry(zip_t* archive, const Entry& e, const std::string& fmu,
                 const std::filesystem::path& target) {
  std::filesystem::create_directories(target.parent_path());
  // Overwrite a file, never write through a symlink someone left there.
  if (std::filesystem::is_symlink(std::filesystem::symlink_status(target)))
    std::filesystem::remove(target);
  std::ofstream out(target, std::ios::binary | std::ios::trunc);
  if (!out) throw InputError(fmu + ": cannot write " + target.string());
  // Each entry is held to its header's size, so the total stays within the checked sum.
  read_entry(
      archive, e.index, fmu, e.name, e.size,
      e.name + " holds more than its header's " + std::to_string(e.size) + " bytes",
      [&](const char* data, std::size_t n) { out.write(data, static_cast<std::streamsize>(n)); });
  if (!out.flush()) throw InputError(fmu + ": cannot write " + target.string());
}

}  // namespace

std::string read_fmu_entry(const std::filesystem::path& fmu, const std::string& entry) {
  const Archive archive = open_archive(fmu);
  const zip_int64_t index = zip_name_locate(archive.get(), entry.c_str(), 0);
  if (index < 0) throw InputError(fmu.string() + ": has no " + entry);
  const std::string too_big = entry + " is larger than the limit of " + mib(max_entry_bytes);
  const std::uint64_t size = declared_size(archive.get(), static_cast<zip_uint64_t>(index));
  if (size > max_entry_bytes) throw InputError(fmu.string() + ": " + too_big);
  std::string text;
  text.reserve(static_cast<std::size_t>(size));
  read_entry(archive.get(), static_cast<zip_uint64_t>(index), fmu.string(), entry, max_entry_bytes,
             too_big, [&](const char* data, std::size_t n) { text.append(data, n); });
  return text;
}

void unpack_fmu(const std::filesystem::path& fmu, const std::filesystem::path& dir) {
  const Archive archive = open_archive(fmu);
  const std::vector<Entry> entries = checked_entries(archive.get(), fmu.string());
  for (const Entry& e : entries) {
    const std::filesystem::path target = dir / e.name;
    try {
      std::filesystem::create_directories(dir);
      if (e.name.back() == '/')
        std::filesystem::create_directories(target);
      else
        write_entry(archive.get(), e, fmu.string(), target);
    } catch (const std::filesystem::filesystem_error& error) {
      throw InputError(fmu.string() + ": cannot unpack " + e.name + " into " + dir.string() + ": " +
                       error.code().message());
    }
  }
  std::error_code ignored;  // an archive without entries still gives the directory
  std::filesystem::create_directories(dir, ignored);
}

ModelDescription read_model_description(const std::filesystem::path& fmu) {
  return parse_model_description(read_fmu_entry(fmu, "modelDescription.xml"),
                                 fmu.string() + ": modelDescription.xml");
}

void write_zip(const std::filesystem::path& out,
               const std::vector<std::pair<std::string, std::string>>& texts,
               const std::vector<std::pair<std::string, std::filesystem::path>>& files) {
  const std::filesystem::path part = out.string() + ".part";
  const auto fail = [&](const std::string& why) {
    std::error_code ignored;
    std::filesystem::remove(part, ignored);
    throw InputError(out.string() + ": cannot write it (" + why + ")");
  };
  int code = 0;
  zip_t* archive = zip_open(part.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code);
  if (!archive) fail(zip_error_text(code));
  Archive owned(archive, &zip_discard);  // discarded unless closed below
  const auto add = [&](const std::string& name, zip_source_t* source) {
    if (!source) fail("adding " + name + ": " + zip_strerror(archive));
    if (zip_file_add(archive, name.c_str(), source, ZIP_FL_OVERWRITE | ZIP_FL_ENC_UTF_8) < 0) {
      zip_source_free(source);
      fail("adding " + name + ": " + zip_strerror(archive));
    }
  };
  // libzip reads the sources at zip_close: the texts stay alive until then.
  for (const auto& [name, text] : texts)
    add(name, zip_source_buffer(archive, text.data(), text.size(), 0));
  for (const auto& [name, file] : files) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec)) fail(file.string() + " is not a file");
    add(name, zip_source_file(archive, file.c_str(), 0, -1));  // -1: to its end
  }
  if (zip_close(archive) != 0) fail(zip_strerror(archive));
  owned.release();
  std::error_code ec;
  std::filesystem::rename(part, out, ec);
  if (ec) fail(ec.message());
}

}  // namespace kausal::fmu
