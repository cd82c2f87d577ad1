#include "object_map.h"

#include <pthread.h>

#include <atomic>
#include <mutex>
#include <algorithm>
#include <new>
#include <vector>

namespace xgpu_validation {
namespace {

// Each thread's cache is allocated on its first miss (a cache that cannot be
// allocated is simply not used), found through t_lookup_cache (static TLS:
// a dlopen()ed library's dynamic TLS would be allocated by glibc on a
// thread's first access, which ends the process when host memory is
// exhausted), and freed at the thread's exit through a pthread key. Every
// cache is also listed, so that the layer's unloading frees the caches of
// threads still alive then (deleting the key first: no destructor of an
// unloaded layer ever runs; nothing calls into the layer while it unloads).
struct CacheKey {
  pthread_key_t key{};
  bool ok = false;
  std::mutex mutex;                   // guards caches
  std::vector<LookupCache*> caches;   // every thread's cache
  CacheKey() {
    ok = pthread_key_create(&key, [](void* cache) { Forget(static_cast<LookupCache*>(cache)); }) == 0;
  }
  ~CacheKey() {
    if (ok) pthread_key_delete(key);
    for (LookupCache* cache : caches) delete cache;
  }
  static void Forget(LookupCache* cache);
};
CacheKey g_cache_key;

void CacheKey::Forget(LookupCache* cache) {
  if (t_lookup_cache == cache) t_lookup_cache = nullptr;
  {
    std::lock_guard lock(g_cache_key.mutex);
    auto& list = g_cache_key.caches;
    list.erase(std::remove(list.begin(), list.end(), cache), list.end());
  }
  delete cache;
}

LookupCache* thread_cache() {
  if (!g_cache_key.ok) return nullptr;
  if (LookupCache* cache = t_lookup_cache) return cache;
  auto* cache = new (std::nothrow) LookupCache();
  if (cache == nullptr) return nullptr;
  try {
    std::lock_guard lock(g_cache_key.mutex);
    g_cache_key.caches.push_back(cache);
  } catch (const std::bad_alloc&) {
    delete cache;
    return nullptr;
  }
  if (pthread_setspecific(g_cache_key.key, cache) != 0) {
    CacheKey::Forget(cache);
    return nullptr;
  }
  t_lookup_cache = cache;
  return cache;
}

}  // namespace

std::atomic<uint64_t> g_lookup_removals{1};
thread_local constinit LookupCache* t_lookup_cache __attribute__((tls_model("initial-exec"))) = nullptr;
thread_local constinit LastDispatch t_last_dispatch __attribute__((tls_model("initial-exec")));

ObjectMap& Objects() {
  // Destroyed when the loader unloads the layer (its last instance is gone).
  static ObjectMap map;
  return map;
}

void ObjectMap::Invalidate() { g_lookup_removals.fetch_add(1, std::memory_order_acq_rel); }

ObjectRecord* ObjectMap::FindSlow(XgpuObjectType type, uint64_t handle) const {
  const uint64_t removals = g_lookup_removals.load(std::memory_order_acquire);
  LookupCache* cache = thread_cache();
  LookupCache::Entry* set = nullptr;
  if (cache != nullptr) {
    if (cache->removals != removals) {
      *cache = LookupCache{};
      cache->removals = removals;
    }
    set = cache->sets[LookupCache::SetOf(type, handle)];
    for (size_t way = 0; way < LookupCache::kWays; ++way) {
      if (set[way].Holds(type, handle)) {
        // Most recently used first.
        const LookupCache::Entry hit = set[way];
        std::copy_backward(set, set + way, set + way + 1);
        set[0] = hit;
        return hit.record;
      }
    }
  }
  const Key key{handle, type};
  const Shard& shard = shards_[ShardOf(key)];
  ObjectRecord* record = nullptr;
  {
    std::shared_lock lock(shard.mutex);
    auto it = shard.records.find(key);
    if (it != shard.records.end()) record = it->second.get();
  }
  if (record != nullptr && set != nullptr) {
    // The least recently used entry makes room.
    std::copy_backward(set, set + LookupCache::kWays - 1, set + LookupCache::kWays);
    set[0] = {handle, type, record};
  }
  return record;
}

std::unique_ptr<ObjectRecord> ObjectMap::Insert(std::unique_ptr<ObjectRecord> record) {
  const Key key{record->handle, record->type};
  Shard& shard = shards_[ShardOf(key)];
  std::unique_ptr<ObjectRecord> stale;
  {
    std::unique_lock lock(shard.mutex);
    std::unique_ptr<ObjectRecord>& slot = shard.records[key];
    stale = std::move(slot);
    slot = std::move(record);
  }
  if (stale) Invalidate();
  return stale;
}

std::unique_ptr<ObjectRecord> ObjectMap::Remove(XgpuObjectType type, uint64_t handle) {
  const Key key{handle, type};
  Shard& shard = shards_[ShardOf(key)];
  std::unique_ptr<ObjectRecord> removed;
  {
    std::unique_lock lock(shard.mutex);
    auto it = shard.records.find(key);
    if (it == shard.records.end()) return nullptr;
    removed = std::move(it->second);
    shard.records.erase(it);
  }
  Invalidate();
  return removed;
}

std::vector<std::unique_ptr<ObjectRecord>> ObjectMap::RemoveIf(
    const std::function<bool(const ObjectRecord&)>& matches) {
  std::vector<std::unique_ptr<ObjectRecord>> removed;
  for (Shard& shard : shards_) {
    std::unique_lock lock(shard.mutex);
    for (auto it = shard.records.begin(); it != shard.records.end();) {
      if (matches(*it->second)) {
        removed.push_back(std::move(it->second));
        it = shard.records.erase(it);
      } else {
        ++it;
      }
    }
  }
  if (!removed.empty()) Invalidate();
  return removed;
}

void ObjectMap::ForEach(const std::function<void(const ObjectRecord&)>& f) const {
  for (const Shard& shard : shards_) {
    std::shared_lock lock(shard.mutex);
    for (const auto& [key, record] : shard.records) f(*record);
  }
}

std::vector<const ObjectRecord*> ObjectMap::FindAnyType(uint64_t handle) const {
  std::vector<const ObjectRecord*> out;
  for (const HandleTypeInfo& type : kHandleTypes) {
    if (const ObjectRecord* record = Find(type.type, handle)) out.push_back(record);
  }
  return out;
}

void ObjectMap::RememberDestroyed(DestroyedObject object) {
  std::lock_guard lock(destroyed_mutex_);
  if (destroyed_.size() < kDestroyedMemory) {
    destroyed_.push_back(std::move(object));
  } else {
    destroyed_[destroyed_next_] = std::move(object);
  }
  destroyed_next_ = (destroyed_next_ + 1) % kDestroyedMemory;
}

std::optional<DestroyedObject> ObjectMap::FindDestroyed(XgpuObjectType type, uint64_t handle) const {
  std::lock_guard lock(destroyed_mutex_);
  // Newest first: walk back from the slot written last.
  for (size_t n = 0; n < destroyed_.size(); ++n) {
    size_t index = (destroyed_next_ + kDestroyedMemory - 1 - n) % kDestroyedMemory;
    if (index >= destroyed_.size()) continue;
    const DestroyedObject& object = destroyed_[index];
    if (object.type == type && object.handle == handle) return object;
  }
  return std::nullopt;
}

}  // namespace xgpu_validation
