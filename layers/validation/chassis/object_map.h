// The records of every object the layer has seen, by (type, handle), and a
// short memory of destroyed ones (so a message can say "destroyed by
// xgpuDestroyBuffer" instead of "unknown").
//
// Thread-safe: lookups take a shard's lock shared; a thread's last lookups
// are cached and the cache is dropped whenever any record is removed, so the
// recording hot path (the same command buffer, call after call) takes no lock.
// A record stays valid until its object is destroyed; using a handle on one
// thread while another destroys it is itself invalid usage (api.md 1.6).
#ifndef XGPU_LAYERS_VALIDATION_CHASSIS_OBJECT_MAP_H_
#define XGPU_LAYERS_VALIDATION_CHASSIS_OBJECT_MAP_H_

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "layer.h"
#include "../deadlock/deadlock.h"

namespace xgpu_validation {

// What the layer remembers of a destroyed object.
struct DestroyedObject {
  XgpuObjectType type;  // its type
  uint64_t handle;      // its handle
  std::string name;     // its debug name when destroyed
  Command destroyed_by; // the command that destroyed it
};

// A thread's last lookups: kSets sets of kWays entries, each set kept in
// most-recently-used order (object_map.cpp). Set-associative, because one
// call looks up several objects at once (a submit: its queue, command
// buffer and every bound buffer); in a direct-mapped cache two of them that
// share a slot would evict each other on every lookup.
struct LookupCache {
  static constexpr size_t kSets = 16;
  static constexpr size_t kWays = 4;
  struct Entry {
    uint64_t handle = 0;
    XgpuObjectType type = XGPU_OBJECT_TYPE_UNKNOWN;
    ObjectRecord* record = nullptr;
    bool Holds(XgpuObjectType t, uint64_t h) const { return record != nullptr && handle == h && type == t; }
  };
  uint64_t removals = 0;  // RemovalCount() when the entries were filled
  Entry sets[kSets][kWays];

  static size_t SetOf(XgpuObjectType type, uint64_t handle) {
    // Fibonacci hashing: the top bits of the product mix every bit of the handle.
    static_assert(kSets == 16, "the shift below takes 4 bits");
    return static_cast<size_t>(((handle ^ static_cast<uint64_t>(type)) * 0x9E3779B97F4A7C15ull) >> 60);
  }
};
// Bumped whenever a record is removed: every thread's cache is then stale.
extern std::atomic<uint64_t> g_lookup_removals;
// The calling thread's cache, or nullptr before its first miss. Static TLS
// (initial-exec): reserved when the layer is loaded, so reading it neither
// calls __tls_get_addr nor allocates; the cache itself is allocated (or not,
// when memory is short) by the first miss.
extern thread_local constinit LookupCache* t_lookup_cache __attribute__((tls_model("initial-exec")));

// The calling thread's last dispatchable handle found (CallContext::Dispatch):
// a recording loop calls on one command buffer, call after call, so one
// entry compared in place answers most calls before the set-associative
// cache is looked at. Valid while g_lookup_removals equals `removals`.
struct LastDispatch {
  uint64_t handle = 0;
  XgpuObjectType type = XGPU_OBJECT_TYPE_UNKNOWN;
  uint64_t removals = 0;
  ObjectRecord* record = nullptr;
};
extern thread_local constinit LastDispatch t_last_dispatch __attribute__((tls_model("initial-exec")));

class ObjectMap {
 public:
  // The live record of (type, handle), or nullptr. A hit in the thread's
  // cache takes no lock and makes no call.
  ObjectRecord* Find(XgpuObjectType type, uint64_t handle) const {
    if (ObjectRecord* record = FindCached(type, handle)) return record;
    return FindSlow(type, handle);
  }
  // The record of (type, handle) if it is one of the two most recently used
  // entries of its set in the calling thread's cache, else nullptr.
  static ObjectRecord* FindCached(XgpuObjectType type, uint64_t handle) {
    const LookupCache* cache = t_lookup_cache;
    if (cache != nullptr && cache->removals == g_lookup_removals.load(std::memory_order_acquire)) {
      // The two most recently used entries of its set, inline (this runs at
      // every recorded command); FindSlow looks at the others.
      const LookupCache::Entry* set = cache->sets[LookupCache::SetOf(type, handle)];
      if (set[0].Holds(type, handle)) return set[0].record;
      if (set[1].Holds(type, handle)) return set[1].record;
    }
    return nullptr;
  }
  // Adds a record, replacing (and returning) a stale one of the same key.
  std::unique_ptr<ObjectRecord> Insert(std::unique_ptr<ObjectRecord> record);
  // Removes the records `matches` selects and returns them (the caller frees them).
  std::vector<std::unique_ptr<ObjectRecord>> RemoveIf(const std::function<bool(const ObjectRecord&)>& matches);
  // Removes one record.
  std::unique_ptr<ObjectRecord> Remove(XgpuObjectType type, uint64_t handle);
  // Calls f on every record (under the shards' shared locks: f must not change the map).
  void ForEach(const std::function<void(const ObjectRecord&)>& f) const;
  // Live records of another type with this handle (for messages about wrong-typed handles).
  std::vector<const ObjectRecord*> FindAnyType(uint64_t handle) const;

  void RememberDestroyed(DestroyedObject object);
  // The most recent destruction of (type, handle), if remembered.
  std::optional<DestroyedObject> FindDestroyed(XgpuObjectType type, uint64_t handle) const;

 private:
  struct Key {
    uint64_t handle;
    XgpuObjectType type;
    bool operator==(const Key& other) const { return handle == other.handle && type == other.type; }
  };
  struct KeyHash {
    size_t operator()(const Key& key) const {
      uint64_t h = key.handle * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(key.type);
      return static_cast<size_t>(h ^ (h >> 29));
    }
  };
  static constexpr size_t kShards = 32;
  static constexpr size_t kDestroyedMemory = 1024;  // destroyed objects remembered
  struct Shard {
    mutable std::shared_mutex mutex;
    std::unordered_map<Key, std::unique_ptr<ObjectRecord>, KeyHash> records;
  };
  static size_t ShardOf(const Key& key) { return (KeyHash{}(key) >> 7) % kShards; }
  ObjectRecord* FindSlow(XgpuObjectType type, uint64_t handle) const;
  void Invalidate();

  Shard shards_[kShards];
  mutable std::mutex destroyed_mutex_;
  std::vector<DestroyedObject> destroyed_;  // ring of kDestroyedMemory entries
  size_t destroyed_next_ = 0;               // next slot of the ring
};

// The layer's object map (chassis/object_map.cpp).
ObjectMap& Objects();

inline void CallContext::Dispatch(XgpuObjectType type, const void* handle) {
  NoteCallingThread();
  dispatch_type = type;
  dispatch_handle = handle;
  // Every field below is written on every path, so that the constructor's
  // defaults are not stored first.
  ObjectRecord* record = nullptr;
  if (handle != nullptr) [[likely]] {
    const uint64_t key = reinterpret_cast<uintptr_t>(handle);
    LastDispatch& last = t_last_dispatch;
    const uint64_t removals = g_lookup_removals.load(std::memory_order_acquire);
    if (last.handle == key && last.type == type && last.removals == removals) [[likely]] {
      record = last.record;
    } else {
      // Read before the lookup: a removal after it makes the entry stale.
      record = Objects().Find(type, key);
      if (record != nullptr) last = {key, type, removals, record};
    }
  }
  dispatch_record = record;
  instance = record != nullptr ? record->instance : nullptr;
  device = record != nullptr ? record->device : nullptr;
}

}  // namespace xgpu_validation

#endif  // XGPU_LAYERS_VALIDATION_CHASSIS_OBJECT_MAP_H_
