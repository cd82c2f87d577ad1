// xgpu-wiloop: the LLVM pass plugin that turns a barrier kernel's work-item
// function into a workgroup function made of loops over the work items,
// split at each barrier (work-item loops). Loaded by clang-19 with
// -fpass-plugin= into every kernel build (cmake/XgpuKernels.cmake): the
// work-item loop steps transform host (x86-64) modules only, the last step
// (PrintingKernelsPass) records on every target which kernels may print;
// spec/kernels.md "Work-item loops" and README.md describe the design.
//
// Input, per barrier kernel K (emitted by <xgpu/kernel.h> when the build
// defines XGPU_KERNEL_WORKITEM_LOOPS):
//   internal void K_xgpu_wi_(ptr kernarg, ptr wg)   one work item's code, in
//                                                    llvm.used
//   call i32 @xgpu_wiloop_local_id_(i32 d)           the item's local id
//   call void @xgpu_wiloop_barrier_()                xgpu_barrier()
//   @"K.kd"                                          the host descriptor
// Output: K_xgpu_wi_ runs the whole workgroup; the descriptor's run_workgroup
// points at it and its flags gain XGPU_HOST_KERNEL_FLAG_WORKITEM_LOOPS and
// XGPU_HOST_KERNEL_FLAG_WORKGROUP_RUNS: it runs a run of workgroups along x
// per call. When it combines tail atomic adds across workgroups
// (combine_tails), it calls K_xgpu_wi_.combine at the run's end.
// A barrier kernel of a required workgroup size (x, 1, 1) also gets the
// sized path (WorkItemLoops::set_sized): K_xgpu_wi_.sized, inlined into
// K_xgpu_wi_ for full workgroups, whose loops LateUnrollPass (the plugin's
// step at the end of the optimisation pipeline) unrolls after
// vectorisation so that SROA keeps group memory in registers.
// A kernel the pass cannot transform keeps fiber mode: K_xgpu_wi_ is
// deleted and the build prints a note naming the kernel and the reason.
// <xgpu/kernel.h> emits K_xgpu_wi_ for kernels without barriers too: the
// pass transforms it only when it has an atomic add to aggregate (then
// run_workgroup points at it, and XGPU_HOST_KERNEL_FLAG_WORKGROUP_RUNS is
// cleared: it runs one workgroup per call) and deletes it otherwise.
//
// The pass is analyses, a plan and transforms, one file each
// (README.md lists them); this header is what they share: the tuning
// constants, the per-kernel transform (WorkItemLoops) and the loop
// utilities the plugin's steps call.
//
// Thread-safety: an LLVM pass; runs on one module at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/CaptureTracking.h"
#include "llvm/Analysis/LazyValueInfo.h"
#include "llvm/Analysis/ConstantFolding.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/ConstantRange.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Scalar/DeadStoreElimination.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/LoopUnrollPass.h"
#include "llvm/Transforms/Scalar/SROA.h"
#include "llvm/Transforms/Vectorize/SLPVectorizer.h"
#include "llvm/Transforms/Scalar/SimplifyCFG.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/LoopSimplify.h"
#include "llvm/Transforms/Utils/LoopUtils.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"
#include "llvm/Transforms/Utils/UnrollLoop.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include "abi.h"

namespace xgpu_wiloop {

using namespace llvm;

// Work-item state value of an item that returned.
constexpr uint32_t kStateReturned = 0xffffffffu;
// How deep a value's operand tree may be to be recomputed where it is used.
constexpr unsigned kRematerializeDepth = 8;
// Work items of the largest workgroup hsa-cpu runs, and the stack the
// per-item slots of one workgroup may take.
constexpr uint64_t kMaxWorkgroupItems = 1024;
// Bound checks versioned per item loop, and the largest item loop (in
// instructions) that gets a guard-free copy.
constexpr unsigned kMaxVersionedChecks = 4;
constexpr unsigned kMaxVersionedLoopSize = 256;
// The pass's own mark on a guard-free item loop copy to interleave, and by
// how many items (measured on gemm and atax: bench/cpu_kernels/README.md).
constexpr StringLiteral kJamMarker = "llvm.loop.unroll_and_jam.count";
constexpr unsigned kJamCount = 8;
constexpr uint64_t kMaxPerItemStackBytes = 2u << 20;
// Tail atomics combined across a run of workgroups per kernel (each keeps
// kMaxWorkgroupItems totals on the stack).
constexpr size_t kMaxCombinedAtomics = 4;
// The most elements a combined add to an array indexed by data may range
// over (its totals are zeroed and read once per run).
constexpr uint64_t kMaxIndexedTotals = 1024;
// Recounted adds aggregated across a run (recount_aggregates): the most
// items the two passes over the run take at a time (what the second pass
// reads again is still in the first level cache: 16 KiB of one u32 each).
constexpr uint64_t kRecountChunkItems = 4096;
// Rounds of inlining helpers that reach a barrier (nested helpers).
constexpr unsigned kInlineRounds = 8;
// The sized path's loops (see WorkItemLoops::set_sized): kept whole by the
// unrollers before vectorisation (llvm.loop.unroll.disable), and marked so
// that the pass's last step unrolls them after it.
constexpr StringLiteral kUnrollDisable = "llvm.loop.unroll.disable";
constexpr StringLiteral kUnrollFull = "llvm.loop.unroll.full";
constexpr StringLiteral kVectorizeWidth = "llvm.loop.vectorize.width";
constexpr StringLiteral kLateUnrollMarker = "xgpu.wiloop.unroll_late";
// The largest a function's marked loops may be, unrolled in full (IR
// instructions, after vectorisation), for the late unroll to take them.
constexpr uint64_t kMaxLateUnrolledSize = 16384;
// The largest required workgroup (items) and static group memory (bytes)
// the sized path is written for: beyond them the unrolled code would be
// too large to keep in registers anyway.
constexpr uint32_t kMaxSizedItems = 1024;
constexpr uint32_t kMaxSizedGroupBytes = 16384;
// The workgroup sizes (x, 1, 1) a barrier kernel without a required size
// gets sized copies for, when the size decides its barrier loops: the
// sizes compute kernels are most often dispatched with. Others run the
// general loops.
constexpr uint32_t kSizedVersions[] = {64, 128, 256};
// Uses capture tracking follows before it answers "captured" (LLVM's
// default, 100, is too few for a sized path's unrolled accesses).
constexpr unsigned kMaxCaptureUses = 1u << 16;

// What the pass decided for one kernel: each path it considered, whether
// it took it, and why (or why not). Filled by the analyses as they decide,
// before the transforms they license run; reported as optimisation remarks
// (clang -Rpass=xgpu-wiloop / -Rpass-missed=xgpu-wiloop, opt
// -pass-remarks=xgpu-wiloop / -pass-remarks-missed=xgpu-wiloop) and the
// paths taken recorded in the code object (`xgpu-kernels inspect`).
// A path is refused only where the kernel had something it could apply to
// (an atomic add, a required size, a pair of regions), so a refusal always
// names what was close and what stopped it.
struct Plan {
  struct Decision {
    std::string path;  // "sized-path", "combined-tails", ... (spec/kernels.md)
    bool taken;        // applied (else refused)
    std::string why;   // what it applied to, or what stopped it
  };
  std::vector<Decision> decisions;
  void take(StringRef path, const Twine& why) { decisions.push_back({path.str(), true, why.str()}); }
  void refuse(StringRef path, const Twine& why) { decisions.push_back({path.str(), false, why.str()}); }
  // The paths taken, comma-separated, each once, in the order decided.
  std::string taken() const {
    std::string out;
    for (const Decision& d : decisions)
      if (d.taken && (", " + out + ",").find(", " + d.path + ",") == std::string::npos)
        out += (out.empty() ? "" : ", ") + d.path;
    return out;
  }
};

inline bool is_call_to(const Instruction& inst, StringRef name) {
  const auto* call = dyn_cast<CallInst>(&inst);
  const Function* callee = call ? call->getCalledFunction() : nullptr;
  return callee && callee->getName() == name;
}

// True when `ptr` is argument `arg` plus a constant offset; sets *offset.
inline bool is_argument_field(const Value* ptr, const Argument* arg, const DataLayout& dl,
                       uint64_t* offset) {
  APInt delta(dl.getIndexTypeSizeInBits(ptr->getType()), 0);
  const Value* base = ptr->stripAndAccumulateConstantOffsets(dl, delta, /*AllowNonInbounds=*/true);
  if (base != arg) return false;
  *offset = delta.getZExtValue();
  return true;
}

// Whether a load of `size` bytes at `offset` in the workgroup record reads
// a field every workgroup of a run along x shares: all but the x id and
// the item count along x (which the pass stores per workgroup).
inline bool run_shared_field(uint64_t offset, uint64_t size) {
  const uint64_t end = offset + size;
  return (offset >= kWorkgroupIdOffset + 4 && end <= kWorkgroupItemCountOffset) ||
         (offset >= kWorkgroupItemCountOffset + 4 && end <= kWorkgroupGroupSegmentOffset);
}

class WorkItemLoops {
 public:
  // `reaches_barrier`: the module's functions that call xgpu_barrier(),
  // directly or through other functions.
  WorkItemLoops(Function& function, const DataLayout& dl, const SmallPtrSetImpl<Function*>& reaches_barrier)
      : f_(function), dl_(dl), ctx_(function.getContext()), reaches_barrier_(reaches_barrier) {}
  WorkItemLoops(const WorkItemLoops&) = delete;
  WorkItemLoops& operator=(const WorkItemLoops&) = delete;
  // Copies of addresses that a failed transform did not use.
  ~WorkItemLoops() {
    for (Instruction* inst : detached_) inst->dropAllReferences();
    for (Instruction* inst : detached_) inst->deleteValue();
  }

  // Kernels without barriers: finds the atomic adds that the workgroup
  // function can aggregate; returns whether there is one.
  bool find_aggregates();
  // Transforms the function; on failure returns false and sets *reason.
  bool run(std::string* reason);
  // Before run(): the workgroup function is to run a run of workgroups
  // along x per call even without tail atomics to combine (barrier kernels:
  // one call and one fault guard per run instead of per workgroup).
  void set_runs(bool runs) { runs_ = runs; }
  // Before run(): transform for one full workgroup of the kernel's required
  // size (x, 1, 1) only, whose group memory is the static `group_bytes`:
  // the sized path. Item counts and workgroup sizes are constants, group
  // memory and the per-item slots are arrays on the function's stack, and
  // every item loop nest the pass builds, of constant trip count, is
  // marked to be unrolled after vectorisation (LateUnrollPass), with the
  // kernel's loops around nests, so that SROA keeps group memory in
  // registers; the kernel's own loops inside a region are left to LLVM's
  // unrolling heuristics. Fails for kernels whose regions need the dispatcher.
  void set_sized(uint32_t x, uint32_t group_bytes) {
    sized_x_ = x;
    sized_group_bytes_ = group_bytes;
  }
  // The sized path's first step on its own (see set_sized): the record's
  // sizes and item counts in `function` become (x, 1, 1)'s. A transform
  // whose function had it done says so with set_sizes_folded().
  static void fold_sizes(Function& function, uint32_t x);
  void set_sizes_folded() { sizes_folded_ = true; }
  // Before run(): the workgroup function calls a copy of `sized` (the same
  // kernel transformed with set_sized(x, group_bytes)) for every workgroup
  // that is full, of (x, 1, 1) items for the copy's x, and without dynamic
  // group memory.
  void set_sized_paths(std::vector<std::pair<Function*, uint32_t>> sized, uint32_t group_bytes) {
    sized_paths_ = std::move(sized);
    sized_path_group_bytes_ = group_bytes;
  }
  // Before run(): where the transform records what it decided (may stay null).
  void set_plan(Plan* plan) { plan_ = plan; }
  // After run(): the function runs a run of workgroups along x per call
  // (XGPU_HOST_KERNEL_FLAG_WORKGROUP_RUNS): when asked to (set_runs), and
  // always when it combines tail atomics across them.
  bool runs() const { return runs_ || combining() || recount_runs_; }

 private:
  bool combining() const { return !combines_.empty(); }
  bool needs_dispatch() const;
  bool plan_accumulation(std::string* why);
  bool whole_slot(Value* ptr, uint64_t scale, unsigned depth) const;
  bool steady(Value* value, SmallPtrSetImpl<const Value*>& seen, unsigned depth);
  Constant* at_item_zero(Value* value, unsigned depth);
  bool item_zero_runs(unsigned region, BasicBlock* target);
  bool group_constant_slot(Value* ptr, uint64_t* offset) const;
  std::optional<ConstantRange> group_offset_range(Value* ptr, Instruction* context) const;
  bool scope_gate_count(uint64_t offset, Type* type);
  bool witnessed_gate(uint64_t offset, Type* type, const SmallPtrSetImpl<StoreInst*>& zeroes, uint64_t* limit,
                      std::string* why);
  void specialize_sized();
  void mark_sized_loops();
  bool item_decided_branch(const Loop& loop);
  void scope_sized_arrays(const SmallPtrSetImpl<Value*>& arrays);
  bool check(std::string* reason);
  // Which memory an access may touch, as far as group memory goes (see
  // pointer_touch).
  enum class Touch { kNone, kGroup, kOther, kUnknown };
  bool group_root(const Value* value) const;
  bool group_escapes();
  bool demoted_slot(const Value* ptr) const;
  Touch pointer_touch(const Value* ptr, bool escapes, SmallPtrSetImpl<const Value*>& seen) const;
  bool from_kernarg(const Value* object) const;
  Touch pointer_touch(const Value* ptr, bool escapes) const;
  Touch access_touch(Instruction& inst, bool escapes) const;
  bool on_group_segment(Value* ptr) const { return pointer_touch(ptr, /*escapes=*/true) == Touch::kGroup; }
  void lower_group_segment_atomics();
  static void mark_global_ids(Function& function);
  bool uniform(Value* value, unsigned depth);
  void split_aggregates();
  bool recount_aggregates(std::string* why);
  bool rematerializable(Value* value, unsigned depth);
  Value* rematerialize(Value* value, Instruction* before);
  void rematerialize_uses();
  void split_barriers();
  void demote();
  void find_regions();
  void classify_allocas();
  uint64_t x_bound(unsigned region);
  bool group_element(Value* ptr, Type* type, int64_t* element, uint64_t* scale);
  unsigned fusion_order(unsigned region, SmallSetVector<AllocaInst*, 4>* scalars, uint32_t* split,
                        std::string* why);
  void widen_group_indices(BasicBlock* block, Value* x64);
  static void fold_x_compares(BasicBlock* block, uint32_t low, uint32_t high);
  bool run_invariant(Value* value, unsigned depth);
  struct IndexedAddress;
  bool tail(AtomicRMWInst* rmw, const SmallPtrSetImpl<AtomicRMWInst*>& deferred, bool escapes);
  bool indexed_address(Value* ptr, uint64_t size, Instruction* context, LazyValueInfo& lvi, Value** base,
                       uint64_t* end);
  const char* why_not_combined(AtomicRMWInst* rmw, bool escapes, LazyValueInfo& lvi, IndexedAddress* indexed);
  Value* detach(Value* value);
  void combine_tails();
  Function* combine_function();
  void build();

  Argument* kernarg() { return f_.getArg(0); }
  Argument* workgroup() { return f_.getArg(1); }

  Function& f_;
  const DataLayout& dl_;
  LLVMContext& ctx_;
  const SmallPtrSetImpl<Function*>& reaches_barrier_;
  std::vector<BasicBlock*> barrier_blocks_;   // index k-1 = barrier k
  std::vector<BasicBlock*> region_starts_;    // index r = region r
  std::vector<SetVector<BasicBlock*>> regions_;  // blocks of each region
  DenseMap<BasicBlock*, unsigned> barrier_index_;  // barrier block -> k
  // Per region: the one barrier k its items can leave it for (k >= 1),
  // kExitsReturn when they can only return, kExitsMixed otherwise.
  std::vector<unsigned> region_exits_;
  static constexpr unsigned kExitsReturn = 0;
  static constexpr unsigned kExitsMixed = ~0u;
  // fusion_order's answers: the order a fused pair of regions visits the
  // items of a one-row workgroup in.
  static constexpr unsigned kNoFusion = 0;
  static constexpr unsigned kFuseAscending = 1;
  static constexpr unsigned kFuseDescending = 2;
  std::vector<AllocaInst*> allocas_;          // every alloca, entry block
  // The headers of the item loop nests build() made (z, y and x of each):
  // the sized path marks these, and the kernel's loops around them, for
  // the late full unroll; the kernel's own loops inside a region are not.
  SmallPtrSet<BasicBlock*, 32> nest_headers_;
  // The slots demote() made for SSA values (a value per slot, stored and
  // loaded by the pass itself): the group-memory analysis follows a value
  // through them.
  SmallPtrSet<AllocaInst*, 16> demoted_;
  SmallSetVector<AllocaInst*, 16> per_item_;  // allocas that need a slot per item (in allocas_ order)
  // An agent- or system-scope atomic add to one address for every item of
  // the workgroup, in a kernel without barriers. Each item takes the next
  // offset of a running total where it reaches the add and waits there as
  // at a barrier; the region that resumes them makes one atomic add of the
  // total and gives each item the old value plus its offset: as if the
  // items' adds had followed each other in item order.
  struct Aggregate {
    AtomicRMWInst* rmw;
    Value* pointer;              // uniform: recomputed before the one add
    AtomicOrdering ordering;
    SyncScope::ID scope;
    Align align;
    Type* type;
    AllocaInst* running = nullptr;  // this round's total so far (one slot)
    AllocaInst* base = nullptr;     // the one add's old value (one slot)
    unsigned barrier = 0;           // its pseudo-barrier index
  };
  std::vector<Aggregate> aggregates_;
  SmallPtrSet<AllocaInst*, 8> shared_slots_;  // one slot for all items
  // A tail atomic add (see combine_tails) whose address is the same for
  // the items of one local id in every workgroup of a run (each item adds
  // its operand to its local id's total), or is an element below `indexed`
  // of an array the run shares (each adds to the element's total; an
  // address without local ids is the one element of itself); the run's end
  // makes one atomic add per non-zero total.
  struct Combine {
    Value* pointer;                  // a detached copy of the address, or of the array's base
    AtomicOrdering ordering;
    SyncScope::ID scope;
    Align align;
    Type* type;
    AllocaInst* totals = nullptr;    // kMaxWorkgroupItems totals by local id, or `indexed` by element
    uint32_t indexed = 0;            // 0: by local id
  };
  std::vector<Combine> combines_;
  bool runs_ = false;  // set_runs
  // The recounted adds are made once per chunk of a run's workgroups
  // (their addresses are the same in every workgroup of a run): the run
  // counts a chunk's items, makes the adds, then runs the chunk's items.
  bool recount_runs_ = false;
  Plan* plan_ = nullptr;  // set_plan
  void take(StringRef path, const Twine& why) {
    if (plan_) plan_->take(path, why);
  }
  void refuse(StringRef path, const Twine& why) {
    if (plan_) plan_->refuse(path, why);
  }
  // The loads and stores of group-memory atomic adds whose old value is
  // unused (lower_group_segment_atomics), and whether the run accumulates
  // group memory across its workgroups (plan_accumulation).
  SmallPtrSet<Instruction*, 8> group_adds_;
  bool accumulate_ = false;
  // The most items a run that accumulates may have (plan_accumulation's
  // gates: their counts must not wrap over a run).
  uint64_t accumulate_items_limit_ = UINT64_MAX;
  uint32_t sized_x_ = 0;             // set_sized
  bool sizes_folded_ = false;        // set_sizes_folded
  AllocaInst* group_alloca_ = nullptr;  // the sized path's group memory
  std::vector<AllocaInst*> item_arrays_;  // build()'s per-item slot arrays
  uint32_t sized_group_bytes_ = 0;
  std::vector<std::pair<Function*, uint32_t>> sized_paths_;  // set_sized_paths
  uint32_t sized_path_group_bytes_ = 0;
  std::vector<Instruction*> detached_;  // the detached copies' instructions
};

// Loop utilities (loop_ids.cpp, bound_checks.cpp, unroll_and_jam.cpp).
// Whether `block` of `loop` is in none of its inner loops.
bool own_block(const Loop& loop, const BasicBlock* block);
// Whether `loop` is one of <xgpu/kernel.h>'s item loops (its mark).
bool item_loop(const Loop& loop);
// An item loop around one innermost loop whose trip count is the same for every item.
bool jam_candidate(Loop& loop, ScalarEvolution& se);
// Sets the integer option `name` of `loop` to `value`, in a loop ID of its own.
void set_loop_option(Loop& loop, StringRef name, uint64_t value);
// The name of loop ID option `operand` (an MDNode whose first operand is its name), or "".
StringRef option_name(const MDOperand& operand);
// Replaces each loop ID of `function` for which `rewrite` returns options.
bool rewrite_loop_ids(Function& function,
                      function_ref<std::optional<SmallVector<Metadata*, 4>>(MDNode*)> rewrite);
// Removes the item-loop and jam marks from every loop ID in `module`.
void drop_loop_marks(Module& module);
// Interleaves the item loops of `function` marked for it (unroll_and_jam.cpp).
void jam_item_loops(Function& function, FunctionAnalysisManager& fam);
// Reads once per item loop what every item reads of one address before it writes (invariant_loads.cpp).
void hoist_invariant_loads(Function& function, FunctionAnalysisManager& fam);
// Versions the item loops of a host workgroup function on their bounds checks (bound_checks.cpp).
void split_bound_checks(Function& function, FunctionAnalysisManager& fam);

// The plugin's last step, after vectorisation (sized_path.cpp).
struct LateUnrollPass : PassInfoMixin<LateUnrollPass> {
  PreservedAnalyses run(Module& module, ModuleAnalysisManager& mam);
};

// Which kernels may print, recorded in the code object (printing_kernels.cpp).
// Runs on every target, at the end of the optimisation pipeline.
struct PrintingKernelsPass : PassInfoMixin<PrintingKernelsPass> {
  PreservedAnalyses run(Module& module, ModuleAnalysisManager& mam);
};

// How each kernel accesses memory through each binding, recorded in the code
// object (binding_access.cpp). Runs on every target, after PrintingKernelsPass.
struct BindingAccessPass : PassInfoMixin<BindingAccessPass> {
  PreservedAnalyses run(Module& module, ModuleAnalysisManager& mam);
};

// Bounds-checked copies of the kernels, for GPU-assisted validation
// (bounds_checks.cpp). Runs on every target, after BindingAccessPass.
struct BoundsChecksPass : PassInfoMixin<BoundsChecksPass> {
  PreservedAnalyses run(Module& module, ModuleAnalysisManager& mam);
};

// The layout records of `module` (binding_access.cpp): kernel name ->
// declared binding count.
StringMap<uint32_t> find_layouts(const Module& module);

// One access through a binding that the binding access analysis followed
// (binding_access.cpp): a load, store, atomic operation, or a call of
// memcpy / memmove / memset (`operand`: the pointer's argument, 0
// destination, 1 source) or of a masked load / store / gather / scatter
// (`operand`: the pointer's argument).
struct BindingAccessSite {
  Instruction* inst;
  uint32_t binding;
  unsigned operand;  // ~0u for loads, stores and atomics
};
// The accesses of one entry function (and of the module functions it
// passes binding pointers to) through each of its `binding_count` bindings;
// `out_bits` (optional) gets the per-binding access bits, `out_roots`
// (optional) the binding pointers' loads from the argument struct. A site
// is an access whose pointer may come from a binding: it may also come from
// elsewhere (a select of a binding pointer and a private one).
std::vector<BindingAccessSite> binding_access_sites(const Function& entry, uint32_t binding_count,
                                                    std::vector<uint8_t>* out_bits,
                                                    SmallPtrSetImpl<const Value*>* out_roots = nullptr);

// The kernels of `module` and their entry functions, by kernel name
// (printing_kernels.cpp): AMDGPU functions of calling convention
// amdgpu_kernel, nvptx kernels, and on the host the functions each `K.kd`
// descriptor refers to.
MapVector<StringRef, SmallVector<const Function*, 2>> find_kernel_entries(const Module& module);

// True for a module built for the host (x86-64): the only one the work-item
// loop steps transform; they leave the amdgcn and nvptx modules the plugin
// is also loaded into (for PrintingKernelsPass) alone.
inline bool is_host_module(const Module& module) {
  return Triple(module.getTargetTriple()).getArch() == Triple::x86_64;
}

}  // namespace xgpu_wiloop
