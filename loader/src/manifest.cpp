// Manifest discovery (search folders, environment overrides) and validation
// (spec/loader.md, "Manifests" and "Search order").
#include <dirent.h>
#include <dlfcn.h>
#include <fnmatch.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "loader.h"

namespace xgpu_loader {
namespace {

// A manifest's JSON, read with nlohmann::json's SAX parser into this small
// tree rather than into nlohmann::json's own: that one's destructor
// allocates (it flattens nested values onto a heap stack) and is noexcept,
// so host memory running out while a manifest is read - or while a
// half-built document unwinds - would end the process. Here a failed
// allocation is a std::bad_alloc like any other, which the instance's
// creation answers with XGPU_ERROR_OUT_OF_HOST_MEMORY. Nesting is limited
// (kMaxDepth), so the recursive destructor stays shallow.
struct Member;
struct Value {
  enum class Kind : uint8_t { kNull, kBoolean, kNumber, kString, kArray, kObject } kind = Kind::kNull;
  std::string text;             // a string's value
  std::vector<Member> members;  // an object's, in order
  std::vector<Value> items;     // an array's

  bool is_string() const { return kind == Kind::kString; }
  bool is_object() const { return kind == Kind::kObject; }
  // The member named `key` (the last one, as JSON parsers keep), or nullptr.
  const Value* find(const std::string& key) const;
  const char* type_name() const {
    switch (kind) {
      case Kind::kNull: return "null";
      case Kind::kBoolean: return "boolean";
      case Kind::kNumber: return "number";
      case Kind::kString: return "string";
      case Kind::kArray: return "array";
      case Kind::kObject: return "object";
    }
    return "value";
  }
};

struct Member {
  std::string name;
  Value value;
};

const Value* Value::find(const std::string& key) const {
  for (auto it = members.rbegin(); it != members.rend(); ++it)
    if (it->name == key) return &it->value;
  return nullptr;
}

constexpr size_t kMaxDepth = 16;

class ValueBuilder : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit ValueBuilder(Value* root) : root_(root) {}
  std::string error;

  bool null() override { return Put(Value{}); }
  bool boolean(bool) override { return Put(Scalar(Value::Kind::kBoolean)); }
  bool number_integer(number_integer_t) override { return Put(Scalar(Value::Kind::kNumber)); }
  bool number_unsigned(number_unsigned_t) override { return Put(Scalar(Value::Kind::kNumber)); }
  bool number_float(number_float_t, const string_t&) override { return Put(Scalar(Value::Kind::kNumber)); }
  bool string(string_t& value) override {
    Value v = Scalar(Value::Kind::kString);
    v.text = std::move(value);
    return Put(std::move(v));
  }
  bool binary(binary_t&) override { return Put(Scalar(Value::Kind::kNull)); }
  bool start_object(std::size_t) override { return Open(Value::Kind::kObject); }
  bool key(string_t& name) override {
    key_ = std::move(name);
    return true;
  }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t) override { return Open(Value::Kind::kArray); }
  bool end_array() override { return Close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    error = e.what();
    return false;
  }

 private:
  static Value Scalar(Value::Kind kind) {
    Value v;
    v.kind = kind;
    return v;
  }
  // Adds v where the parser is: the root, an array's next item or an
  // object's member named by the last key. Returns where it went.
  Value* Place(Value&& v) {
    if (open_.empty()) {
      *root_ = std::move(v);
      return root_;
    }
    Value* parent = open_.back();
    if (parent->kind == Value::Kind::kArray) {
      parent->items.push_back(std::move(v));
      return &parent->items.back();
    }
    parent->members.push_back(Member{std::move(key_), std::move(v)});
    return &parent->members.back().value;
  }
  bool Put(Value&& v) {
    Place(std::move(v));
    return true;
  }
  bool Open(Value::Kind kind) {
    if (open_.size() >= kMaxDepth) {
      error = "nests deeper than " + std::to_string(kMaxDepth) + " levels";
      return false;
    }
    open_.push_back(Place(Scalar(kind)));
    return true;
  }
  bool Close() {
    open_.pop_back();
    return true;
  }

  Value* root_;
  std::vector<Value*> open_;  // the arrays and objects being filled, innermost last
  std::string key_;
};

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::vector<std::string> Split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(separator, start);
    if (end == std::string::npos) end = text.size();
    if (end > start) parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

bool IsDirectory(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool IsRegularFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Why path is not a regular file that can be opened, for messages: a dangling
// symbolic link, a link loop, a folder, another kind of file, or stat's error.
std::string NotAFileReason(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return "is a folder, not a file (folders are not searched recursively)";
    return "is not a regular file (a device, FIFO or socket)";
  }
  const int error = errno;
  struct stat link;
  const bool is_link = lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode);
  if (error == ELOOP) return "is a symbolic link loop (" + std::string(std::strerror(error)) + ")";
  if (is_link && error == ENOENT) {
    char target[PATH_MAX];
    ssize_t n = readlink(path.c_str(), target, sizeof(target) - 1);
    std::string to = n >= 0 ? std::string(target, static_cast<size_t>(n)) : "?";
    return "is a dangling symbolic link (its target " + to + " does not exist)";
  }
  if (error == ENOENT) return "does not exist";
  return "cannot be examined: " + std::string(std::strerror(error));
}

std::string DirName(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// The data folder (share/) relative to the folder libxgpu is installed in,
// fixed by the build from the install layout (GNUInstallDirs): "../share" for
// lib/, "../../share" for lib/x86_64-linux-gnu/.
#ifndef XGPU_LOADER_LIBDIR_TO_DATADIR
#define XGPU_LOADER_LIBDIR_TO_DATADIR "../share"
#endif

// The folder libxgpu was loaded from, to find <libdir>/<XGPU_LOADER_LIBDIR_TO_DATADIR>.
std::string LoaderLibraryDir() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&LoaderLibraryDir), &info) == 0 || !info.dli_fname) return "";
  char resolved[PATH_MAX];
  if (!realpath(info.dli_fname, resolved)) return DirName(info.dli_fname);
  return DirName(resolved);
}

// Where to look when no variable replaces the search: (folder, origin).
std::vector<std::pair<std::string, std::string>> StandardFolders(const Instance* instance, const char* suffix) {
  std::vector<std::pair<std::string, std::string>> roots;
  std::string home = Env("HOME");
  // A relative path in an XDG variable is invalid and ignored (XDG base-directory
  // specification); a variable left with no valid path is treated as unset, so
  // its default applies.
  auto add_single = [&](const char* var, const std::string& fallback) {
    std::string v = Env(var);
    if (!v.empty() && v[0] != '/') {
      Log(instance, Level::kDebug, "XGPU-LOADER-search-path",
          std::string(var) + "=" + v + " ignored: XDG paths must be absolute; its default is used");
      v.clear();
    }
    if (v.empty()) {
      if (!fallback.empty()) roots.push_back({fallback, std::string(var) + " default"});
      return;
    }
    roots.push_back({v, var});
  };
  auto add_list = [&](const char* var, const char* fallback) {
    std::vector<std::string> entries;
    for (const std::string& entry : Split(Env(var), ':')) {
      if (entry[0] != '/') {
        Log(instance, Level::kDebug, "XGPU-LOADER-search-path",
            std::string(var) + " entry " + entry + " ignored: XDG paths must be absolute");
        continue;
      }
      entries.push_back(entry);
    }
    std::string origin = var;
    if (entries.empty()) {
      entries = Split(fallback, ':');
      origin += " default";
    }
    for (const std::string& entry : entries) roots.push_back({entry, origin});
  };
  add_single("XDG_CONFIG_HOME", home.empty() ? "" : home + "/.config");
  add_list("XDG_CONFIG_DIRS", "/etc/xdg");
  roots.push_back({"/etc", "system configuration"});
  add_single("XDG_DATA_HOME", home.empty() ? "" : home + "/.local/share");
  add_list("XDG_DATA_DIRS", "/usr/local/share:/usr/share");
  // libdir is a real path, so removing ".." lexically is exact. The install
  // tree's data folder first, then the build tree's (<build>/lib ->
  // <build>/share) when the install layout puts it elsewhere.
  std::string libdir = LoaderLibraryDir();
  if (!libdir.empty()) {
    auto data_folder = [&](const char* relative) {
      return std::filesystem::path(libdir + "/" + relative).lexically_normal().string();
    };
    const std::string installed = data_folder(XGPU_LOADER_LIBDIR_TO_DATADIR);
    const std::string build_tree = data_folder("../share");
    roots.push_back({installed, "next to libxgpu"});
    if (build_tree != installed) roots.push_back({build_tree, "next to libxgpu (build tree)"});
  }
  for (auto& root : roots) root.first += suffix;
  return roots;
}

// Adds the manifest files an entry names: a file itself, or a folder's *.json
// files in strcmp order.
void ExpandEntry(const Instance* instance, const std::string& entry, const std::string& origin, bool explicit_entry,
                 std::vector<std::string>* out_files) {
  if (IsDirectory(entry)) {
    std::vector<std::string> names;
    DIR* dir = opendir(entry.c_str());
    if (!dir) {
      const int error = errno;
      Log(instance, Level::kError, "XGPU-LOADER-search-path",
          "searching " + entry + " (" + origin + "): the folder cannot be read: " + std::strerror(error) +
              "; its manifests are skipped");
      return;
    }
    while (dirent* e = readdir(dir)) {
      std::string name = e->d_name;
      if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0) names.push_back(name);
    }
    closedir(dir);
    std::sort(names.begin(), names.end());
    Log(instance, Level::kDebug, "XGPU-LOADER-search-path",
        "searching " + entry + " (" + origin + "): " + std::to_string(names.size()) + " manifest(s)");
    for (const std::string& name : names) {
      std::string path = entry + "/" + name;
      if (IsRegularFile(path)) {
        out_files->push_back(path);
      } else {
        // Named like a manifest but cannot be read as one: never dropped silently.
        Log(instance, Level::kError, "XGPU-LOADER-manifest-invalid",
            "manifest " + path + " (" + origin + ") " + NotAFileReason(path) + "; skipped");
      }
    }
    return;
  }
  if (IsRegularFile(entry)) {
    Log(instance, Level::kDebug, "XGPU-LOADER-search-path", "manifest " + entry + " (" + origin + ")");
    out_files->push_back(entry);
    return;
  }
  if (explicit_entry) {
    Log(instance, Level::kError, "XGPU-LOADER-search-path",
        origin + ": " + entry + " is neither a manifest file nor a folder (it " + NotAFileReason(entry) +
            "); ignored");
  } else {
    Log(instance, Level::kDebug, "XGPU-LOADER-search-path", "searching " + entry + " (" + origin + "): not present");
  }
}

// Removes later duplicates of the same file (by real path).
std::vector<std::string> Deduplicate(const Instance* instance, const std::vector<std::string>& files) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const std::string& file : files) {
    char resolved[PATH_MAX];
    std::string key = realpath(file.c_str(), resolved) ? resolved : file;
    if (!seen.insert(key).second) {
      Log(instance, Level::kDebug, "XGPU-LOADER-search-path", "manifest " + file + " already found; skipped");
      continue;
    }
    out.push_back(file);
  }
  return out;
}

std::vector<std::string> ExplicitEntries(const Instance* instance, const char* var) {
  std::vector<std::string> files;
  for (const std::string& entry : Split(Env(var), ':')) ExpandEntry(instance, entry, var, true, &files);
  return files;
}

// "M.m.p" with decimal fields in the ranges of XGPU_MAKE_API_VERSION.
bool ParseVersion(const std::string& text, uint32_t* out_version, std::string* out_error) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t dot = text.find('.', start);
    parts.push_back(text.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  const unsigned long limits[3] = {127, 1023, 4095};
  unsigned long fields[3];
  bool ok = parts.size() == 3;
  for (size_t i = 0; ok && i < 3; ++i) {
    const std::string& p = parts[i];
    ok = !p.empty() && p.size() <= 5 && std::all_of(p.begin(), p.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (ok) {
      fields[i] = std::stoul(p);
      ok = fields[i] <= limits[i];
    }
  }
  if (!ok) {
    *out_error = "\"" + text + "\" is not a version \"major.minor.patch\" (major <= 127, minor <= 1023, patch <= 4095)";
    return false;
  }
  *out_version = XGPU_MAKE_API_VERSION(0, fields[0], fields[1], fields[2]);
  return true;
}

// Reads and parses path; checks file_format_version; returns the body object.
bool ReadManifest(const std::string& path, const char* body_key, Value* out_body, std::string* out_error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *out_error = "cannot be read";
    return false;
  }
  std::stringstream text;
  text << in.rdbuf();
  Value doc;
  ValueBuilder builder(&doc);
  if (!nlohmann::json::sax_parse(text.str(), &builder)) {
    *out_error = "is not valid JSON: " + (builder.error.empty() ? std::string("parse error") : builder.error);
    return false;
  }
  if (!doc.is_object()) {
    *out_error = "is not a JSON object";
    return false;
  }
  const Value* ffv = doc.find("file_format_version");
  if (ffv == nullptr) {
    *out_error = "has no \"file_format_version\"";
    return false;
  }
  if (!ffv->is_string()) {
    *out_error = "\"file_format_version\" must be a string";
    return false;
  }
  uint32_t format = 0;
  std::string version_error;
  if (!ParseVersion(ffv->text, &format, &version_error)) {
    *out_error = "\"file_format_version\": " + version_error;
    return false;
  }
  if (XGPU_API_VERSION_MAJOR(format) != 1) {
    *out_error = "\"file_format_version\" " + ffv->text + " has an unknown major version (this loader reads 1.x.x)";
    return false;
  }
  Value* body = const_cast<Value*>(doc.find(body_key));
  if (body == nullptr) {
    *out_error = std::string("has no \"") + body_key + "\" object";
    return false;
  }
  if (!body->is_object()) {
    *out_error = std::string("\"") + body_key + "\" must be an object";
    return false;
  }
  *out_body = std::move(*body);
  return true;
}

// A required non-empty string member of obj.
bool RequiredString(const Value& obj, const char* section, const char* key, std::string* out_value,
                    std::string* out_error) {
  const Value* it = obj.find(key);
  if (it == nullptr) {
    *out_error = std::string("\"") + section + "\" has no \"" + key + "\"";
    return false;
  }
  if (!it->is_string()) {
    *out_error = std::string("\"") + section + "." + key + "\" must be a string, not " + it->type_name();
    return false;
  }
  *out_value = it->text;
  if (out_value->empty()) {
    *out_error = std::string("\"") + section + "." + key + "\" is empty";
    return false;
  }
  return true;
}

// library_path: bare name (dlopen's search), relative to the manifest's folder
// when it contains a '/', or absolute.
std::string ResolveLibrary(const std::string& manifest_path, const std::string& library_path) {
  if (library_path.find('/') == std::string::npos || library_path[0] == '/') return library_path;
  return DirName(manifest_path) + "/" + library_path;
}

}  // namespace

std::string VersionString(uint32_t version) {
  return std::to_string(XGPU_API_VERSION_MAJOR(version)) + "." + std::to_string(XGPU_API_VERSION_MINOR(version)) +
         "." + std::to_string(XGPU_API_VERSION_PATCH(version));
}

std::vector<std::string> DriverManifestFiles(const Instance* instance) {
  std::vector<std::string> files;
  if (!Env("XGPU_DRIVER_FILES").empty()) {
    files = ExplicitEntries(instance, "XGPU_DRIVER_FILES");
    if (!Env("XGPU_ADD_DRIVER_FILES").empty()) {
      Log(instance, Level::kWarn, "XGPU-LOADER-search-path",
          "XGPU_ADD_DRIVER_FILES is ignored because XGPU_DRIVER_FILES replaces the search");
    }
  } else {
    files = ExplicitEntries(instance, "XGPU_ADD_DRIVER_FILES");
    for (const auto& [folder, origin] : StandardFolders(instance, "/xgpu/icd.d")) {
      ExpandEntry(instance, folder, origin, false, &files);
    }
  }
  return Deduplicate(instance, files);
}

std::vector<std::string> LayerManifestFiles(const Instance* instance) {
  std::vector<std::string> files;
  if (!Env("XGPU_LAYER_PATH").empty()) {
    files = ExplicitEntries(instance, "XGPU_LAYER_PATH");
  } else {
    for (const auto& [folder, origin] : StandardFolders(instance, "/xgpu/explicit_layer.d")) {
      ExpandEntry(instance, folder, origin, false, &files);
    }
  }
  return Deduplicate(instance, files);
}

bool ParseDriverManifest(const std::string& path, DriverManifest* out_manifest, std::string* out_error) {
  Value body;
  if (!ReadManifest(path, "ICD", &body, out_error)) return false;
  DriverManifest m;
  m.path = path;
  if (!RequiredString(body, "ICD", "library_path", &m.library_path, out_error)) return false;
  std::string api;
  if (!RequiredString(body, "ICD", "api_version", &api, out_error)) return false;
  std::string version_error;
  if (!ParseVersion(api, &m.api_version, &version_error)) {
    *out_error = "\"ICD.api_version\": " + version_error;
    return false;
  }
  m.library = ResolveLibrary(path, m.library_path);
  *out_manifest = std::move(m);
  return true;
}

bool ParseLayerManifest(const std::string& path, LayerManifest* out_manifest, std::string* out_error) {
  Value body;
  if (!ReadManifest(path, "layer", &body, out_error)) return false;
  LayerManifest m;
  m.path = path;
  std::string type, api, impl;
  if (!RequiredString(body, "layer", "name", &m.name, out_error) ||
      !RequiredString(body, "layer", "type", &type, out_error) ||
      !RequiredString(body, "layer", "library_path", &m.library_path, out_error) ||
      !RequiredString(body, "layer", "api_version", &api, out_error) ||
      !RequiredString(body, "layer", "implementation_version", &impl, out_error)) {
    return false;
  }
  if (m.name.size() >= XGPU_MAX_LAYER_NAME_SIZE) {
    *out_error = "\"layer.name\" is longer than " + std::to_string(XGPU_MAX_LAYER_NAME_SIZE - 1) + " bytes";
    return false;
  }
  if (type != "GLOBAL") {
    *out_error = "\"layer.type\" is \"" + type + "\"; the only layer type is \"GLOBAL\"";
    return false;
  }
  std::string version_error;
  if (!ParseVersion(api, &m.api_version, &version_error)) {
    *out_error = "\"layer.api_version\": " + version_error;
    return false;
  }
  if (impl.size() > 9 || !std::all_of(impl.begin(), impl.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    *out_error = "\"layer.implementation_version\" \"" + impl + "\" is not a decimal number below 10^9";
    return false;
  }
  m.implementation_version = static_cast<uint32_t>(std::stoul(impl));
  const Value* desc = body.find("description");
  if (desc == nullptr || !desc->is_string()) {
    *out_error = desc == nullptr ? "\"layer\" has no \"description\""
                                    : std::string("\"layer.description\" must be a string, not ") + desc->type_name();
    return false;
  }
  m.description = desc->text;
  if (m.description.size() >= XGPU_MAX_DESCRIPTION_SIZE) {
    *out_error = "\"layer.description\" is longer than " + std::to_string(XGPU_MAX_DESCRIPTION_SIZE - 1) + " bytes";
    return false;
  }
  m.negotiate_symbol = XGPU_LAYER_NEGOTIATE_SYMBOL;
  if (const Value* fns = body.find("functions"); fns != nullptr) {
    if (!fns->is_object()) {
      *out_error = std::string("\"layer.functions\" must be an object, not ") + fns->type_name();
      return false;
    }
    for (const auto& [name, value] : fns->members) {  // (document order)
      if (name != XGPU_LAYER_NEGOTIATE_SYMBOL) {
        *out_error = "\"layer.functions\" names unknown function \"" + name + "\" (only \"" +
                     XGPU_LAYER_NEGOTIATE_SYMBOL + "\" can be renamed)";
        return false;
      }
      if (!value.is_string() || value.text.empty()) {
        *out_error = std::string("\"layer.functions.") + name + "\" must be a non-empty string";
        return false;
      }
      m.negotiate_symbol = value.text;
    }
  }
  if (const Value* env = body.find("disable_environment"); env != nullptr) {
    if (!env->is_object() || env->members.empty()) {
      *out_error = "\"layer.disable_environment\" must be an object with at least one \"VARIABLE\": \"value\"";
      return false;
    }
    for (const auto& [name, value] : env->members) {
      if (!value.is_string()) {
        *out_error = "\"layer.disable_environment." + name + "\" must be a string, not " + value.type_name();
        return false;
      }
      m.disable_environment.push_back({name, value.text});
    }
  }
  m.library = ResolveLibrary(path, m.library_path);
  *out_manifest = std::move(m);
  return true;
}

std::vector<LayerManifest> FindLayers(const Instance* instance) {
  std::vector<LayerManifest> layers;
  for (const std::string& file : LayerManifestFiles(instance)) {
    LayerManifest m;
    std::string error;
    if (!ParseLayerManifest(file, &m, &error)) {
      Log(instance, Level::kError, "XGPU-LOADER-manifest-invalid", "layer manifest " + file + " " + error + "; skipped");
      continue;
    }
    auto same = std::find_if(layers.begin(), layers.end(), [&](const LayerManifest& l) { return l.name == m.name; });
    if (same != layers.end()) {
      Log(instance, Level::kWarn, "XGPU-LOADER-layer-duplicate",
          "layer " + m.name + " in " + file + " ignored: already found in " + same->path);
      continue;
    }
    Log(instance, Level::kDebug, "XGPU-LOADER-layer-found", "layer " + m.name + " found in " + file);
    layers.push_back(std::move(m));
  }
  return layers;
}

std::string LayerDisabledReason(const LayerManifest& layer) {
  std::string disable = Env("XGPU_LOADER_LAYERS_DISABLE");
  for (const std::string& pattern : Split(disable, ',')) {
    if (pattern == "~all~" || fnmatch(pattern.c_str(), layer.name.c_str(), 0) == 0) {
      return "XGPU_LOADER_LAYERS_DISABLE=" + disable + " matches it";
    }
  }
  for (const auto& [var, value] : layer.disable_environment) {
    const char* v = std::getenv(var.c_str());
    if (v && value == v) return "its manifest's disable_environment " + var + "=" + value + " is set";
  }
  return "";
}

Library::~Library() {
  if (handle) dlclose(handle);
}

bool Library::Open(const std::string& name, std::string* out_error) {
  dlerror();
  handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* e = dlerror();
    *out_error = e ? e : "dlopen failed";
    return false;
  }
  // The file actually loaded, without symlinks or "..", for messages.
  link_map* map = nullptr;
  path = (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && map->l_name[0]) ? map->l_name : name;
  char resolved[PATH_MAX];
  if (realpath(path.c_str(), resolved)) path = resolved;
  return true;
}

}  // namespace xgpu_loader
