// hsa-cpu queues: creation, the amd_queue_t layout, index atomics, the
// packet processor's ordering rules, barrier packets and error reporting.
#include <hsa/amd_hsa_queue.h>
#include <hsa/amd_hsa_signal.h>
#include <xgpu/host_kernel.h>

#include <memory>

#include "hsa_test_util.h"

using namespace hsa_test;

TEST_SUITE("queues") {

TEST_CASE("creation arguments and the amd_queue_t layout") {
  Runtime rt;
  hsa_queue_t* q = nullptr;
  CHECK(hsa_queue_create(rt.agent, 100, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &q) ==
        HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK(hsa_queue_create(rt.agent, 0, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &q) ==
        HSA_STATUS_ERROR_INVALID_ARGUMENT);
  uint32_t max_size = 0;
  hsa_agent_get_info(rt.agent, HSA_AGENT_INFO_QUEUE_MAX_SIZE, &max_size);
  CHECK(hsa_queue_create(rt.agent, max_size * 2, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX,
                         &q) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK(hsa_queue_create(hsa_agent_t{1}, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &q) ==
        HSA_STATUS_ERROR_INVALID_AGENT);
  CHECK(hsa_queue_create(rt.agent, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX, nullptr) ==
        HSA_STATUS_ERROR_INVALID_ARGUMENT);
  REQUIRE(hsa_queue_create(rt.agent, 128, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &q) ==
          HSA_STATUS_SUCCESS);
  CHECK(q->size == 128);
  CHECK(q->type == HSA_QUEUE_TYPE_SINGLE);
  CHECK((q->features & HSA_QUEUE_FEATURE_KERNEL_DISPATCH) != 0);
  CHECK(q->doorbell_signal.handle != 0);
  CHECK(reinterpret_cast<uintptr_t>(q->base_address) % 64 == 0);
  for (uint32_t i = 0; i < q->size; ++i)
    CHECK((slot<hsa_kernel_dispatch_packet_t>(q, i)->header & 0xff) == HSA_PACKET_TYPE_INVALID);
  // hsa_queue_t sits at offset 0 of an amd_queue_t whose dispatch ids are
  // the indices.
  auto* amd = reinterpret_cast<amd_queue_t*>(q);
  CHECK(&amd->hsa_queue == q);
  hsa_queue_store_write_index_relaxed(q, 0);
  CHECK(hsa_queue_add_write_index_relaxed(q, 3) == 0);
  CHECK(amd->write_dispatch_id == 3);
  CHECK(amd->read_dispatch_id == hsa_queue_load_read_index_relaxed(q));
  // The doorbell is a doorbell signal, as in ROCR: its value lives where
  // hardware_doorbell_ptr points, and it names its queue.
  auto* doorbell = reinterpret_cast<amd_signal_t*>(q->doorbell_signal.handle);
  CHECK(doorbell->kind == AMD_SIGNAL_KIND_DOORBELL);
  CHECK(doorbell->queue_ptr == amd);
  REQUIRE((doorbell->hardware_doorbell_ptr != nullptr));
  hsa_signal_store_screlease(q->doorbell_signal, 41);
  CHECK(*doorbell->hardware_doorbell_ptr == 41);
  CHECK(hsa_signal_load_relaxed(q->doorbell_signal) == 41);
  CHECK(hsa_queue_destroy(q) == HSA_STATUS_SUCCESS);
  CHECK(hsa_queue_destroy(q) == HSA_STATUS_ERROR_INVALID_QUEUE);
}

TEST_CASE("HSA 1.2 §2.5 queues: a NULL queue is INVALID_ARGUMENT, an unknown one INVALID_QUEUE") {
  Runtime rt;
  CHECK(hsa_queue_destroy(nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  CHECK(hsa_queue_inactivate(nullptr) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  hsa_queue_t* q = nullptr;
  REQUIRE(hsa_queue_create(rt.agent, 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &q) ==
          HSA_STATUS_SUCCESS);
  CHECK(hsa_queue_inactivate(q) == HSA_STATUS_SUCCESS);
  CHECK(hsa_queue_destroy(q) == HSA_STATUS_SUCCESS);
  // The queue is gone: its (dangling) address is an unknown queue, checked
  // against the runtime's registry, never dereferenced.
  CHECK(hsa_queue_inactivate(q) == HSA_STATUS_ERROR_INVALID_QUEUE);
  CHECK(hsa_queue_destroy(q) == HSA_STATUS_ERROR_INVALID_QUEUE);
  hsa_queue_t bogus{};
  CHECK(hsa_queue_destroy(&bogus) == HSA_STATUS_ERROR_INVALID_QUEUE);
  CHECK(hsa_queue_inactivate(&bogus) == HSA_STATUS_ERROR_INVALID_QUEUE);
  // The null signal and unknown signals.
  CHECK(hsa_signal_destroy(hsa_signal_t{0}) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
  hsa_signal_t s = make_signal(1);
  CHECK(hsa_signal_destroy(s) == HSA_STATUS_SUCCESS);
  CHECK(hsa_signal_destroy(s) == HSA_STATUS_ERROR_INVALID_SIGNAL);
  CHECK(hsa_signal_destroy(hsa_signal_t{0x40}) == HSA_STATUS_ERROR_INVALID_SIGNAL);
}

TEST_CASE("index operations in every order, under concurrent producers") {
  Runtime rt;
  Queue queue(rt.agent, 1024);
  hsa_queue_t* q = queue.queue;
  using Add = uint64_t (*)(const hsa_queue_t*, uint64_t);
  using Cas = uint64_t (*)(const hsa_queue_t*, uint64_t, uint64_t);
  using Load = uint64_t (*)(const hsa_queue_t*);
  using Store = void (*)(const hsa_queue_t*, uint64_t);
  const Add adds[] = {hsa_queue_add_write_index_scacq_screl, hsa_queue_add_write_index_acq_rel,
                      hsa_queue_add_write_index_scacquire,   hsa_queue_add_write_index_acquire,
                      hsa_queue_add_write_index_relaxed,     hsa_queue_add_write_index_screlease,
                      hsa_queue_add_write_index_release};
  const Cas cases[] = {hsa_queue_cas_write_index_scacq_screl, hsa_queue_cas_write_index_acq_rel,
                       hsa_queue_cas_write_index_scacquire,   hsa_queue_cas_write_index_acquire,
                       hsa_queue_cas_write_index_relaxed,     hsa_queue_cas_write_index_screlease,
                       hsa_queue_cas_write_index_release};
  const Load loads[] = {hsa_queue_load_write_index_scacquire, hsa_queue_load_write_index_relaxed,
                        hsa_queue_load_write_index_acquire};
  const Load read_loads[] = {hsa_queue_load_read_index_scacquire, hsa_queue_load_read_index_relaxed,
                             hsa_queue_load_read_index_acquire};
  const Store stores[] = {hsa_queue_store_write_index_relaxed, hsa_queue_store_write_index_screlease,
                          hsa_queue_store_write_index_release};
  for (Store store : stores) {
    store(q, 11);
    for (Load load : loads) CHECK(load(q) == 11);
  }
  for (Load load : read_loads) CHECK(load(q) == 0);  // nothing published, nothing consumed
  hsa_queue_store_write_index_relaxed(q, 0);
  constexpr int kThreads = 4, kPerThread = 7000;
  std::vector<std::thread> producers;
  for (int t = 0; t < kThreads; ++t)
    producers.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        if (i % 2 == 0) {
          adds[(i / 2 + t) % 7](q, 1);
        } else {
          const Cas cas = cases[(i + t) % 7];
          uint64_t seen = hsa_queue_load_write_index_relaxed(q);
          for (;;) {
            const uint64_t previous = cas(q, seen, seen + 1);
            if (previous == seen) break;
            seen = previous;
          }
        }
      }
    });
  for (auto& t : producers) t.join();
  CHECK(hsa_queue_load_write_index_scacquire(q) == uint64_t(kThreads) * kPerThread);
  // The read index is the processor's, but the API writes it too.
  hsa_queue_inactivate(q);
  hsa_queue_store_read_index_relaxed(q, 5);
  CHECK(hsa_queue_load_read_index_relaxed(q) == 5);
  hsa_queue_store_read_index_screlease(q, 6);
  hsa_queue_store_read_index_release(q, 7);
  CHECK(hsa_queue_load_read_index_scacquire(q) == 7);
}

TEST_CASE("a full queue makes the producer wait; a small queue wraps many times") {
  Runtime rt;
  Queue queue(rt.agent, 64);
  hsa_queue_t* q = queue.queue;
  constexpr int kPackets = 64 * 60;
  hsa_signal_t done = make_signal(kPackets);
  hsa_signal_t zero = make_signal(0);
  hsa_signal_t gate = make_signal(1);
  // The first packet waits for `gate`, so the next 63 fill the queue.
  barrier(q, HSA_PACKET_TYPE_BARRIER_AND, {gate}, done);
  for (int i = 1; i < 64; ++i) barrier(q, HSA_PACKET_TYPE_BARRIER_AND, {zero}, done);
  CHECK(hsa_queue_load_write_index_scacquire(q) - hsa_queue_load_read_index_scacquire(q) == q->size);
  // A producer for the rest: it counts the slots it found the queue full for.
  std::atomic<int> waited_for_space{0};
  std::atomic<int> produced{64};
  std::thread producer([&] {
    for (int i = 64; i < kPackets; ++i) {
      const uint64_t index = hsa_queue_add_write_index_relaxed(q, 1);
      if (index - hsa_queue_load_read_index_scacquire(q) >= q->size) waited_for_space.fetch_add(1);
      auto* p = slot<hsa_barrier_and_packet_t>(q, index);
      while (index - hsa_queue_load_read_index_scacquire(q) >= q->size) std::this_thread::yield();
      p->reserved0 = 0;
      p->reserved1 = 0;
      for (int d = 0; d < 5; ++d) p->dep_signal[d] = hsa_signal_t{0};
      p->dep_signal[0] = zero;  // met, for AND and OR alike
      p->reserved2 = 0;
      p->completion_signal = done;
      publish(q, index, header(i % 2 ? HSA_PACKET_TYPE_BARRIER_AND : HSA_PACKET_TYPE_BARRIER_OR));
      produced.fetch_add(1);
    }
  });
  // The producer's first packet finds the queue full and waits.
  for (int i = 0; i < 5000 && waited_for_space.load() == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  CHECK(waited_for_space.load() >= 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(produced.load() == 64);  // nothing written while full
  CHECK(hsa_queue_load_read_index_scacquire(q) == 0);
  hsa_signal_store_screlease(gate, 0);  // drain: the producer wraps the ring ~60 times
  producer.join();
  CHECK(wait_eq(done, 0));
  // The processor stores the read index after the packet it consumed (the
  // last one's completion can be seen first): wait for it, bounded.
  for (int i = 0; i < 5000 && hsa_queue_load_read_index_scacquire(q) != uint64_t(kPackets); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  CHECK(hsa_queue_load_read_index_scacquire(q) == uint64_t(kPackets));
  CHECK(hsa_queue_load_write_index_scacquire(q) == uint64_t(kPackets));
  CHECK(queue.errors.load() == 0);
  for (hsa_signal_t s : {zero, gate, done}) hsa_signal_destroy(s);
}

TEST_CASE("an INVALID header stalls the queue until it is published") {
  Runtime rt;
  Queue queue(rt.agent, 64);
  hsa_signal_t first = make_signal(1), second = make_signal(1);
  const uint64_t i0 = barrier(queue.queue, HSA_PACKET_TYPE_BARRIER_AND, {}, first, false, /*publish=*/false);
  barrier(queue.queue, HSA_PACKET_TYPE_BARRIER_AND, {}, second);  // published, rings the doorbell
  CHECK_FALSE(wait_eq(second, 0, 50 * kMs));                     // never skipped over slot 0
  CHECK(hsa_queue_load_read_index_scacquire(queue.queue) == 0);
  CHECK(hsa_signal_load_relaxed(first) == 1);
  publish(queue.queue, i0, header(HSA_PACKET_TYPE_BARRIER_AND));
  CHECK(wait_eq(first, 0));
  CHECK(wait_eq(second, 0));
  // The processor stores the read index after the packet it consumed, so
  // the last completion can be seen first (a loaded machine showed it):
  // wait for the index, bounded.
  for (int i = 0; i < 5000 && hsa_queue_load_read_index_scacquire(queue.queue) != 2; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  CHECK(hsa_queue_load_read_index_scacquire(queue.queue) == 2);
  // Consumed slots are handed back as INVALID.
  CHECK((slot<hsa_barrier_and_packet_t>(queue.queue, 0)->header & 0xff) == HSA_PACKET_TYPE_INVALID);
  hsa_signal_destroy(first);
  hsa_signal_destroy(second);
}

// The processor thread's id: a single-workgroup dispatch runs on it.
int32_t processor_thread_id(Runtime& rt, Kernels& kernels, hsa_queue_t* queue) {
  int32_t* tid = rt.alloc<int32_t>(1);
  auto* args = rt.alloc<int32_t*>(1, rt.kernarg_pool);
  *args = tid;
  hsa_signal_t done = make_signal(1);
  Dispatch d;
  d.kernel_object = kernels.object("thread_id");
  d.kernarg = args;
  d.completion = done;
  dispatch(queue, d);
  REQUIRE(wait_eq(done, 0));
  hsa_signal_destroy(done);
  REQUIRE(*tid > 0);
  return *tid;
}

TEST_CASE("the barrier bit waits for every earlier packet") {
  // Packet 0 (gate) stays in flight on the workers after the processor
  // moved on: its workgroups on workers block until the test releases them.
  // Packet 1 has the barrier bit, so it must not start until packet 0
  // completed. Without the bit it would start at once, so this fails every
  // time the bit is ignored.
  ScopedEnv workers("HSA_CPU_WORKERS", "2");
  Runtime rt;
  Kernels kernels(rt.agent);
  Queue queue(rt.agent);
  struct GateArgs { uint32_t* held; const uint32_t* release; uint32_t* finished; int32_t processor_tid; };
  struct SnapshotArgs { const uint32_t* counter; uint32_t* out; };
  constexpr uint32_t kGateGroups = 8;
  uint32_t* state = rt.alloc<uint32_t>(4);  // held, release, finished, snapshot
  auto* gate = rt.alloc<GateArgs>(1, rt.kernarg_pool);
  auto* snapshot = rt.alloc<SnapshotArgs>(1, rt.kernarg_pool);
  *gate = GateArgs{&state[0], &state[1], &state[2], processor_thread_id(rt, kernels, queue.queue)};
  *snapshot = SnapshotArgs{&state[2], &state[3]};
  hsa_signal_t gate_done = make_signal(1), after_done = make_signal(1);
  Dispatch d;
  d.kernel_object = kernels.object("gate");
  d.kernarg = gate;
  d.grid[0] = kGateGroups;
  d.completion = gate_done;
  dispatch(queue.queue, d);
  d.kernel_object = kernels.object("snapshot");
  d.kernarg = snapshot;
  d.grid[0] = 1;
  d.completion = after_done;
  d.barrier = true;
  dispatch(queue.queue, d);
  // The gate is in flight: a worker holds one of its workgroups.
  for (int i = 0; i < 5000 && __atomic_load_n(&state[0], __ATOMIC_ACQUIRE) == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  REQUIRE(__atomic_load_n(&state[0], __ATOMIC_ACQUIRE) >= 1);
  // Give the processor ample time to reach packet 1; it must hold it back.
  CHECK_FALSE(wait_eq(after_done, 0, 100 * kMs));
  CHECK(__atomic_load_n(&state[3], __ATOMIC_ACQUIRE) == 0);  // packet 1 never started
  CHECK(hsa_signal_load_scacquire(gate_done) == 1);
  __atomic_store_n(&state[1], 1u, __ATOMIC_RELEASE);  // release the gate
  CHECK(wait_eq(gate_done, 0));
  CHECK(wait_eq(after_done, 0));
  CHECK(state[3] == kGateGroups + 1);  // it started after all eight workgroups ended
  CHECK(queue.errors.load() == 0);
  hsa_signal_destroy(gate_done);
  hsa_signal_destroy(after_done);
}

TEST_CASE("barrier-AND and barrier-OR across two queues") {
  Runtime rt;
  Queue a(rt.agent), b(rt.agent);
  hsa_signal_t x = make_signal(1), y = make_signal(1), z = make_signal(1);
  hsa_signal_t and_done = make_signal(1), or_done = make_signal(1), after = make_signal(1);
  // Queue a: AND(x, y, null) -> and_done, then a packet that must wait for it.
  barrier(a.queue, HSA_PACKET_TYPE_BARRIER_AND, {x, hsa_signal_t{0}, y}, and_done);
  barrier(a.queue, HSA_PACKET_TYPE_BARRIER_AND, {}, after);
  // Queue b: OR(null, and_done, z) -> or_done.
  barrier(b.queue, HSA_PACKET_TYPE_BARRIER_OR, {hsa_signal_t{0}, and_done, z}, or_done);
  CHECK_FALSE(wait_eq(and_done, 0, 30 * kMs));
  CHECK(hsa_signal_load_relaxed(after) == 1);  // blocked behind the barrier
  hsa_signal_store_screlease(x, 0);
  CHECK_FALSE(wait_eq(and_done, 0, 30 * kMs));  // y still pending
  CHECK(hsa_signal_load_relaxed(or_done) == 1);
  hsa_signal_store_screlease(y, 0);
  CHECK(wait_eq(and_done, 0));
  CHECK(wait_eq(after, 0));
  CHECK(wait_eq(or_done, 0));  // satisfied through queue a's completion
  CHECK(hsa_signal_load_relaxed(z) == 1);
  for (hsa_signal_t s : {x, y, z, and_done, or_done, after}) hsa_signal_destroy(s);
}

TEST_CASE("null dependencies: AND treats them as met, OR as never met") {
  Runtime rt;
  hsa_signal_t and_done = make_signal(1), or_done = make_signal(1);
  {
    Queue q(rt.agent);
    barrier(q.queue, HSA_PACKET_TYPE_BARRIER_AND, {}, and_done);
    CHECK(wait_eq(and_done, 0));
    barrier(q.queue, HSA_PACKET_TYPE_BARRIER_OR, {}, or_done);
    CHECK_FALSE(wait_eq(or_done, 0, 50 * kMs));
  }  // destroying the queue stops the stalled processor
  CHECK(hsa_signal_load_relaxed(or_done) == 1);
  hsa_signal_destroy(and_done);
  hsa_signal_destroy(or_done);
}

TEST_CASE("a negative dependency propagates its error and stops the queue") {
  Runtime rt;
  Queue q(rt.agent);
  hsa_signal_t dep = make_signal(1), done = make_signal(1), later = make_signal(1);
  barrier(q.queue, HSA_PACKET_TYPE_BARRIER_AND, {dep}, done);
  barrier(q.queue, HSA_PACKET_TYPE_BARRIER_AND, {}, later);
  hsa_signal_store_screlease(dep, -5);
  CHECK(hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_LT, 0, kLongWait, HSA_WAIT_STATE_BLOCKED) == -5);
  CHECK(q.wait_error());
  CHECK(q.last_error.load() == HSA_STATUS_ERROR);
  CHECK_FALSE(wait_eq(later, 0, 30 * kMs));
  // barrier-OR: an error wins over another satisfied dependency.
  Queue q2(rt.agent);
  hsa_signal_t ok = make_signal(0), or_done = make_signal(1);
  barrier(q2.queue, HSA_PACKET_TYPE_BARRIER_OR, {dep, ok}, or_done);
  CHECK(hsa_signal_wait_scacquire(or_done, HSA_SIGNAL_CONDITION_LT, 0, kLongWait, HSA_WAIT_STATE_BLOCKED) == -5);
  CHECK(q2.wait_error());
  for (hsa_signal_t s : {dep, done, later, ok, or_done}) hsa_signal_destroy(s);
}

TEST_CASE("HSA 1.2 §2.6 AQL packets: a refused packet reports ROCR's status through the queue callback") {
  // ROCR reports (and applications branch on): INVALID_CODE_OBJECT for a
  // kernel object that is not a loaded kernel, INCOMPATIBLE_ARGUMENTS for
  // grid/workgroup sizes that are zero or outside the agent's limits,
  // INVALID_ALLOCATION for a group segment larger than the agent's, and
  // INVALID_PACKET_FORMAT only for a malformed header.
  Runtime rt;
  Kernels kernels(rt.agent);
  static const xgpu_host_kernel_descriptor_t bad_magic = {0x1234, XGPU_HOST_KERNEL_ABI_VERSION, "bad", nullptr,
                                                          nullptr, 0, 1, 0, 0, {0, 0, 0}, 0};
  static const xgpu_host_kernel_descriptor_t bad_abi = {XGPU_HOST_KERNEL_MAGIC, XGPU_HOST_KERNEL_ABI_VERSION + 7,
                                                        "bad", nullptr, nullptr, 0, 1, 0, 0, {0, 0, 0}, 0};
  uint32_t* out = rt.alloc<uint32_t>(64);
  void** kernarg = rt.alloc<void*>(1, rt.kernarg_pool);
  kernarg[0] = out;
  struct Variant {
    const char* what;        // the packet error
    hsa_status_t expected;   // the callback's status
  };
  const Variant variants[] = {
      {"null kernel object", HSA_STATUS_ERROR_INVALID_CODE_OBJECT},
      {"descriptor with a wrong magic", HSA_STATUS_ERROR_INVALID_CODE_OBJECT},
      {"unreadable kernel object", HSA_STATUS_ERROR_INVALID_CODE_OBJECT},
      {"descriptor of another ABI version", HSA_STATUS_ERROR_INVALID_CODE_OBJECT},
      {"0 dimensions", HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS},
      {"4 dimensions", HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS},
      {"workgroup size 0", HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS},
      {"grid size 0", HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS},
      {"workgroup of 2048 work items", HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS},
      {"unused dimension of size 2", HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS},
      {"null kernarg for a kernel with arguments", HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS},
      {"group segment of 65537 bytes", HSA_STATUS_ERROR_INVALID_ALLOCATION},
      {"reserved packet type", HSA_STATUS_ERROR_INVALID_PACKET_FORMAT},
      {"agent dispatch on a kernel-dispatch queue", HSA_STATUS_ERROR_INVALID_PACKET_FORMAT},
      {"reserved header bit", HSA_STATUS_ERROR_INVALID_PACKET_FORMAT},
      {"unknown AMD vendor packet format", HSA_STATUS_ERROR_INVALID_PACKET_FORMAT},
  };
  for (const Variant& variant : variants) {
    const std::string what = variant.what;
    CAPTURE(what);
    Queue q(rt.agent);
    hsa_signal_t done = make_signal(1), later = make_signal(1);
    Dispatch d;
    d.kernel_object = kernels.object("write_ids");
    d.kernarg = kernarg;
    d.grid[0] = 8;
    d.workgroup[0] = 8;
    d.completion = done;
    uint16_t packet_header = header(HSA_PACKET_TYPE_KERNEL_DISPATCH);
    uint16_t setup = 1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS;
    if (what == "null kernel object") d.kernel_object = 0;
    if (what == "descriptor with a wrong magic") d.kernel_object = reinterpret_cast<uint64_t>(&bad_magic);
    if (what == "unreadable kernel object") d.kernel_object = 0x10;
    if (what == "descriptor of another ABI version") d.kernel_object = reinterpret_cast<uint64_t>(&bad_abi);
    if (what == "0 dimensions") setup = 0;
    if (what == "4 dimensions") setup = 4 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS;
    if (what == "workgroup size 0") d.workgroup[0] = 0;
    if (what == "grid size 0") d.grid[0] = 0;
    if (what == "workgroup of 2048 work items") {
      d.workgroup[0] = 1024;
      d.workgroup[1] = 2;
      d.grid[1] = 2;
      setup = 2 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS;
    }
    if (what == "unused dimension of size 2") d.grid[2] = 2;
    if (what == "null kernarg for a kernel with arguments") d.kernarg = nullptr;
    if (what == "group segment of 65537 bytes") d.group_bytes = 65537;
    if (what == "reserved packet type") packet_header = uint16_t(7);
    if (what == "agent dispatch on a kernel-dispatch queue") packet_header = header(HSA_PACKET_TYPE_AGENT_DISPATCH);
    if (what == "reserved header bit") packet_header |= uint16_t(1u << 15);
    if (what == "unknown AMD vendor packet format") {
      packet_header = header(HSA_PACKET_TYPE_VENDOR_SPECIFIC);
      setup = 0x7f;  // AmdFormat: no such AMD packet
    }
    const uint64_t index = dispatch(q.queue, d, /*publish=*/false);
    publish(q.queue, index, packet_header, setup);
    CHECK(q.wait_error());
    CHECK(q.errors.load() == 1);
    CHECK(q.last_error.load() == variant.expected);
    // The queue stopped at the refused packet: nothing ran, nothing later runs.
    barrier(q.queue, HSA_PACKET_TYPE_BARRIER_AND, {}, later);
    CHECK_FALSE(wait_eq(later, 0, 20 * kMs));
    CHECK(hsa_signal_load_relaxed(done) == 1);
    CHECK(hsa_queue_load_read_index_scacquire(q.queue) == index);
    for (int i = 0; i < 8; ++i) CHECK(out[i] == 0);
    hsa_signal_destroy(done);
    hsa_signal_destroy(later);
  }
}

TEST_CASE("a kernel object of a destroyed executable is refused after the queue dispatched it") {
  // The packet processor remembers the last kernel object it accepted; a
  // destroyed executable's objects must not be served from that memory.
  Runtime rt;
  auto kernels = std::make_unique<Kernels>(rt.agent);
  uint32_t* out = rt.alloc<uint32_t>(8);
  void** kernarg = rt.alloc<void*>(1, rt.kernarg_pool);
  kernarg[0] = out;
  Queue q(rt.agent);
  hsa_signal_t first = make_signal(1), second = make_signal(1), third = make_signal(1);
  Dispatch d;
  d.kernel_object = kernels->object("write_ids");
  d.kernarg = kernarg;
  d.grid[0] = 8;
  d.workgroup[0] = 8;
  d.completion = first;
  dispatch(q.queue, d);
  REQUIRE(wait_eq(first, 0));
  d.completion = second;  // the same object again: still live, runs
  dispatch(q.queue, d);
  REQUIRE(wait_eq(second, 0));
  for (uint32_t i = 0; i < 8; ++i) CHECK(out[i] == 2 * (i + 1));
  kernels.reset();  // destroys the executable
  d.completion = third;
  const uint64_t index = dispatch(q.queue, d);
  CHECK(q.wait_error());
  CHECK(q.last_error.load() == HSA_STATUS_ERROR_INVALID_CODE_OBJECT);
  CHECK(hsa_signal_load_scacquire(third) == 1);
  CHECK(hsa_queue_load_read_index_scacquire(q.queue) == index);
  for (uint32_t i = 0; i < 8; ++i) CHECK(out[i] == 2 * (i + 1));  // nothing ran
  for (hsa_signal_t s : {first, second, third}) hsa_signal_destroy(s);
}

TEST_CASE("a reserved fence scope is an invalid packet") {
  Runtime rt;
  Kernels kernels(rt.agent);
  constexpr auto kReservedScope = static_cast<hsa_fence_scope_t>(3);  // 2-bit field, 0..2 defined
  uint32_t* out = rt.alloc<uint32_t>(8);
  void** kernarg = rt.alloc<void*>(1, rt.kernarg_pool);
  kernarg[0] = out;
  for (int variant = 0; variant < 4; ++variant) {
    CAPTURE(variant);
    const bool acquire = variant % 2 == 0;  // which scope is reserved
    const bool kernel = variant < 2;        // kernel dispatch or barrier-AND
    const hsa_fence_scope_t acquire_scope = acquire ? kReservedScope : HSA_FENCE_SCOPE_SYSTEM;
    const hsa_fence_scope_t release_scope = acquire ? HSA_FENCE_SCOPE_SYSTEM : kReservedScope;
    Queue q(rt.agent);
    hsa_signal_t done = make_signal(1);
    if (kernel) {
      Dispatch d;
      d.kernel_object = kernels.object("write_ids");
      d.kernarg = kernarg;
      d.grid[0] = 8;
      d.workgroup[0] = 8;
      d.completion = done;
      const uint64_t index = dispatch(q.queue, d, /*publish=*/false);
      publish(q.queue, index, header(HSA_PACKET_TYPE_KERNEL_DISPATCH, false, acquire_scope, release_scope),
              uint16_t(1 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS));
    } else {
      const uint64_t index = barrier(q.queue, HSA_PACKET_TYPE_BARRIER_AND, {}, done, false, /*publish=*/false);
      publish(q.queue, index, header(HSA_PACKET_TYPE_BARRIER_AND, false, acquire_scope, release_scope));
    }
    CHECK(q.wait_error());
    CHECK(q.errors.load() == 1);
    CHECK(q.last_error.load() == HSA_STATUS_ERROR_INVALID_PACKET_FORMAT);
    CHECK(hsa_signal_load_scacquire(done) == 1);  // not processed
    CHECK(hsa_queue_load_read_index_scacquire(q.queue) == 0);
    for (int i = 0; i < 8; ++i) CHECK(out[i] == 0);  // the kernel never ran
    hsa_signal_destroy(done);
  }
}

TEST_CASE("an inactivated queue processes nothing more") {
  Runtime rt;
  Queue q(rt.agent);
  hsa_signal_t done = make_signal(1);
  CHECK(hsa_queue_inactivate(q.queue) == HSA_STATUS_SUCCESS);
  barrier(q.queue, HSA_PACKET_TYPE_BARRIER_AND, {}, done);
  CHECK_FALSE(wait_eq(done, 0, 30 * kMs));
  hsa_signal_destroy(done);
}

TEST_CASE("AMD barrier-value packets") {
  Runtime rt;
  Queue q(rt.agent);
  hsa_signal_t watched = make_signal(0), done = make_signal(1);
  const uint64_t index = reserve(q.queue);
  auto* p = slot<hsa_amd_barrier_value_packet_t>(q.queue, index);
  p->reserved0 = 0;
  p->signal = watched;
  p->value = 0x30;
  p->mask = 0xf0;
  p->cond = HSA_SIGNAL_CONDITION_EQ;
  p->reserved1 = 0;
  p->reserved2 = 0;
  p->reserved3 = 0;
  p->completion_signal = done;
  const uint32_t word = uint32_t(header(HSA_PACKET_TYPE_VENDOR_SPECIFIC)) |
                        (uint32_t(HSA_AMD_PACKET_TYPE_BARRIER_VALUE) << 16);
  __atomic_store_n(reinterpret_cast<uint32_t*>(p), word, __ATOMIC_RELEASE);
  hsa_signal_store_screlease(q.queue->doorbell_signal, hsa_signal_value_t(index));
  hsa_signal_store_screlease(watched, 0x25);
  CHECK_FALSE(wait_eq(done, 0, 30 * kMs));
  hsa_signal_store_screlease(watched, 0x3c);  // (0x3c & 0xf0) == 0x30
  CHECK(wait_eq(done, 0));
  hsa_signal_destroy(watched);
  hsa_signal_destroy(done);
}

TEST_CASE("idle queues use no CPU") {
  Runtime rt;
  std::vector<std::unique_ptr<Queue>> queues;
  for (int i = 0; i < 4; ++i) queues.push_back(std::make_unique<Queue>(rt.agent));
  hsa_signal_t done = make_signal(1);
  barrier(queues[0]->queue, HSA_PACKET_TYPE_BARRIER_AND, {}, done);  // wake it once
  CHECK(wait_eq(done, 0));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const double before = process_cpu_seconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK(process_cpu_seconds() - before < 0.02);
  hsa_signal_destroy(done);
}

TEST_CASE("each agent creates up to HSA_AGENT_INFO_QUEUES_MAX queues") {
  ScopedEnv agents_env("HSA_CPU_AGENTS", "2");
  Runtime rt;
  const std::vector<hsa_agent_t> agents = Runtime::agents();
  REQUIRE(agents.size() == 2);
  uint32_t max_queues = 0;
  REQUIRE(hsa_agent_get_info(agents[0], HSA_AGENT_INFO_QUEUES_MAX, &max_queues) == HSA_STATUS_SUCCESS);
  REQUIRE(max_queues >= 1);
  REQUIRE(max_queues <= 1024);
  std::vector<hsa_queue_t*> queues(max_queues);
  for (uint32_t i = 0; i < max_queues; ++i) {
    CAPTURE(i);
    REQUIRE(hsa_queue_create(agents[0], 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX,
                             &queues[i]) == HSA_STATUS_SUCCESS);
  }
  hsa_queue_t* extra = nullptr;
  CHECK(hsa_queue_create(agents[0], 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &extra) ==
        HSA_STATUS_ERROR_OUT_OF_RESOURCES);
  // The limit is per agent: the other agent still creates queues.
  REQUIRE(hsa_queue_create(agents[1], 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX, &extra) ==
          HSA_STATUS_SUCCESS);
  CHECK(hsa_queue_destroy(extra) == HSA_STATUS_SUCCESS);
  // Destroying one frees its place; the queues still work.
  CHECK(hsa_queue_destroy(queues.back()) == HSA_STATUS_SUCCESS);
  REQUIRE(hsa_queue_create(agents[0], 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr, UINT32_MAX, UINT32_MAX,
                           &queues.back()) == HSA_STATUS_SUCCESS);
  hsa_signal_t done = make_signal(1);
  barrier(queues.back(), HSA_PACKET_TYPE_BARRIER_AND, {}, done);
  CHECK(wait_eq(done, 0));
  hsa_signal_destroy(done);
  for (hsa_queue_t* q : queues) CHECK(hsa_queue_destroy(q) == HSA_STATUS_SUCCESS);
}

}  // TEST_SUITE
