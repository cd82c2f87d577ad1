// Reading an executable file from a path, and the code objects' SHA-256.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nettle/sha2.h>

#include <cerrno>
#include <cstring>
#include <new>
#include <string>

#include "xgpu_executable.h"

namespace xgpu::executable {
namespace {

// What a file that is not regular is, for the message.
const char* file_type_name(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Closes the descriptor when the read returns.
struct FileDescriptor {
  int fd = -1;
  ~FileDescriptor() {
    if (fd >= 0) close(fd);
  }
};

}  // namespace

Sha256 sha256(std::span<const uint8_t> bytes) {
  sha256_ctx context;
  sha256_init(&context);
  // nettle takes a size_t length; feed large inputs in pieces all the same.
  constexpr size_t kPiece = size_t{1} << 30;
  for (size_t at = 0; at < bytes.size(); at += kPiece) {
    const size_t length = bytes.size() - at < kPiece ? bytes.size() - at : kPiece;
    sha256_update(&context, length, bytes.data() + at);
  }
  Sha256 digest;
  sha256_digest(&context, digest.size(), digest.data());
  return digest;
}

std::string hex_bytes(std::span<const uint8_t> digest) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(digest.size() * 2);
  for (uint8_t byte : digest) out += {kDigits[byte >> 4], kDigits[byte & 0xf]};
  return out;
}

Status read_file(const char* path, std::vector<uint8_t>* out_bytes) {
  out_bytes->clear();
  if (path == nullptr) return Status::error("no path given (NULL)");
  const std::string quoted = "'" + std::string(path) + "'";
  // O_NONBLOCK: opening a FIFO with no writer must not wait for one.
  FileDescriptor file{open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
  if (file.fd < 0) return Status::error("cannot open " + quoted + ": " + std::strerror(errno));
  struct stat info;
  if (fstat(file.fd, &info) != 0) return Status::error("cannot stat " + quoted + ": " + std::strerror(errno));
  if (!S_ISREG(info.st_mode)) {
    return Status::error(quoted + " is " + file_type_name(info.st_mode) + ", not a regular file");
  }
  if (info.st_size <= 0) {
    return Status::error(quoted + " is empty (or reports no size, as /proc files do): not an executable file");
  }
  const uint64_t size = static_cast<uint64_t>(info.st_size);
  if (size > XGPU_EXECUTABLE_MAX_FILE_SIZE) {
    return Status::error(quoted + " is " + std::to_string(size) + " bytes, more than the " +
                         std::to_string(XGPU_EXECUTABLE_MAX_FILE_SIZE) +
                         " bytes an executable file may have (XGPU_EXECUTABLE_MAX_FILE_SIZE)");
  }
  // The file is regular now: reads no longer need O_NONBLOCK, and a regular
  // file ignores it anyway.
  std::vector<uint8_t> bytes;
  try {
    bytes.resize(size);
  } catch (const std::bad_alloc&) {
    return Status::error("cannot allocate " + std::to_string(size) + " bytes to read " + quoted);
  }
  uint64_t done = 0;
  while (done < size) {
    const ssize_t n = pread(file.fd, bytes.data() + done, size - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::error("cannot read " + quoted + ": " + std::strerror(errno));
    if (n == 0) {
      return Status::error(quoted + " ended after " + std::to_string(done) + " of its " + std::to_string(size) +
                           " bytes (it changed while being read)");
    }
    done += static_cast<uint64_t>(n);
  }
  *out_bytes = std::move(bytes);
  return {};
}

}  // namespace xgpu::executable
