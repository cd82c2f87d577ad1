// Helpers for the loader tests: a private temporary folder per test, scoped
// environment variables, manifest writers, stderr capture, and handles on the
// test drivers and layers (test_driver.h, test_layer.h).
//
// Thread-compatible: doctest runs the cases of one executable one at a time;
// ctest runs executables in parallel, so nothing here shares files.
#ifndef XGPU_TESTS_LOADER_LOADER_TEST_UTIL_H_
#define XGPU_TESTS_LOADER_LOADER_TEST_UTIL_H_

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "test_driver.h"
#include "test_layer.h"
#include "xgpu/xgpu.h"

// Function pointers print as addresses in failed checks.
template <>
struct doctest::StringMaker<PFN_xgpuVoidFunction> {
  static String convert(PFN_xgpuVoidFunction f) {
    char text[32];
    std::snprintf(text, sizeof(text), "%p", reinterpret_cast<void*>(f));
    return text;
  }
};

namespace loader_test {

namespace fs = std::filesystem;

// A folder removed with everything in it at the end of the scope.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/xgpu-loader-test-XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data())) std::abort();
    path_ = buf.data();
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  // A sub-folder, created with its parents.
  std::string Dir(const std::string& rel) const {
    std::string p = path_ + "/" + rel;
    fs::create_directories(p);
    return p;
  }

 private:
  std::string path_;
};

// Sets (or unsets, with std::nullopt) environment variables and restores the
// previous values at the end of the scope.
class ScopedEnv {
 public:
  ScopedEnv() = default;
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ~ScopedEnv() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) {
      if (it->second) {
        setenv(it->first.c_str(), it->second->c_str(), 1);
      } else {
        unsetenv(it->first.c_str());
      }
    }
  }
  void Set(const std::string& name, const std::optional<std::string>& value) {
    const char* old = std::getenv(name.c_str());
    saved_.push_back({name, old ? std::optional<std::string>(old) : std::nullopt});
    if (value) {
      setenv(name.c_str(), value->c_str(), 1);
    } else {
      unsetenv(name.c_str());
    }
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

inline void WriteFile(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

inline std::string DriverManifest(const std::string& library, const std::string& api_version = "1.0.0") {
  return "{\"file_format_version\": \"1.0.0\", \"ICD\": {\"library_path\": \"" + library +
         "\", \"api_version\": \"" + api_version + "\"}}";
}

// A layer manifest; extra is spliced into the "layer" object (",\"k\": v").
inline std::string LayerManifest(const std::string& name, const std::string& library, const std::string& extra = "",
                                 const std::string& description = "test layer") {
  return "{\"file_format_version\": \"1.0.0\", \"layer\": {\"name\": \"" + name +
         "\", \"type\": \"GLOBAL\", \"library_path\": \"" + library +
         "\", \"api_version\": \"1.0.0\", \"implementation_version\": \"3\", \"description\": \"" + description +
         "\"" + extra + "}}";
}

// Everything written to fd 2 while it lives.
class StderrCapture {
 public:
  StderrCapture() {
    std::fflush(stderr);
    char name[] = "/tmp/xgpu-loader-stderr-XXXXXX";
    fd_ = mkstemp(name);
    unlink(name);
    saved_ = dup(2);
    dup2(fd_, 2);
  }
  ~StderrCapture() { Stop(); }
  StderrCapture(const StderrCapture&) = delete;
  StderrCapture& operator=(const StderrCapture&) = delete;
  // Restores stderr and returns what was written.
  std::string Stop() {
    if (saved_ >= 0) {
      std::fflush(stderr);
      dup2(saved_, 2);
      close(saved_);
      saved_ = -1;
      lseek(fd_, 0, SEEK_SET);
      char buf[4096];
      ssize_t n;
      while ((n = read(fd_, buf, sizeof(buf))) > 0) text_.append(buf, static_cast<size_t>(n));
      close(fd_);
      // Echo so a failing test still shows the loader's output.
      std::fputs(text_.c_str(), stderr);
    }
    return text_;
  }

 private:
  int fd_ = -1;
  int saved_ = -1;
  std::string text_;
};

// Every variable the loader reads, pointed at an empty private tree: no
// manifest outside the test's folders is found (except the folder next to
// libxgpu and /etc/xgpu, which tests that care replace with XGPU_DRIVER_FILES /
// XGPU_LAYER_PATH or a private copy of libxgpu).
class LoaderEnv {
 public:
  LoaderEnv() {
    env.Set("HOME", dir.Dir("home"));
    env.Set("XDG_CONFIG_HOME", dir.Dir("xdg/config_home"));
    env.Set("XDG_CONFIG_DIRS", dir.Dir("xdg/config_dir"));
    env.Set("XDG_DATA_HOME", dir.Dir("xdg/data_home"));
    env.Set("XDG_DATA_DIRS", dir.Dir("xdg/data_dir"));
    for (const char* var : {"XGPU_DRIVER_FILES", "XGPU_ADD_DRIVER_FILES", "XGPU_LAYER_PATH", "XGPU_INSTANCE_LAYERS",
                            "XGPU_LOADER_LAYERS_DISABLE", "XGPU_LOADER_DEBUG"}) {
      env.Set(var, std::nullopt);
    }
    // Only the test's drivers and layers by default.
    env.Set("XGPU_DRIVER_FILES", dir.Dir("drivers"));
    env.Set("XGPU_LAYER_PATH", dir.Dir("layers"));
  }
  TempDir dir;
  ScopedEnv env;
};

// A test library the test keeps open, so the loader's dlopen returns the same
// instance and the test reads the same globals.
class TestLibrary {
 public:
  explicit TestLibrary(const std::string& path) : path_(path) {
    handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) {
      std::fprintf(stderr, "cannot open %s: %s\n", path.c_str(), dlerror());
      std::abort();
    }
  }
  ~TestLibrary() { dlclose(handle_); }
  TestLibrary(const TestLibrary&) = delete;
  TestLibrary& operator=(const TestLibrary&) = delete;
  template <typename T>
  T Symbol(const char* name) const {
    return reinterpret_cast<T>(dlsym(handle_, name));
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  void* handle_;
};

class TestDriver : public TestLibrary {
 public:
  explicit TestDriver(const std::string& path) : TestLibrary(path) {
    Symbol<PFN_xgpu_test_driver_reset>("xgpu_test_driver_reset")();
  }
  XgpuTestDriverControl* operator->() const {
    return Symbol<PFN_xgpu_test_driver_control>("xgpu_test_driver_control")();
  }
  PFN_xgpuVoidFunction Function(const char* name) const {
    return Symbol<PFN_xgpu_test_driver_function>("xgpu_test_driver_function")(name);
  }
};

class TestLayer : public TestLibrary {
 public:
  explicit TestLayer(const std::string& path) : TestLibrary(path) {
    Symbol<PFN_xgpu_test_layer_reset>("xgpu_test_layer_reset")();
  }
  XgpuTestLayerControl* operator->() const {
    return Symbol<PFN_xgpu_test_layer_control>("xgpu_test_layer_control")();
  }
  PFN_xgpuVoidFunction Function(const char* name) const {
    return Symbol<PFN_xgpu_test_layer_function>("xgpu_test_layer_function")(name);
  }
};

// What a child process printed and how it ended.
struct ProcessResult {
  int exit_code = -1;  // the exit status, or -1 when it did not exit normally
  std::string out;     // its stdout
  std::string err;     // its stderr
};

// Runs program with args in a child process that inherits the environment
// (so ScopedEnv settings apply, LD_LIBRARY_PATH included: the child's dynamic
// linker reads it at start-up) and waits for it.
inline ProcessResult RunProcess(const std::string& program, const std::vector<std::string>& args = {}) {
  auto temp_file = [] {
    char name[] = "/tmp/xgpu-loader-child-XXXXXX";
    int fd = mkstemp(name);
    unlink(name);
    return fd;
  };
  auto read_all = [](int fd) {
    std::string text;
    lseek(fd, 0, SEEK_SET);
    char buf[4096];
    ssize_t n;
    while ((n = read(fd, buf, sizeof(buf))) > 0) text.append(buf, static_cast<size_t>(n));
    close(fd);
    return text;
  };
  int out_fd = temp_file();
  int err_fd = temp_file();
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(program.c_str()));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::fflush(nullptr);
  ProcessResult result;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    execv(program.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  result.out = read_all(out_fd);
  result.err = read_all(err_fd);
  return result;
}

inline XgpuInstanceCreateInfo InstanceInfo(const std::vector<const char*>* layers = nullptr,
                                           const void* next = nullptr) {
  XgpuInstanceCreateInfo info = {};
  info.sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  info.pNext = next;
  if (layers) {
    info.enabledLayerCount = static_cast<uint32_t>(layers->size());
    info.ppEnabledLayerNames = layers->data();
  }
  return info;
}

// messageIdNumber of a message ID (spec/api.md 1.5): 32-bit FNV-1a of its
// bytes as int32_t, written out here independently of the loader's.
inline int32_t Fnv1a(const std::string& name) {
  uint32_t hash = 0x811C9DC5u;
  for (unsigned char c : name) hash = (hash ^ c) * 0x01000193u;
  return static_cast<int32_t>(hash);
}

// A debug messenger callback that records what it receives.
struct MessageLog {
  struct Entry {
    XgpuDebugMessageSeverityFlagBits severity;  // severity delivered
    XgpuDebugMessageTypeFlags types;            // message types delivered
    std::string id;                             // pMessageIdName
    int32_t number;                             // messageIdNumber
    std::string text;                           // pMessage
  };
  std::vector<Entry> entries;  // in delivery order

  static XgpuBool32 XGPU_API_CALL Callback(XgpuDebugMessageSeverityFlagBits severity, XgpuDebugMessageTypeFlags types,
                                           const XgpuDebugMessageData* data, void* user) {
    static_cast<MessageLog*>(user)->entries.push_back({severity, types,
                                                       data->pMessageIdName ? data->pMessageIdName : "",
                                                       data->messageIdNumber, data->pMessage ? data->pMessage : ""});
    return XGPU_FALSE;
  }
  // The first entry with this ID, or nullptr.
  const Entry* Find(const std::string& id) const {
    for (const Entry& e : entries)
      if (e.id == id) return &e;
    return nullptr;
  }
  XgpuDebugMessengerCreateInfo Info(XgpuDebugMessageSeverityFlags severities = 0x1111) {
    XgpuDebugMessengerCreateInfo info = {};
    info.sType = XGPU_STRUCTURE_TYPE_DEBUG_MESSENGER_CREATE_INFO;
    info.messageSeverity = severities;
    info.messageType = XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT | XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT |
                       XGPU_DEBUG_MESSAGE_TYPE_PERFORMANCE_BIT;
    info.pfnUserCallback = Callback;
    info.pUserData = this;
    return info;
  }
  size_t Count(const std::string& id) const {
    size_t n = 0;
    for (const Entry& e : entries) n += e.id == id;
    return n;
  }
};

}  // namespace loader_test

#endif  // XGPU_TESTS_LOADER_LOADER_TEST_UTIL_H_
