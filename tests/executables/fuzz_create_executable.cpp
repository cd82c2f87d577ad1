// End-to-end fuzzing of xgpuCreateExecutable on hsa-cpu: corrupted copies of
// the project's own executables (bit flips, byte runs, truncations, the
// header and entry table), each loaded through the loader and the driver,
// alternately by pCode and by pFilePath. Every input must be rejected with a
// clear message or load (and unload) without harm; what loads must pass
// `xgpu-kernels check` (xgpu::executable::check) as well.
//
//   xgpu_executable_fuzz run --seeds A.xgpux,B.xgpux --count N [--seed S] --out DIR
//                            [--timeout-ms T] [--forged]
//   xgpu_executable_fuzz replay --out DIR FILE_OR_FOLDER...
//
// The inputs run in a child process that loads one after the other; the
// parent hands each over, and when the child dies (a crash) or does not
// answer within the timeout (a hang) the parent saves the input under DIR
// (crash-<n>.xgpux / hang-<n>.xgpux, with the child's stderr beside it),
// counts a failure and starts a new child for the rest. A wrong answer (an
// unexpected result code, no message, a message that does not name
// xgpuCreateExecutable) is saved as wrong-<n>.xgpux. The run ends with one
// line "N passed, N failed" and exits 1 on any failure.
//
// --forged restamps each corrupted code object's SHA-256 before loading,
// which no corruption does: it reaches the runtime's loader with corrupt
// code objects, to find inputs for the corpus (tests/executables/corpus),
// where they are kept as they would arrive, with their stale hashes.
//
// Inputs are a function of (--seed, index): a run is reproducible.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "xgpu/xgpu.h"
#include "xgpu_executable.h"

namespace xe = xgpu::executable;
namespace fs = std::filesystem;

namespace {

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "xgpu_executable_fuzz: %s\n", message.c_str());
  std::exit(2);
}

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::vector<uint8_t> bytes;
  xe::Status status = xe::read_file(path.c_str(), &bytes);
  if (!status.ok()) die(status.message());
  return bytes;
}

void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  FILE* file = std::fopen(path.c_str(), "wb");
  if (!file || std::fwrite(bytes.data(), 1, bytes.size(), file) != bytes.size()) die("cannot write " + path);
  std::fclose(file);
}

// ---------------------------------------------------------------------------
// The child: one instance and device, then one input per request line
// ("path FILE" or "code FILE") answered by one line ("ok ..." or "bad ...").

struct Messages {
  std::string last;  // the last message the driver sent
  int count = 0;     // messages since the last request
};

XgpuBool32 XGPU_API_PTR on_message(XgpuDebugMessageSeverityFlagBits, XgpuDebugMessageTypeFlags,
                                   const XgpuDebugMessageData* data, void* user) {
  auto* messages = static_cast<Messages*>(user);
  messages->last = data && data->pMessage ? data->pMessage : "";
  ++messages->count;
  return XGPU_FALSE;
}

bool printable_line(const std::string& text) {
  for (char c : text)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) > 0x7e) return false;
  return !text.empty();
}

int child_main() {
  Messages messages;
  XgpuInstanceCreateInfo instance_info{};
  instance_info.sType = XGPU_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  XgpuInstance instance = nullptr;
  if (xgpuCreateInstance(&instance_info, nullptr, &instance) != XGPU_SUCCESS) die("xgpuCreateInstance failed");
  XgpuDebugMessengerCreateInfo messenger_info{};
  messenger_info.sType = XGPU_STRUCTURE_TYPE_DEBUG_MESSENGER_CREATE_INFO;
  messenger_info.messageSeverity = XGPU_DEBUG_MESSAGE_SEVERITY_WARNING_BIT | XGPU_DEBUG_MESSAGE_SEVERITY_ERROR_BIT;
  messenger_info.messageType = XGPU_DEBUG_MESSAGE_TYPE_GENERAL_BIT | XGPU_DEBUG_MESSAGE_TYPE_VALIDATION_BIT;
  messenger_info.pfnUserCallback = on_message;
  messenger_info.pUserData = &messages;
  XgpuDebugMessenger messenger = nullptr;
  if (xgpuCreateDebugMessenger(instance, &messenger_info, nullptr, &messenger) != XGPU_SUCCESS)
    die("xgpuCreateDebugMessenger failed");
  uint32_t count = 1;
  XgpuPhysicalDevice physical = nullptr;
  const XgpuResult enumerated = xgpuEnumeratePhysicalDevices(instance, &count, &physical);
  if ((enumerated != XGPU_SUCCESS && enumerated != XGPU_INCOMPLETE) || count == 0) die("no physical device");
  XgpuDeviceQueueCreateInfo queue_info{};
  queue_info.sType = XGPU_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue_info.queueCount = 1;
  XgpuDeviceCreateInfo device_info{};
  device_info.sType = XGPU_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  XgpuDevice device = nullptr;
  if (xgpuCreateDevice(physical, &device_info, nullptr, &device) != XGPU_SUCCESS) die("xgpuCreateDevice failed");
  std::printf("ready\n");
  std::fflush(stdout);

  char line[4096];
  while (std::fgets(line, sizeof(line), stdin)) {
    std::string request(line);
    while (!request.empty() && (request.back() == '\n' || request.back() == '\r')) request.pop_back();
    const bool by_path = request.starts_with("path ");
    if (!by_path && !request.starts_with("code ")) die("bad request '" + request + "'");
    const std::string file = request.substr(5);
    std::vector<uint8_t> bytes;
    if (!by_path) bytes = read_bytes(file);
    XgpuExecutableCreateInfo info{};
    info.sType = XGPU_STRUCTURE_TYPE_EXECUTABLE_CREATE_INFO;
    if (by_path) {
      info.pFilePath = file.c_str();
    } else {
      info.pCode = bytes.data();
      info.codeSize = bytes.size();
    }
    messages = {};
    XgpuExecutable executable = nullptr;
    const XgpuResult result = xgpuCreateExecutable(device, &info, nullptr, &executable);
    std::string answer;
    if (result == XGPU_SUCCESS) {
      // The driver loads nothing that `xgpu-kernels check` rejects.
      if (by_path) bytes = read_bytes(file);
      xe::Executable parsed;
      xe::Status checked = xe::Executable::parse(bytes, &parsed);
      if (checked.ok()) checked = xe::check(parsed);
      if (!executable) answer = "bad XGPU_SUCCESS with a null executable";
      else if (!checked.ok()) answer = "bad loaded what xgpu-kernels check rejects: " + checked.message();
      else answer = "ok loaded";
      xgpuDestroyExecutable(device, executable, nullptr);
    } else if (executable) {
      answer = "bad result " + std::to_string(result) + " with an executable written";
    } else if (result != XGPU_ERROR_INVALID_EXECUTABLE && result != XGPU_ERROR_INCOMPATIBLE_EXECUTABLE) {
      answer = "bad unexpected result " + std::to_string(result) + ": " + messages.last;
    } else if (messages.count == 0) {
      answer = "bad result " + std::to_string(result) + " with no message";
    } else if (!printable_line(messages.last) || messages.last.find("xgpuCreateExecutable") == std::string::npos) {
      answer = "bad message does not name xgpuCreateExecutable or is not one printable line: " + messages.last;
    } else {
      answer = "ok rejected " + std::to_string(result) + ": " + messages.last;
    }
    for (char& c : answer)
      if (c == '\n') c = ' ';
    std::printf("%s\n", answer.c_str());
    std::fflush(stdout);
  }
  xgpuDestroyDevice(device, nullptr);
  xgpuDestroyDebugMessenger(instance, messenger, nullptr);
  xgpuDestroyInstance(instance, nullptr);
  return 0;
}

// ---------------------------------------------------------------------------
// The parent.

struct Child {
  pid_t pid = -1;
  int to_child = -1;    // its stdin
  int from_child = -1;  // its stdout
  std::string pending;  // bytes read past the last line
};

std::string self_path() {
  std::error_code error;
  fs::path path = fs::read_symlink("/proc/self/exe", error);
  if (error) die("cannot read /proc/self/exe");
  return path;
}

// Reads one line from the child within `timeout_ms`; false on EOF or timeout
// (*out_timed_out says which).
bool read_line(Child& child, int timeout_ms, std::string* out_line, bool* out_timed_out) {
  *out_timed_out = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    const size_t newline = child.pending.find('\n');
    if (newline != std::string::npos) {
      *out_line = child.pending.substr(0, newline);
      child.pending.erase(0, newline + 1);
      return true;
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      *out_timed_out = true;
      return false;
    }
    pollfd fd{child.from_child, POLLIN, 0};
    const int ready = poll(&fd, 1, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) continue;
    char buffer[4096];
    const ssize_t n = read(child.from_child, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    child.pending.append(buffer, static_cast<size_t>(n));
  }
}

// Ends the child; returns how it ended ("exit N", "signal N (NAME)").
std::string stop_child(Child& child, bool kill_it) {
  if (child.pid < 0) return "";
  if (kill_it) kill(child.pid, SIGKILL);
  close(child.to_child);
  close(child.from_child);
  int status = 0;
  waitpid(child.pid, &status, 0);
  child = Child{};
  if (WIFSIGNALED(status))
    return "signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  return "exit " + std::to_string(WEXITSTATUS(status));
}

Child start_child(const std::string& stderr_path, int timeout_ms) {
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) die("pipe failed");
  const std::string self = self_path();
  const pid_t pid = fork();
  if (pid < 0) die("fork failed");
  if (pid == 0) {
    dup2(in[0], STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    const int err = open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (err >= 0) dup2(err, STDERR_FILENO);
    execl(self.c_str(), self.c_str(), "child", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  Child child;
  child.pid = pid;
  child.to_child = in[1];
  child.from_child = out[0];
  std::string line;
  bool timed_out = false;
  // Instance and device creation take far less than this.
  if (!read_line(child, std::max(timeout_ms, 30000), &line, &timed_out) || line != "ready") {
    const std::string how = stop_child(child, true);
    die("the child did not start (" + how + "); its stderr is in " + stderr_path);
  }
  return child;
}

// One corrupted copy of `seed`, a function of `rng` only.
struct Mutation {
  std::vector<uint8_t> bytes;  // the input
  std::string what;            // what was done, for the report
};

Mutation mutate(const std::vector<uint8_t>& seed, std::mt19937_64& rng) {
  Mutation m{seed, ""};
  std::vector<uint8_t>& b = m.bytes;
  xe::Executable parsed;
  const bool structured = xe::Executable::parse(seed, &parsed).ok();
  auto pick = [&](uint64_t n) { return n ? rng() % n : 0; };
  switch (rng() % 6) {
    case 0: {  // a few bit flips anywhere
      const int flips = 1 + static_cast<int>(pick(8));
      for (int i = 0; i < flips; ++i) b[pick(b.size())] ^= static_cast<uint8_t>(1u << pick(8));
      m.what = std::to_string(flips) + " bit flip(s) anywhere";
      break;
    }
    case 1: {  // bit flips inside one code object (its ELF headers mostly)
      if (!structured) return mutate(seed, rng);
      const xe::Entry& e = parsed.entries()[pick(parsed.entries().size())];
      const int flips = 1 + static_cast<int>(pick(4));
      const uint64_t span = rng() % 2 ? std::min<uint64_t>(e.code_object.size(), 512) : e.code_object.size();
      for (int i = 0; i < flips; ++i) b[e.offset + pick(span)] ^= static_cast<uint8_t>(1u << pick(8));
      m.what = std::to_string(flips) + " bit flip(s) in " + std::string(e.isa_name);
      break;
    }
    case 2: {  // the header and entry table
      const uint64_t table_end = std::min<uint64_t>(b.size(), 64 + 128 * (structured ? parsed.entries().size() : 4));
      const int changes = 1 + static_cast<int>(pick(4));
      for (int i = 0; i < changes; ++i) b[pick(table_end)] = static_cast<uint8_t>(rng());
      m.what = std::to_string(changes) + " random byte(s) in the header and entry table";
      break;
    }
    case 3: {  // a run of random bytes
      const uint64_t at = pick(b.size());
      const uint64_t length = 1 + pick(std::min<uint64_t>(64, b.size() - at));
      for (uint64_t i = 0; i < length; ++i) b[at + i] = static_cast<uint8_t>(rng());
      m.what = std::to_string(length) + " random bytes at " + std::to_string(at);
      break;
    }
    case 4: {  // truncation
      const uint64_t length = pick(b.size());
      b.resize(length);
      m.what = "truncated to " + std::to_string(length) + " bytes";
      break;
    }
    default: {  // truncation with the header's file_size made to agree
      const uint64_t length = 64 + pick(b.size() - 64);
      b.resize(length);
      if (b.size() >= 40) std::memcpy(b.data() + 32, &length, sizeof(length));
      m.what = "truncated to " + std::to_string(length) + " bytes, file_size patched";
      break;
    }
  }
  if (b.empty()) b.push_back(0);  // codeSize 0 is an argument error, not a file
  return m;
}

struct Options {
  std::vector<std::string> seeds;  // executables to corrupt
  uint64_t count = 100;            // inputs
  uint64_t seed = 1;               // random seed
  std::string out;                 // where failures (and the work files) go
  int timeout_ms = 10000;          // per input
  bool forged = false;             // restamp hashes (see the top)
  std::vector<std::string> replay; // replay: files or folders
};

int parent_main(const std::string& mode, const Options& options) {
  if (options.out.empty()) die("--out DIR is required");
  fs::create_directories(options.out);
  const std::string work = options.out + "/input.xgpux";
  const std::string child_stderr = options.out + "/child-stderr.txt";
  std::vector<std::vector<uint8_t>> seeds;
  for (const std::string& path : options.seeds) seeds.push_back(read_bytes(path));

  // The inputs: generated (run) or listed (replay).
  std::vector<std::string> replay_files;
  if (mode == "replay") {
    for (const std::string& item : options.replay) {
      if (fs::is_directory(item)) {
        for (const auto& entry : fs::directory_iterator(item))
          if (entry.path().extension() == ".xgpux") replay_files.push_back(entry.path());
      } else {
        replay_files.push_back(item);
      }
    }
    std::sort(replay_files.begin(), replay_files.end());
    if (replay_files.empty()) die("replay: no .xgpux files given");
  } else if (seeds.empty()) {
    die("--seeds is required");
  }
  // Replay loads each file both ways.
  const uint64_t total = mode == "replay" ? 2 * replay_files.size() : options.count;

  uint64_t passed = 0, failed = 0, loaded = 0;
  std::mt19937_64 rng(options.seed);
  Child child = start_child(child_stderr, options.timeout_ms);
  const auto started = std::chrono::steady_clock::now();
  for (uint64_t n = 0; n < total; ++n) {
    Mutation input;
    std::string name;
    if (mode == "replay") {
      name = replay_files[n / 2];
      input.bytes = read_bytes(name);
      input.what = "replay of " + name;
    } else {
      const size_t which = static_cast<size_t>(rng() % seeds.size());
      input = mutate(seeds[which], rng);
      if (options.forged) (void)xe::rehash(input.bytes);
      name = options.seeds[which];
      input.what += " of " + fs::path(name).filename().string();
    }
    const bool by_path = n % 2 == 1;
    write_bytes(work, input.bytes);
    const std::string request = std::string(by_path ? "path " : "code ") + work + "\n";
    if (write(child.to_child, request.data(), request.size()) != static_cast<ssize_t>(request.size())) {
      // The child is gone already: counted below when its answer is missing.
    }
    std::string answer;
    bool timed_out = false;
    const bool answered = read_line(child, options.timeout_ms, &answer, &timed_out);
    std::string failure_kind;
    if (!answered) {
      failure_kind = timed_out ? "hang" : "crash";
      const std::string how = stop_child(child, true);
      answer = timed_out ? "no answer within " + std::to_string(options.timeout_ms) + " ms" : "the child died: " + how;
    } else if (answer.starts_with("bad ")) {
      failure_kind = "wrong";
    }
    if (failure_kind.empty()) {
      ++passed;
      if (answer.starts_with("ok loaded")) ++loaded;
      continue;
    }
    ++failed;
    const std::string saved = options.out + "/" + failure_kind + "-" + std::to_string(n) + ".xgpux";
    write_bytes(saved, input.bytes);
    std::error_code ignored;
    if (child.pid < 0) fs::copy_file(child_stderr, saved + ".stderr.txt", fs::copy_options::overwrite_existing, ignored);
    FILE* note = std::fopen((saved + ".txt").c_str(), "w");
    if (note) {
      std::fprintf(note, "input %llu (%s, by %s): %s\n", static_cast<unsigned long long>(n), input.what.c_str(),
                   by_path ? "pFilePath" : "pCode", answer.c_str());
      std::fclose(note);
    }
    std::printf("FAILED %s: input %llu (%s, by %s): %s; saved as %s\n", failure_kind.c_str(),
                static_cast<unsigned long long>(n), input.what.c_str(), by_path ? "pFilePath" : "pCode",
                answer.c_str(), saved.c_str());
    std::fflush(stdout);
    if (child.pid < 0) child = start_child(child_stderr, options.timeout_ms);
  }
  stop_child(child, false);
  std::error_code ignored;
  fs::remove(work, ignored);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf("%s: %llu inputs in %.1f s (%llu loaded, the rest rejected)\n", mode.c_str(),
              static_cast<unsigned long long>(total), seconds, static_cast<unsigned long long>(loaded));
  std::printf("%llu passed, %llu failed\n", static_cast<unsigned long long>(passed),
              static_cast<unsigned long long>(failed));
  return failed == 0 ? 0 : 1;
}

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= list.size()) {
    size_t comma = list.find(',', at);
    if (comma == std::string::npos) comma = list.size();
    if (comma > at) out.push_back(list.substr(at, comma - at));
    at = comma + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "child") == 0) return child_main();
  if (argc < 2) die("usage: run --seeds A,B --count N [--seed S] --out DIR [--timeout-ms T] [--forged] | "
                    "replay --out DIR FILE_OR_FOLDER...");
  const std::string mode = argv[1];
  if (mode != "run" && mode != "replay") die("unknown mode '" + mode + "'");
  Options options;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) die(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--seeds") options.seeds = split(value());
    else if (arg == "--count") options.count = std::strtoull(value().c_str(), nullptr, 10);
    else if (arg == "--seed") options.seed = std::strtoull(value().c_str(), nullptr, 10);
    else if (arg == "--out") options.out = value();
    else if (arg == "--timeout-ms") options.timeout_ms = std::atoi(value().c_str());
    else if (arg == "--forged") options.forged = true;
    else if (mode == "replay" && !arg.starts_with("-")) options.replay.push_back(arg);
    else die("unknown argument '" + arg + "'");
  }
  signal(SIGPIPE, SIG_IGN);
  return parent_main(mode, options);
}
