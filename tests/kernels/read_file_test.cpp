// xgpu::executable::read_file on what a path can name besides an executable:
// a folder, a FIFO with no writer, a character device, a /proc file, an
// empty file, a sparse file far larger than an executable may be. Each is
// refused at once with a message naming the path and what it is; nothing
// blocks (the test's ctest TIMEOUT fails it if anything does).
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "xgpu_executable.h"

namespace xe = xgpu::executable;

namespace {

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// A fresh folder under TMPDIR (or /tmp), removed with what it holds.
struct TempDir {
  std::string path;
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/xgpu-read-file-XXXXXX";
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path = pattern;
  }
  ~TempDir() { (void)!std::system(("rm -rf '" + path + "'").c_str()); }
};

std::string refused(const char* path) {
  std::vector<uint8_t> bytes = {1, 2, 3};
  const auto start = std::chrono::steady_clock::now();
  xe::Status status = xe::read_file(path, &bytes);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  CHECK(elapsed < std::chrono::seconds(2));
  CHECK(bytes.empty());
  REQUIRE_FALSE(status.ok());
  return status.message();
}

}  // namespace

TEST_CASE("read_file refuses what is not a regular executable-sized file, at once") {
  TempDir dir;
  CHECK(refused(dir.path.c_str()) == "'" + dir.path + "' is a folder, not a regular file");

  const std::string fifo = dir.path + "/fifo";
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(refused(fifo.c_str()) == "'" + fifo + "' is a FIFO, not a regular file");

  CHECK(refused("/dev/zero") == "'/dev/zero' is a character device, not a regular file");
  CHECK(contains(refused("/proc/self/mem"), "'/proc/self/mem' is empty (or reports no size, as /proc files do)"));

  const std::string empty = dir.path + "/empty.xgpux";
  int fd = open(empty.c_str(), O_CREAT | O_WRONLY, 0600);
  REQUIRE(fd >= 0);
  close(fd);
  CHECK(contains(refused(empty.c_str()), "is empty"));

  // 64 GiB, sparse: refused from its size, before any byte is read.
  const std::string sparse = dir.path + "/sparse.xgpux";
  fd = open(sparse.c_str(), O_CREAT | O_WRONLY, 0600);
  REQUIRE(fd >= 0);
  const bool made = ftruncate(fd, off_t{64} << 30) == 0;
  close(fd);
  if (made) {
    CHECK(refused(sparse.c_str()) == "'" + sparse + "' is 68719476736 bytes, more than the 1073741824 bytes an "
                                     "executable file may have (XGPU_EXECUTABLE_MAX_FILE_SIZE)");
  }

  CHECK(contains(refused((dir.path + "/missing.xgpux").c_str()), "cannot open '" + dir.path +
                                                                      "/missing.xgpux': No such file or directory"));
  CHECK(refused(nullptr) == "no path given (NULL)");
}

TEST_CASE("read_file reads a regular file whole") {
  TempDir dir;
  const std::string path = dir.path + "/bytes";
  std::vector<uint8_t> written(10000);
  for (size_t i = 0; i < written.size(); ++i) written[i] = static_cast<uint8_t>(i * 7);
  int fd = open(path.c_str(), O_CREAT | O_WRONLY, 0600);
  REQUIRE(fd >= 0);
  REQUIRE(write(fd, written.data(), written.size()) == static_cast<ssize_t>(written.size()));
  close(fd);
  std::vector<uint8_t> read;
  xe::Status status = xe::read_file(path.c_str(), &read);
  REQUIRE_MESSAGE(status.ok(), status.message());
  CHECK(read == written);
}
