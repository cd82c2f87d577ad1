// The queue index entry points: atomics on the amd_queue_t every back-end
// lays out as ROCR does (hsa_queue_t its first member). The hot path: no
// registry lookup (as in ROCR); a null queue is ignored.
#include <hsa/amd_hsa_queue.h>

#include <hsa_core/platform.h>

// Index operations: the hot path, no registry lookup (as in ROCR).
#define HSA_CORE_QUEUE_PTR(queue, field) \
  (const_cast<uint64_t*>(&reinterpret_cast<amd_queue_t*>(const_cast<hsa_queue_t*>(queue))->field))

#define HSA_CORE_QUEUE_LOAD(which, field, suffix, order)                              \
  HSA_CORE_EXPORT uint64_t hsa_queue_load_##which##_index_##suffix(const hsa_queue_t* queue) { \
    return queue ? __atomic_load_n(HSA_CORE_QUEUE_PTR(queue, field), order) : 0;      \
  }
HSA_CORE_QUEUE_LOAD(read, read_dispatch_id, scacquire, __ATOMIC_ACQUIRE)
HSA_CORE_QUEUE_LOAD(read, read_dispatch_id, acquire, __ATOMIC_ACQUIRE)
HSA_CORE_QUEUE_LOAD(read, read_dispatch_id, relaxed, __ATOMIC_RELAXED)
HSA_CORE_QUEUE_LOAD(write, write_dispatch_id, scacquire, __ATOMIC_ACQUIRE)
HSA_CORE_QUEUE_LOAD(write, write_dispatch_id, acquire, __ATOMIC_ACQUIRE)
HSA_CORE_QUEUE_LOAD(write, write_dispatch_id, relaxed, __ATOMIC_RELAXED)

#define HSA_CORE_QUEUE_STORE(which, field, suffix, order)                             \
  HSA_CORE_EXPORT void hsa_queue_store_##which##_index_##suffix(const hsa_queue_t* queue, \
                                                               uint64_t value) {     \
    if (queue) __atomic_store_n(HSA_CORE_QUEUE_PTR(queue, field), value, order);      \
  }
HSA_CORE_QUEUE_STORE(write, write_dispatch_id, relaxed, __ATOMIC_RELAXED)
HSA_CORE_QUEUE_STORE(write, write_dispatch_id, screlease, __ATOMIC_RELEASE)
HSA_CORE_QUEUE_STORE(write, write_dispatch_id, release, __ATOMIC_RELEASE)
HSA_CORE_QUEUE_STORE(read, read_dispatch_id, relaxed, __ATOMIC_RELAXED)
HSA_CORE_QUEUE_STORE(read, read_dispatch_id, screlease, __ATOMIC_RELEASE)
HSA_CORE_QUEUE_STORE(read, read_dispatch_id, release, __ATOMIC_RELEASE)

#define HSA_CORE_QUEUE_RMW_ORDERS(X)  \
  X(scacq_screl, __ATOMIC_ACQ_REL)   \
  X(acq_rel, __ATOMIC_ACQ_REL)       \
  X(scacquire, __ATOMIC_ACQUIRE)     \
  X(acquire, __ATOMIC_ACQUIRE)       \
  X(relaxed, __ATOMIC_RELAXED)       \
  X(screlease, __ATOMIC_RELEASE)     \
  X(release, __ATOMIC_RELEASE)

#define HSA_CORE_QUEUE_CAS(suffix, order)                                              \
  HSA_CORE_EXPORT uint64_t hsa_queue_cas_write_index_##suffix(                         \
      const hsa_queue_t* queue, uint64_t expected, uint64_t value) {                  \
    if (!queue) return 0;                                                             \
    uint64_t observed = expected;                                                     \
    constexpr int failure = (order == __ATOMIC_RELEASE) ? __ATOMIC_RELAXED            \
                            : (order == __ATOMIC_ACQ_REL) ? __ATOMIC_ACQUIRE          \
                                                          : order;                    \
    __atomic_compare_exchange_n(HSA_CORE_QUEUE_PTR(queue, write_dispatch_id), &observed, \
                                value, false, order, failure);                        \
    return observed;                                                                  \
  }
HSA_CORE_QUEUE_RMW_ORDERS(HSA_CORE_QUEUE_CAS)

#define HSA_CORE_QUEUE_ADD(suffix, order)                                              \
  HSA_CORE_EXPORT uint64_t hsa_queue_add_write_index_##suffix(const hsa_queue_t* queue, \
                                                             uint64_t value) {        \
    return queue ? __atomic_fetch_add(HSA_CORE_QUEUE_PTR(queue, write_dispatch_id), value, order) \
                 : 0;                                                                 \
  }
HSA_CORE_QUEUE_RMW_ORDERS(HSA_CORE_QUEUE_ADD)

