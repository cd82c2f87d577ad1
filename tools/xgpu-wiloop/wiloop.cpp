// xgpu-wiloop: the LLVM pass plugin that turns a barrier kernel's work-item
// function into a workgroup function made of loops over the work items,
// split at each barrier (work-item loops). Loaded by clang-19 with
// -fpass-plugin= for host kernel builds only (cmake/XgpuKernels.cmake);
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
// Thread-safety: an LLVM pass; runs on one module at a time.
#include <cstdint>
#include <string>
#include <vector>

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/CaptureTracking.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Dominators.h"
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
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Scalar/DeadStoreElimination.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/LoopUnrollPass.h"
#include "llvm/Transforms/Scalar/SROA.h"
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

using namespace llvm;

namespace {

// Names shared with <xgpu/kernel.h> and <xgpu/host_kernel.h>.
constexpr StringLiteral kItemFunctionSuffix = "_xgpu_wi_";
constexpr StringLiteral kLocalIdMarker = "xgpu_wiloop_local_id_";
constexpr StringLiteral kBarrierMarker = "xgpu_wiloop_barrier_";
constexpr StringLiteral kDescriptorSuffix = ".kd";
// xgpu_host_kernel_descriptor_t fields (struct element indices).
constexpr unsigned kDescriptorRunWorkgroupField = 3;
constexpr unsigned kDescriptorKernargSizeField = 5;
constexpr unsigned kDescriptorKernargAlignmentField = 6;
constexpr unsigned kDescriptorGroupSegmentSizeField = 7;
constexpr unsigned kDescriptorRequiredSizeField = 9;
constexpr unsigned kDescriptorFlagsField = 10;
constexpr uint64_t kFlagUsesBarriers = 0x1;   // XGPU_HOST_KERNEL_FLAG_USES_BARRIERS
constexpr uint64_t kFlagWorkitemLoops = 0x2;  // XGPU_HOST_KERNEL_FLAG_WORKITEM_LOOPS
constexpr uint64_t kFlagWorkgroupRuns = 0x4;  // XGPU_HOST_KERNEL_FLAG_WORKGROUP_RUNS
// xgpu_host_workgroup_t byte offsets.
constexpr uint64_t kWorkgroupIdOffset = 0;             // uint32_t workgroup_id[3]
constexpr uint64_t kWorkgroupSizeOffset = 12;          // uint32_t workgroup_size[3]
constexpr uint64_t kWorkgroupGridSizeOffset = 24;      // uint32_t grid_size[3]
constexpr uint64_t kWorkgroupItemCountOffset = 48;     // uint32_t item_count[3]
constexpr uint64_t kWorkgroupGroupSegmentOffset = 64;  // void* group_segment
constexpr uint64_t kWorkgroupGroupSegmentSizeOffset = 72;  // uint32_t group_segment_size
constexpr uint64_t kWorkgroupRunOffset = 76;           // uint32_t workgroup_run
constexpr uint64_t kWorkgroupRecordBytes = 96;         // sizeof(xgpu_host_workgroup_t)
constexpr uint64_t kWorkgroupRecordAlignment = 8;      // _Alignof(xgpu_host_workgroup_t)
constexpr uint64_t kGroupSegmentAlignment = 64;        // XGPU_HOST_GROUP_SEGMENT_ALIGNMENT
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
// <xgpu/kernel.h>'s mark on its item loops (XGPU_KERNEL_ITEM_LOOP_): a
// software-pipelining hint with this value, which x86-64 never reads.
constexpr StringLiteral kItemLoopMarker = "llvm.loop.pipeline.initiationinterval";
constexpr uint64_t kItemLoopMarkerValue = 30823;
// The pass's own mark on a guard-free item loop copy to interleave, and by
// how many items (measured on gemm and atax: bench/cpu_kernels/README.md).
constexpr StringLiteral kJamMarker = "llvm.loop.unroll_and_jam.count";
constexpr unsigned kJamCount = 8;
constexpr uint64_t kMaxPerItemStackBytes = 2u << 20;
// Tail atomics combined across a run of workgroups per kernel (each keeps
// kMaxWorkgroupItems totals on the stack).
constexpr size_t kMaxCombinedAtomics = 4;
// Rounds of inlining helpers that reach a barrier (nested helpers).
constexpr unsigned kInlineRounds = 8;
// The sized path's loops (see WorkItemLoops::set_sized): kept whole by the
// unrollers before vectorisation (llvm.loop.unroll.disable), and marked so
// that the pass's last step unrolls them after it.
constexpr StringLiteral kUnrollDisable = "llvm.loop.unroll.disable";
constexpr StringLiteral kUnrollFull = "llvm.loop.unroll.full";
constexpr StringLiteral kLateUnrollMarker = "xgpu.wiloop.unroll_late";
// The largest required workgroup (items) and static group memory (bytes)
// the sized path is written for: beyond them the unrolled code would be
// too large to keep in registers anyway.
constexpr uint32_t kMaxSizedItems = 1024;
constexpr uint32_t kMaxSizedGroupBytes = 16384;
// Uses capture tracking follows before it answers "captured" (LLVM's
// default, 100, is too few for a sized path's unrolled accesses).
constexpr unsigned kMaxCaptureUses = 1u << 16;

bool is_call_to(const Instruction& inst, StringRef name) {
  const auto* call = dyn_cast<CallInst>(&inst);
  const Function* callee = call ? call->getCalledFunction() : nullptr;
  return callee && callee->getName() == name;
}

// True when `ptr` is argument `arg` plus a constant offset; sets *offset.
bool is_argument_field(const Value* ptr, const Argument* arg, const DataLayout& dl,
                       uint64_t* offset) {
  APInt delta(dl.getIndexTypeSizeInBits(ptr->getType()), 0);
  const Value* base = ptr->stripAndAccumulateConstantOffsets(dl, delta, /*AllowNonInbounds=*/true);
  if (base != arg) return false;
  *offset = delta.getZExtValue();
  return true;
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
  // every region loop, of constant trip count, is marked to be unrolled
  // after vectorisation (late_unroll), so that SROA keeps group memory in
  // registers. Fails for kernels whose regions need the dispatcher.
  void set_sized(uint32_t x, uint32_t group_bytes) {
    sized_x_ = x;
    sized_group_bytes_ = group_bytes;
  }
  // Before run(): the workgroup function calls `sized` (the same kernel
  // transformed with set_sized(x, group_bytes)) for every workgroup that is
  // full, of that size and without dynamic group memory.
  void set_sized_path(Function* sized, uint32_t x, uint32_t group_bytes) {
    sized_path_ = sized;
    sized_path_x_ = x;
    sized_path_group_bytes_ = group_bytes;
  }
  // After run(): the function runs a run of workgroups along x per call
  // (XGPU_HOST_KERNEL_FLAG_WORKGROUP_RUNS): when asked to (set_runs), and
  // always when it combines tail atomics across them.
  bool runs() const { return runs_ || combining(); }

 private:
  bool combining() const { return !combines_.empty(); }
  bool needs_dispatch() const;
  bool plan_accumulation();
  void specialize_sized();
  void mark_sized_loops();
  void scope_sized_arrays(const SmallPtrSetImpl<Value*>& arrays);
  bool check(std::string* reason);
  // Which memory an access may touch, as far as group memory goes (see
  // pointer_touch).
  enum class Touch { kNone, kGroup, kOther, kUnknown };
  bool group_root(const Value* value) const;
  bool group_escapes();
  Touch pointer_touch(const Value* ptr, bool escapes) const;
  Touch access_touch(Instruction& inst, bool escapes) const;
  bool on_group_segment(Value* ptr) const { return pointer_touch(ptr, /*escapes=*/true) == Touch::kGroup; }
  void lower_group_segment_atomics();
  void mark_global_ids();
  bool uniform(Value* value, unsigned depth);
  void split_aggregates();
  bool recount_aggregates();
  bool rematerializable(Value* value, unsigned depth);
  Value* rematerialize(Value* value, Instruction* before);
  void rematerialize_uses();
  void split_barriers();
  void demote();
  void find_regions();
  void classify_allocas();
  uint64_t x_bound(unsigned region);
  bool group_element(Value* ptr, Type* type, int64_t* element, uint64_t* scale);
  unsigned fusion_order(unsigned region, SmallPtrSetImpl<AllocaInst*>* scalars, uint32_t* split);
  void widen_group_indices(BasicBlock* block, Value* x64);
  static void fold_x_compares(BasicBlock* block, uint32_t low, uint32_t high);
  bool run_invariant(Value* value, unsigned depth);
  bool tail(AtomicRMWInst* rmw);
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
  SmallPtrSet<AllocaInst*, 16> per_item_;     // allocas that need a slot per item
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
  // A tail atomic add of a barrier kernel whose address is the same for
  // the items of one local id in every workgroup of a run (see
  // combine_tails): each item adds its operand to its local id's total,
  // and the run's end makes one atomic add per non-zero total.
  struct Combine {
    Value* pointer;                  // a detached copy of the address
    AtomicOrdering ordering;
    SyncScope::ID scope;
    Align align;
    Type* type;
    AllocaInst* totals = nullptr;    // kMaxWorkgroupItems totals, by local id
  };
  std::vector<Combine> combines_;
  bool runs_ = false;  // set_runs
  // The loads and stores of group-memory atomic adds whose old value is
  // unused (lower_group_segment_atomics), and whether the run accumulates
  // group memory across its workgroups (plan_accumulation).
  SmallPtrSet<Instruction*, 8> group_adds_;
  bool accumulate_ = false;
  uint32_t sized_x_ = 0;             // set_sized
  AllocaInst* group_alloca_ = nullptr;  // the sized path's group memory
  std::vector<AllocaInst*> item_arrays_;  // build()'s per-item slot arrays
  uint32_t sized_group_bytes_ = 0;
  Function* sized_path_ = nullptr;   // set_sized_path
  uint32_t sized_path_x_ = 0;
  uint32_t sized_path_group_bytes_ = 0;
  std::vector<Instruction*> detached_;  // the detached copies' instructions
};

// A value every item of a workgroup computes alike: made only of the
// kernarg, the workgroup record and constants (no local id).
bool WorkItemLoops::uniform(Value* value, unsigned depth) {
  if (isa<Constant>(value) || isa<Argument>(value)) return true;
  auto* inst = dyn_cast<Instruction>(value);
  if (!inst || depth == 0 || is_call_to(*inst, kLocalIdMarker) || !rematerializable(inst, depth)) return false;
  if (isa<LoadInst>(inst)) return true;  // a field of the kernarg or the record
  for (Value* operand : inst->operands())
    if (!uniform(operand, depth - 1)) return false;
  return true;
}

bool WorkItemLoops::find_aggregates() {
  for (BasicBlock& block : f_)
    for (Instruction& inst : block) {
      auto* rmw = dyn_cast<AtomicRMWInst>(&inst);
      // (Atomics on group memory become plain operations instead.)
      if (!rmw || rmw->getOperation() != AtomicRMWInst::Add || rmw->isVolatile() ||
          rmw->getOrdering() != AtomicOrdering::Monotonic || on_group_segment(rmw->getPointerOperand()) ||
          !uniform(rmw->getPointerOperand(), kRematerializeDepth))
        continue;
      aggregates_.push_back({rmw, rmw->getPointerOperand(), rmw->getOrdering(), rmw->getSyncScopeID(),
                             rmw->getAlign(), rmw->getType()});
    }
  return !aggregates_.empty();
}

// Each aggregated add: the item adds its operand to the running total and
// keeps the total before it (its offset), then waits at a pseudo-barrier;
// after it, the add's result is the one add's old value plus the offset.
void WorkItemLoops::split_aggregates() {
  BasicBlock& entry = f_.getEntryBlock();
  IRBuilder<> eb(&entry, entry.getFirstInsertionPt());
  for (Aggregate& a : aggregates_) {
    a.running = eb.CreateAlloca(a.type, nullptr, "xgpu.aggregate.running");
    a.base = eb.CreateAlloca(a.type, nullptr, "xgpu.aggregate.base");
    shared_slots_.insert(a.running);
    shared_slots_.insert(a.base);
    IRBuilder<> b(a.rmw);
    Value* offset = b.CreateLoad(a.type, a.running, "xgpu.aggregate.offset");
    b.CreateStore(b.CreateAdd(offset, a.rmw->getValOperand()), a.running);
    BasicBlock* marker = a.rmw->getParent()->splitBasicBlock(a.rmw, "xgpu.aggregate");
    marker->splitBasicBlock(a.rmw, "xgpu.aggregate.resume");
    IRBuilder<> rb(a.rmw);
    Value* result = rb.CreateAdd(rb.CreateLoad(a.type, a.base, "xgpu.aggregate.old"), offset);
    a.rmw->replaceAllUsesWith(result);
    a.rmw->eraseFromParent();
    a.rmw = nullptr;
    a.barrier = unsigned(barrier_blocks_.size()) + 1;
    barrier_index_[marker] = a.barrier;
    barrier_blocks_.push_back(marker);
  }
}

// Aggregated adds that every item reaches through code without effects
// (it loads from memory and computes, but stores nothing and makes no
// other atomic or call), at most one of them per item: instead of waiting
// at the add with its values kept per item, each item runs that code twice.
// Region 0, a copy of every block that can reach an add, only counts: at
// its add the item adds its operand to the running total and stops, and any
// other way out of those blocks (a return, a block that reaches no add)
// stops it too; region 1, the kernel's own code, runs after the one atomic
// add with the add's result computed from the old value and the running
// offset, as in split_aggregates. Both regions have one way out, so no item
// keeps a state word or a value across the pseudo-barrier and no dispatcher
// scans them; region 0 is a plain reduction over the items (it vectorises),
// and region 1 is the kernel's loop with the running offset as in a C loop.
// The copy reads what the kernel reads before the add, twice; between the
// two reads only other items' stores run, which a kernel without barriers
// cannot order before its own loads (no item can wait for another), so both
// reads see the same values in a kernel without data races and each item
// takes the same path to the same add both times.
bool WorkItemLoops::recount_aggregates() {
  if (!barrier_blocks_.empty() || aggregates_.empty()) return false;
  SmallPtrSet<BasicBlock*, 8> add_blocks;
  DenseMap<BasicBlock*, AtomicRMWInst*> add_of;
  for (Aggregate& a : aggregates_) {
    if (!add_blocks.insert(a.rmw->getParent()).second) return false;  // two adds in a row
    add_of[a.rmw->getParent()] = a.rmw;
  }
  for (BasicBlock& block : f_)
    for (Instruction& inst : block)
      if (isa<AllocaInst>(inst)) return false;  // private memory the copy would share
  // The blocks that can reach an add (its predecessors are all in it too).
  SmallPtrSet<BasicBlock*, 32> prefix(add_blocks.begin(), add_blocks.end());
  std::vector<BasicBlock*> work(add_blocks.begin(), add_blocks.end());
  while (!work.empty()) {
    BasicBlock* block = work.back();
    work.pop_back();
    for (BasicBlock* pred : predecessors(block))
      if (prefix.insert(pred).second) work.push_back(pred);
  }
  // No add can follow an add (nor itself, in a loop): an item counts one.
  for (BasicBlock* block : add_blocks)
    for (BasicBlock* next : successors(block))
      if (prefix.count(next)) return false;
  for (BasicBlock* block : prefix)
    for (Instruction& inst : *block) {
      if (add_of.lookup(block) == &inst) break;  // what follows the add is not counted
      if (is_call_to(inst, kLocalIdMarker)) continue;
      if (auto* load = dyn_cast<LoadInst>(&inst)) {
        if (!load->isSimple()) return false;
        continue;
      }
      if (inst.mayHaveSideEffects() || inst.mayReadOrWriteMemory()) return false;
    }

  BasicBlock* entry = &f_.getEntryBlock();
  BasicBlock* body = entry->splitBasicBlock(entry->begin(), "xgpu.recount.body");
  if (prefix.erase(entry)) prefix.insert(body);
  BasicBlock* marker = BasicBlock::Create(ctx_, "xgpu.aggregate", &f_);
  BranchInst::Create(body, marker);
  IRBuilder<> eb(entry, entry->getFirstInsertionPt());
  for (Aggregate& a : aggregates_) {
    a.running = eb.CreateAlloca(a.type, nullptr, "xgpu.aggregate.running");
    a.base = eb.CreateAlloca(a.type, nullptr, "xgpu.aggregate.base");
    shared_slots_.insert(a.running);
    shared_slots_.insert(a.base);
  }

  // Region 0: the counting copy.
  ValueToValueMapTy map;
  for (BasicBlock& block : f_)
    if (&block != entry && &block != marker && !prefix.count(&block)) map[&block] = marker;
  std::vector<BasicBlock*> blocks;
  for (BasicBlock& block : f_)
    if (prefix.count(&block)) blocks.push_back(&block);
  std::vector<BasicBlock*> clones;
  for (BasicBlock* block : blocks) {
    BasicBlock* clone = CloneBasicBlock(block, map, ".count", &f_);
    map[block] = clone;
    clones.push_back(clone);
  }
  for (BasicBlock* clone : clones)
    for (Instruction& inst : *clone) RemapInstruction(&inst, map, RF_NoModuleLevelChanges | RF_IgnoreMissingLocals);
  entry->getTerminator()->setSuccessor(0, cast<BasicBlock>(map[body]));
  for (Aggregate& a : aggregates_) {
    auto* copy = cast<AtomicRMWInst>(map[a.rmw]);
    IRBuilder<> b(copy);
    b.CreateStore(b.CreateAdd(b.CreateLoad(a.type, a.running, "xgpu.aggregate.offset"), copy->getValOperand()),
                  a.running);
    b.CreateBr(marker);
    std::vector<Instruction*> rest;
    for (auto it = copy->getIterator(); it != copy->getParent()->end(); ++it) rest.push_back(&*it);
    for (auto it = rest.rbegin(); it != rest.rend(); ++it) {
      (*it)->replaceAllUsesWith(PoisonValue::get((*it)->getType()));
      (*it)->eraseFromParent();
    }
  }
  for (BasicBlock* clone : clones)
    if (auto* ret = dyn_cast<ReturnInst>(clone->getTerminator())) {
      BranchInst::Create(marker, ret);
      ret->eraseFromParent();
    }

  // Region 1: the kernel's code, each add's result from the one add's old
  // value and the item's offset in the running total.
  for (Aggregate& a : aggregates_) {
    IRBuilder<> b(a.rmw);
    Value* offset = b.CreateLoad(a.type, a.running, "xgpu.aggregate.offset");
    b.CreateStore(b.CreateAdd(offset, a.rmw->getValOperand()), a.running);
    Value* result = b.CreateAdd(b.CreateLoad(a.type, a.base, "xgpu.aggregate.old"), offset);
    a.rmw->replaceAllUsesWith(result);
    a.rmw->eraseFromParent();
    a.rmw = nullptr;
    a.barrier = unsigned(barrier_blocks_.size()) + 1;
    barrier_index_[marker] = a.barrier;
  }
  barrier_blocks_.push_back(marker);
  return true;
}

bool WorkItemLoops::check(std::string* reason) {
  if (f_.arg_size() != 2) {
    *reason = "unexpected work-item function signature";
    return false;
  }
  for (BasicBlock& block : f_) {
    for (Instruction& inst : block) {
      if (isa<InvokeInst>(inst) || isa<CallBrInst>(inst) || isa<IndirectBrInst>(inst)) {
        *reason = "unsupported control flow (invoke, callbr or indirectbr)";
        return false;
      }
      if (auto* alloca = dyn_cast<AllocaInst>(&inst)) {
        if (&block != &f_.getEntryBlock() || !alloca->isStaticAlloca()) {
          *reason = "a dynamically sized or placed stack allocation";
          return false;
        }
      }
      auto* call = dyn_cast<CallBase>(&inst);
      if (!call || isa<IntrinsicInst>(inst)) continue;
      // A call that was not inlined and reaches a barrier hides it. Indirect
      // and external calls cannot reach one (barriers need the permit token
      // of a kernel body): they are plain per-item code.
      Function* callee = call->getCalledFunction();
      if (callee && reaches_barrier_.count(callee)) {
        *reason = "calls '" + callee->getName().str() + "', which contains a barrier and was not inlined";
        return false;
      }
    }
  }
  return true;
}

// Group memory: which objects an access may touch. The roots are the
// group segment's pointer (a load of the workgroup record's
// group_segment) and, on the sized path, the array that replaces it. A
// pointer's underlying objects are found through GEPs, casts, selects and
// phis (LLVM's getUnderlyingObjects, without a depth limit); an object
// that is neither a root nor an identified object (a stack slot, a global,
// an argument: the kernarg or the record) is a pointer loaded from memory,
// returned by a call or made from an integer. Such a pointer can point into
// group memory only when a group pointer escaped (was stored, passed to a
// call that may keep it, converted to an integer or returned: LLVM's
// capture tracking); when none did, it points elsewhere.
bool WorkItemLoops::group_root(const Value* value) const {
  if (group_alloca_ && value == group_alloca_) return true;
  const auto* load = dyn_cast<LoadInst>(value);
  uint64_t offset = 0;
  return load && load->getType()->isPointerTy() &&
         is_argument_field(load->getPointerOperand(), const_cast<WorkItemLoops*>(this)->workgroup(), dl_, &offset) &&
         offset == kWorkgroupGroupSegmentOffset;
}

bool WorkItemLoops::group_escapes() {
  for (BasicBlock& block : f_)
    for (Instruction& inst : block)
      if (group_root(&inst) && PointerMayBeCaptured(&inst, /*ReturnCaptures=*/true, /*StoreCaptures=*/true, kMaxCaptureUses))
        return true;
  return false;
}

// kGroup: every object `ptr` may point into is group memory; kOther: none
// is; kUnknown: either may be, or the objects cannot be told (`escapes`:
// whether a group pointer escaped, group_escapes()).
WorkItemLoops::Touch WorkItemLoops::pointer_touch(const Value* ptr, bool escapes) const {
  SmallVector<const Value*, 8> objects;
  getUnderlyingObjects(ptr, objects, nullptr, /*MaxLookup=*/0);
  bool group = false, other = false, unknown = objects.empty();
  for (const Value* object : objects) {
    if (group_root(object))
      group = true;
    else if (isa<AllocaInst>(object) || isa<GlobalValue>(object) || isa<Argument>(object) ||
             isa<ConstantPointerNull>(object) || isa<UndefValue>(object))
      other = true;
    else if (escapes)
      unknown = true;
    else
      other = true;
  }
  if (unknown || (group && other)) return Touch::kUnknown;
  return group ? Touch::kGroup : Touch::kOther;
}

// The memory `inst` may touch: kNone for an instruction that touches none
// (and the local id marker), a call's through its pointer arguments and,
// unless it only accesses their pointees, any other memory.
WorkItemLoops::Touch WorkItemLoops::access_touch(Instruction& inst, bool escapes) const {
  auto join = [](Touch a, Touch b) { return a == Touch::kNone ? b : b == Touch::kNone || a == b ? a : Touch::kUnknown; };
  if (!inst.mayReadOrWriteMemory() || isa<FenceInst>(inst) || is_call_to(inst, kLocalIdMarker)) return Touch::kNone;
  if (auto* load = dyn_cast<LoadInst>(&inst)) return pointer_touch(load->getPointerOperand(), escapes);
  if (auto* store = dyn_cast<StoreInst>(&inst)) return pointer_touch(store->getPointerOperand(), escapes);
  if (auto* rmw = dyn_cast<AtomicRMWInst>(&inst)) return pointer_touch(rmw->getPointerOperand(), escapes);
  if (auto* cmpxchg = dyn_cast<AtomicCmpXchgInst>(&inst)) return pointer_touch(cmpxchg->getPointerOperand(), escapes);
  auto* call = dyn_cast<CallBase>(&inst);
  if (!call) return Touch::kUnknown;
  const MemoryEffects effects = call->getMemoryEffects();
  if (effects.doesNotAccessMemory()) return Touch::kNone;
  Touch touch = Touch::kNone;
  for (Value* argument : call->args())
    if (argument->getType()->isPointerTy()) touch = join(touch, pointer_touch(argument, escapes));
  if (!effects.onlyAccessesArgPointees()) touch = join(touch, escapes ? Touch::kUnknown : Touch::kOther);
  return touch;
}

// In loop mode one thread runs every work item of a workgroup, so atomics on
// the group segment (which no other workgroup can see) are plain memory
// operations. Done while SSA still shows where each pointer comes from; an
// atomic that may touch group memory or other memory stays atomic.
void WorkItemLoops::lower_group_segment_atomics() {
  std::vector<Instruction*> worklist;
  for (BasicBlock& block : f_)
    for (Instruction& inst : block) worklist.push_back(&inst);
  for (Instruction* inst : worklist) {
    if (auto* load = dyn_cast<LoadInst>(inst)) {
      if (load->isAtomic() && on_group_segment(load->getPointerOperand())) load->setAtomic(AtomicOrdering::NotAtomic);
    } else if (auto* store = dyn_cast<StoreInst>(inst)) {
      if (store->isAtomic() && on_group_segment(store->getPointerOperand())) store->setAtomic(AtomicOrdering::NotAtomic);
    } else if (auto* rmw = dyn_cast<AtomicRMWInst>(inst)) {
      if (!on_group_segment(rmw->getPointerOperand())) continue;
      IRBuilder<> b(rmw);
      Value* ptr = rmw->getPointerOperand();
      Value* value = rmw->getValOperand();
      Type* type = value->getType();
      LoadInst* old = b.CreateAlignedLoad(type, ptr, rmw->getAlign());
      Value* result = nullptr;
      switch (rmw->getOperation()) {
        case AtomicRMWInst::Xchg: result = value; break;
        case AtomicRMWInst::Add: result = b.CreateAdd(old, value); break;
        case AtomicRMWInst::Sub: result = b.CreateSub(old, value); break;
        case AtomicRMWInst::And: result = b.CreateAnd(old, value); break;
        case AtomicRMWInst::Or: result = b.CreateOr(old, value); break;
        case AtomicRMWInst::Xor: result = b.CreateXor(old, value); break;
        case AtomicRMWInst::Max: result = b.CreateSelect(b.CreateICmpSGT(old, value), old, value); break;
        case AtomicRMWInst::Min: result = b.CreateSelect(b.CreateICmpSLT(old, value), old, value); break;
        case AtomicRMWInst::UMax: result = b.CreateSelect(b.CreateICmpUGT(old, value), old, value); break;
        case AtomicRMWInst::UMin: result = b.CreateSelect(b.CreateICmpULT(old, value), old, value); break;
        case AtomicRMWInst::FAdd: result = b.CreateFAdd(old, value); break;
        case AtomicRMWInst::FSub: result = b.CreateFSub(old, value); break;
        default: break;
      }
      if (!result) {
        old->eraseFromParent();
        continue;
      }
      StoreInst* store = b.CreateAlignedStore(result, ptr, rmw->getAlign());
      // An integer add whose old value nobody uses only accumulates
      // (plan_accumulation).
      if (rmw->getOperation() == AtomicRMWInst::Add && rmw->use_empty() && type->isIntegerTy()) {
        group_adds_.insert(old);
        group_adds_.insert(store);
      }
      rmw->replaceAllUsesWith(old);
      rmw->eraseFromParent();
    }
  }
}

// A global id, workgroup id * workgroup size + local id, is below the grid
// size, a uint32_t: neither step wraps. Said in the IR (nuw), a global id
// used as an index is an affine function of the item loop's induction
// variable, which the loop vectoriser needs to check its accesses' bounds.
void WorkItemLoops::mark_global_ids() {
  auto record_field = [&](Value* value, uint64_t base, unsigned* dimension) {
    auto* load = dyn_cast<LoadInst>(value);
    uint64_t offset = 0;
    if (!load || !load->isSimple() || !load->getType()->isIntegerTy(32) ||
        !is_argument_field(load->getPointerOperand(), workgroup(), dl_, &offset) || offset < base ||
        offset >= base + 12 || (offset - base) % 4 != 0)
      return false;
    *dimension = unsigned((offset - base) / 4);
    return true;
  };
  for (BasicBlock& block : f_)
    for (Instruction& inst : block) {
      auto* mul = dyn_cast<BinaryOperator>(&inst);
      if (!mul || mul->getOpcode() != Instruction::Mul) continue;
      unsigned d0 = 0, d1 = 0;
      Value* a = mul->getOperand(0);
      Value* b = mul->getOperand(1);
      if (!((record_field(a, kWorkgroupIdOffset, &d0) && record_field(b, kWorkgroupSizeOffset, &d1)) ||
            (record_field(b, kWorkgroupIdOffset, &d0) && record_field(a, kWorkgroupSizeOffset, &d1))) ||
          d0 != d1)
        continue;
      mul->setHasNoUnsignedWrap(true);
      for (User* user : mul->users()) {
        auto* add = dyn_cast<BinaryOperator>(user);
        if (!add || add->getOpcode() != Instruction::Add) continue;
        Value* other = add->getOperand(0) == mul ? add->getOperand(1) : add->getOperand(0);
        auto* call = dyn_cast<CallInst>(other);
        auto* d = call && is_call_to(*call, kLocalIdMarker) ? dyn_cast<ConstantInt>(call->getArgOperand(0)) : nullptr;
        if (d && d->getZExtValue() == d0) add->setHasNoUnsignedWrap(true);
      }
    }
}

// Values that depend only on the kernarg, the workgroup record and the local
// ids are recomputed where they are used in another block instead of being
// kept per work item across barriers.
bool WorkItemLoops::rematerializable(Value* value, unsigned depth) {
  // The sized path's group memory is, like the record's pointer it
  // replaces, the same for every item: used as it is, not copied.
  if (isa<Constant>(value) || isa<Argument>(value) || (group_alloca_ && value == group_alloca_)) return true;
  auto* inst = dyn_cast<Instruction>(value);
  if (!inst || depth == 0) return false;
  if (is_call_to(*inst, kLocalIdMarker))
    return rematerializable(cast<CallInst>(inst)->getArgOperand(0), depth - 1);
  if (auto* load = dyn_cast<LoadInst>(inst)) {
    uint64_t offset = 0;
    return load->isSimple() &&
           (is_argument_field(load->getPointerOperand(), kernarg(), dl_, &offset) ||
            is_argument_field(load->getPointerOperand(), workgroup(), dl_, &offset));
  }
  if (!isa<BinaryOperator>(inst) && !isa<CastInst>(inst) && !isa<GetElementPtrInst>(inst) &&
      !isa<CmpInst>(inst) && !isa<SelectInst>(inst) && !isa<FreezeInst>(inst))
    return false;
  if (inst->mayHaveSideEffects()) return false;
  // Division may trap: only where it was.
  if (auto* bin = dyn_cast<BinaryOperator>(inst)) {
    switch (bin->getOpcode()) {
      case Instruction::UDiv: case Instruction::SDiv: case Instruction::URem: case Instruction::SRem: {
        auto* divisor = dyn_cast<ConstantInt>(bin->getOperand(1));
        if (!divisor || divisor->isZero()) return false;
        break;
      }
      default: break;
    }
  }
  for (Value* operand : inst->operands())
    if (!rematerializable(operand, depth - 1)) return false;
  return true;
}

Value* WorkItemLoops::rematerialize(Value* value, Instruction* before) {
  auto* inst = dyn_cast<Instruction>(value);
  if (!inst || inst == group_alloca_) return value;
  Instruction* copy = inst->clone();
  for (unsigned i = 0; i < copy->getNumOperands(); ++i)
    copy->setOperand(i, rematerialize(copy->getOperand(i), before));
  copy->insertBefore(before);
  return copy;
}

void WorkItemLoops::rematerialize_uses() {
  std::vector<Instruction*> candidates;
  for (BasicBlock& block : f_)
    for (Instruction& inst : block)
      if (!isa<AllocaInst>(inst) && !inst.getType()->isVoidTy() &&
          rematerializable(&inst, kRematerializeDepth))
        candidates.push_back(&inst);
  for (Instruction* inst : candidates) {
    std::vector<Use*> far_uses;
    for (Use& use : inst->uses()) {
      auto* user = cast<Instruction>(use.getUser());
      if (isa<PHINode>(user) || user->getParent() != inst->getParent()) far_uses.push_back(&use);
    }
    for (Use* use : far_uses) {
      auto* user = cast<Instruction>(use->getUser());
      Instruction* before = user;
      if (auto* phi = dyn_cast<PHINode>(user)) before = phi->getIncomingBlock(*use)->getTerminator();
      use->set(rematerialize(inst, before));
    }
  }
}

// Each barrier gets a block of its own: {barrier call, br}.
void WorkItemLoops::split_barriers() {
  std::vector<CallInst*> barriers;
  for (BasicBlock& block : f_)
    for (Instruction& inst : block)
      if (is_call_to(inst, kBarrierMarker)) barriers.push_back(cast<CallInst>(&inst));
  for (CallInst* barrier : barriers) {
    BasicBlock* block = barrier->getParent()->splitBasicBlock(barrier, "xgpu.barrier");
    block->splitBasicBlock(barrier->getNextNode(), "xgpu.after_barrier");
    barrier_index_[block] = unsigned(barrier_blocks_.size()) + 1;
    barrier_blocks_.push_back(block);
  }
}

// After this, the only SSA values used outside their block are allocas and
// arguments: the CFG can be cloned per region freely.
void WorkItemLoops::demote() {
  BasicBlock& entry = f_.getEntryBlock();
  std::vector<Instruction*> escaping;
  for (BasicBlock& block : f_)
    for (Instruction& inst : block) {
      if (isa<AllocaInst>(inst) && &block == &entry) continue;
      for (User* user : inst.users()) {
        auto* ui = cast<Instruction>(user);
        if (ui->getParent() != &block || isa<PHINode>(ui)) {
          escaping.push_back(&inst);
          break;
        }
      }
    }
  for (Instruction* inst : escaping) DemoteRegToStack(*inst, false, entry.getFirstInsertionPt());
  std::vector<PHINode*> phis;
  for (BasicBlock& block : f_)
    for (PHINode& phi : block.phis()) phis.push_back(&phi);
  for (PHINode* phi : phis) DemotePHIToStack(phi, entry.getFirstInsertionPt());
}

void WorkItemLoops::find_regions() {
  region_starts_.push_back(&f_.getEntryBlock());
  for (BasicBlock* barrier : barrier_blocks_) region_starts_.push_back(barrier->getSingleSuccessor());
  for (BasicBlock* start : region_starts_) {
    SetVector<BasicBlock*> blocks;
    std::vector<BasicBlock*> stack{start};
    blocks.insert(start);
    while (!stack.empty()) {
      BasicBlock* block = stack.back();
      stack.pop_back();
      for (BasicBlock* next : successors(block))
        if (!barrier_index_.count(next) && blocks.insert(next)) stack.push_back(next);
    }
    // Ways out of the region: the barriers its blocks branch to, and
    // return (kExitsReturn).
    SmallSetVector<unsigned, 4> exits;
    for (BasicBlock* block : blocks) {
      if (isa<ReturnInst>(block->getTerminator())) exits.insert(kExitsReturn);
      for (BasicBlock* next : successors(block))
        if (auto it = barrier_index_.find(next); it != barrier_index_.end()) exits.insert(it->second);
    }
    region_exits_.push_back(exits.size() == 1 ? exits[0] : kExitsMixed);
    regions_.push_back(std::move(blocks));
  }
}

// An alloca needs a slot per work item unless it is used in one region only
// and no item can pass that region's own barrier between a store and a load.
void WorkItemLoops::classify_allocas() {
  for (Instruction& inst : f_.getEntryBlock())
    if (auto* alloca = dyn_cast<AllocaInst>(&inst)) allocas_.push_back(alloca);
  for (AllocaInst* alloca : allocas_) {
    if (shared_slots_.count(alloca)) continue;
    SmallPtrSet<BasicBlock*, 8> blocks;
    bool escapes = false;
    std::vector<Value*> pointers{alloca};
    SmallPtrSet<Value*, 8> seen{alloca};
    while (!pointers.empty() && !escapes) {
      Value* ptr = pointers.back();
      pointers.pop_back();
      for (Use& use : ptr->uses()) {
        auto* user = cast<Instruction>(use.getUser());
        blocks.insert(user->getParent());
        if (isa<LoadInst>(user)) continue;
        if (auto* store = dyn_cast<StoreInst>(user)) {
          if (store->getValueOperand() == ptr) escapes = true;
          continue;
        }
        if (isa<GetElementPtrInst>(user) || isa<BitCastInst>(user) || isa<SelectInst>(user) ||
            isa<PHINode>(user)) {
          if (seen.insert(user).second) pointers.push_back(user);
          continue;
        }
        if (auto* intrinsic = dyn_cast<IntrinsicInst>(user)) {
          if (isa<MemIntrinsic>(intrinsic)) continue;
        }
        escapes = true;  // passed to a call, converted to an integer, ...
      }
    }
    if (escapes) {
      per_item_.insert(alloca);
      continue;
    }
    int region = -1;
    bool several = false;
    for (unsigned r = 0; r < regions_.size() && !several; ++r)
      for (BasicBlock* block : blocks)
        if (regions_[r].contains(block)) {
          if (region >= 0 && unsigned(region) != r) several = true;
          region = int(r);
          break;
        }
    if (several) {
      per_item_.insert(alloca);
      continue;
    }
    if (region <= 0) continue;  // unused, or region 0 (entered once per item)
    // Can an access reach region `region`'s own barrier within the region?
    BasicBlock* own_barrier = barrier_blocks_[region - 1];
    const SetVector<BasicBlock*>& members = regions_[region];
    bool loops_back = false;
    for (BasicBlock* block : blocks) {
      if (!members.contains(block)) continue;
      std::vector<BasicBlock*> stack{block};
      SmallPtrSet<BasicBlock*, 16> visited{block};
      while (!stack.empty() && !loops_back) {
        BasicBlock* current = stack.back();
        stack.pop_back();
        for (BasicBlock* next : successors(current)) {
          if (next == own_barrier) loops_back = true;
          if (members.contains(next) && visited.insert(next).second) stack.push_back(next);
        }
      }
      if (loops_back) break;
    }
    if (loops_back) per_item_.insert(alloca);
  }
}

// Region `region` starts with a branch on the item's local id x against a
// constant that sends every item with x >= bound straight to the region's
// one barrier, and nothing before that branch writes memory or has another
// effect (`if (lid < stride) { ... } xgpu_barrier();`): returns that bound,
// or 0. Such items do nothing in the region, so its x loop can stop there.
uint64_t WorkItemLoops::x_bound(unsigned region) {
  const unsigned barrier = region_exits_[region];
  if (barrier == kExitsMixed || barrier == kExitsReturn) return 0;
  BasicBlock* start = region_starts_[region];
  auto* branch = dyn_cast<BranchInst>(start->getTerminator());
  if (!branch || !branch->isConditional()) return 0;
  for (Instruction& inst : *start)
    if (&inst != branch && (inst.mayHaveSideEffects() || inst.mayReadOrWriteMemory()) &&
        !(isa<LoadInst>(inst) && cast<LoadInst>(inst).isSimple()) && !is_call_to(inst, kLocalIdMarker))
      return 0;
  auto* compare = dyn_cast<ICmpInst>(branch->getCondition());
  auto* id = compare ? dyn_cast<CallInst>(compare->getOperand(0)) : nullptr;
  auto* constant = compare ? dyn_cast<ConstantInt>(compare->getOperand(1)) : nullptr;
  if (!id || !constant || !is_call_to(*id, kLocalIdMarker) || !isa<ConstantInt>(id->getArgOperand(0)) ||
      !cast<ConstantInt>(id->getArgOperand(0))->isZero() || constant->getBitWidth() > 64)
    return 0;
  // Does `block` go to the barrier with no instruction on the way?
  auto to_barrier = [&](BasicBlock* block) {
    for (unsigned step = 0; step < 4 && block; ++step) {
      if (auto it = barrier_index_.find(block); it != barrier_index_.end()) return it->second == barrier;
      if (block->size() != 1) return false;
      block = block->getSingleSuccessor();
    }
    return false;
  };
  const bool leave_if_false = to_barrier(branch->getSuccessor(1));
  const bool leave_if_true = to_barrier(branch->getSuccessor(0));
  if (leave_if_false == leave_if_true) return 0;
  // x is below 2^31 (workgroups are small), so signed and unsigned agree
  // for a constant that is not negative.
  if (compare->isSigned() && constant->isNegative()) return 0;
  const uint64_t c = constant->getZExtValue();
  if (c >= kMaxWorkgroupItems) return 0;
  CmpInst::Predicate stay = leave_if_false ? compare->getPredicate() : compare->getInversePredicate();
  switch (stay) {
    case CmpInst::ICMP_ULT: case CmpInst::ICMP_SLT: return c;      // x < c runs the region
    case CmpInst::ICMP_ULE: case CmpInst::ICMP_SLE: return c + 1;  // x <= c
    case CmpInst::ICMP_EQ: return c == 0 ? 1 : 0;                 // x == 0
    default: return 0;
  }
}

// A local id x plus a constant: `x`, `x + c`, `x - c`, with at most one
// zero or sign extension from i32 on the way. Sets *c. Such a value is
// x + c exactly or, after a zero extension of a negative i32, x + c + 2^32.
static bool local_x_plus(Value* value, int64_t* c) {
  int64_t total = 0;
  bool extended = false;
  for (unsigned depth = 0; depth < 8; ++depth) {
    if (auto* call = dyn_cast<CallInst>(value); call && is_call_to(*call, kLocalIdMarker)) {
      auto* d = dyn_cast<ConstantInt>(call->getArgOperand(0));
      if (!d || !d->isZero()) return false;
      *c = total;
      return true;
    }
    if (isa<ZExtInst>(value) || isa<SExtInst>(value)) {
      Value* source = cast<Instruction>(value)->getOperand(0);
      if (extended || !source->getType()->isIntegerTy(32)) return false;
      extended = true;
      value = source;
      continue;
    }
    auto* op = dyn_cast<BinaryOperator>(value);
    auto* k = op ? dyn_cast<ConstantInt>(op->getOperand(1)) : nullptr;
    if (!k || k->getBitWidth() > 64) return false;
    if (op->getOpcode() == Instruction::Add) total += k->getSExtValue();
    else if (op->getOpcode() == Instruction::Sub) total -= k->getSExtValue();
    else return false;
    if (total > (int64_t(1) << 20) || total < -(int64_t(1) << 20)) return false;
    value = op->getOperand(0);
  }
  return false;
}

// A group-segment access of `type` at `ptr` = group base + scale * (x +
// element) bytes, with x the item's local id x, scale the same for every
// such access and the access within one scale-sized element: sets
// *element and *scale. Any other shape (an address that does not depend on
// x, several variable indices, a base that is not the group segment)
// answers false.
bool WorkItemLoops::group_element(Value* ptr, Type* type, int64_t* element, uint64_t* scale) {
  const unsigned bits = dl_.getIndexTypeSizeInBits(ptr->getType());
  APInt constant(bits, 0);
  Value* variable = nullptr;
  APInt variable_scale(bits, 0);
  for (unsigned depth = 0; depth < 8; ++depth) {
    auto* gep = dyn_cast<GEPOperator>(ptr);
    if (!gep) break;
    MapVector<Value*, APInt> variables;
    if (!gep->collectOffset(dl_, bits, variables, constant)) return false;
    for (auto& [v, s] : variables) {
      if (variable) return false;
      variable = v;
      variable_scale = s;
    }
    ptr = gep->getPointerOperand();
  }
  auto* base = dyn_cast<LoadInst>(ptr);
  uint64_t field = 0;
  if (!base || !is_argument_field(base->getPointerOperand(), workgroup(), dl_, &field) ||
      field != kWorkgroupGroupSegmentOffset || !variable)
    return false;
  int64_t c = 0;
  if (!local_x_plus(variable, &c)) return false;
  const int64_t s = variable_scale.getSExtValue();
  const int64_t k = constant.getSExtValue();
  if (s <= 0 || s > (int64_t(1) << 16) || k % s != 0 || k / s > (int64_t(1) << 20) || k / s < -(int64_t(1) << 20) ||
      dl_.getTypeStoreSize(type).getKnownMinValue() > uint64_t(s) || dl_.getTypeStoreSize(type).isScalable())
    return false;
  *element = c + k / s;
  *scale = uint64_t(s);
  return true;
}

// Fused regions. Region `region` ends at barrier region + 1, after which
// region + 1 runs. In a one-row workgroup the two can run as one loop over
// the items when an order of the items keeps every pair of conflicting
// group-memory accesses (region's of item j, region + 1's of item i != j,
// one of them a store) in the order the barrier gave them: j before i.
// With both addresses base + scale * (x + e) (group_element), the
// constants small and x below kMaxWorkgroupItems, the two touch one
// element only when x_j + e_a = x_i + e_b (a zero extension's 2^32 cannot
// be made up by the small constants): x_j - x_i = e_b - e_a = d. So d > 0
// asks for descending x, d < 0 for ascending, d = 0 is the item itself
// (region before region + 1 in its own iteration). Hillis-Steele's
// `left = v[x - off]; barrier; v[x] += left` has d = off > 0: descending.
// Conservative: both regions do nothing but arithmetic, simple loads and
// stores of group memory and of the item's own stack, and loads of the
// kernarg and the workgroup record (no calls, atomics, volatile accesses
// or global memory); neither narrows its x loop (x_bound); region + 1
// does not loop back to its own barrier. Returns the order (or
// kNoFusion) and puts in *scalars the per-item slots that only carry a
// value from region to region + 1 (every path through region stores
// them, only region + 1 loads them): in the fused loop they are one
// scalar each. For a descending order whose conflicting pairs all have
// one distance d, *split is d (else 0): the items below d read nothing a
// later item writes (Hillis-Steele's `lid >= off` guard), and the fused
// loop is split there (fold_x_compares).
unsigned WorkItemLoops::fusion_order(unsigned region, SmallPtrSetImpl<AllocaInst*>* scalars, uint32_t* split) {
  *split = 0;
  const unsigned next = region + 1;
  if (next >= regions_.size() || region_exits_[region] != next || region_exits_[next] == kExitsMixed ||
      region_exits_[next] == next || !aggregates_.empty() || x_bound(region) || x_bound(next))
    return kNoFusion;
  for (BasicBlock* block : regions_[region])
    if (regions_[next].contains(block)) return kNoFusion;
  struct Access {
    int64_t element;
    uint64_t scale;
    bool store;
  };
  std::vector<Access> accesses[2];
  for (unsigned half = 0; half < 2; ++half)
    for (BasicBlock* block : regions_[region + half])
      for (Instruction& inst : *block) {
        Value* ptr = nullptr;
        Type* type = nullptr;
        bool store = false;
        if (auto* load = dyn_cast<LoadInst>(&inst)) {
          if (!load->isSimple()) return kNoFusion;
          ptr = load->getPointerOperand();
          type = load->getType();
        } else if (auto* st = dyn_cast<StoreInst>(&inst)) {
          if (!st->isSimple()) return kNoFusion;
          ptr = st->getPointerOperand();
          type = st->getValueOperand()->getType();
          store = true;
        } else if (is_call_to(inst, kLocalIdMarker)) {
          continue;
        } else if (inst.mayReadOrWriteMemory() || inst.mayHaveSideEffects()) {
          return kNoFusion;
        } else {
          continue;
        }
        if (isa<AllocaInst>(getUnderlyingObject(ptr, /*MaxLookup=*/0))) continue;  // the item's own stack
        if (on_group_segment(ptr)) {
          Access access{0, 0, store};
          if (!group_element(ptr, type, &access.element, &access.scale)) return kNoFusion;
          accesses[half].push_back(access);
          continue;
        }
        const Value* object = getUnderlyingObject(ptr, /*MaxLookup=*/0);
        if (store || (object != kernarg() && object != workgroup())) return kNoFusion;
      }
  bool ascending = false;
  bool descending = false;
  int64_t distance = 0;  // one distance of every descending pair, or -1
  for (const Access& a : accesses[0])
    for (const Access& b : accesses[1]) {
      if (!a.store && !b.store) continue;
      if (a.scale != b.scale) return kNoFusion;
      if (b.element > a.element) {
        descending = true;
        const int64_t d = b.element - a.element;
        distance = distance == 0 || distance == d ? d : -1;
      }
      if (b.element < a.element) ascending = true;
    }
  if (ascending && descending) return kNoFusion;
  if (descending && distance > 0 && distance < int64_t(kMaxWorkgroupItems)) *split = uint32_t(distance);

  // The per-item slots that only carry a value across this barrier.
  for (AllocaInst* alloca : per_item_) {
    if (auto* size = dyn_cast<ConstantInt>(alloca->getArraySize()); !size || !size->isOne()) continue;
    SmallPtrSet<BasicBlock*, 4> stores;
    bool carries = !alloca->use_empty();
    for (User* user : alloca->users()) {
      auto* load = dyn_cast<LoadInst>(user);
      auto* store = dyn_cast<StoreInst>(user);
      if (load && regions_[next].contains(load->getParent())) continue;
      if (store && store->getPointerOperand() == alloca && regions_[region].contains(store->getParent())) {
        stores.insert(store->getParent());
        continue;
      }
      carries = false;
    }
    if (!carries || stores.empty()) continue;
    // Every way from the region's start to its barrier passes a store.
    std::vector<BasicBlock*> stack;
    SmallPtrSet<BasicBlock*, 16> visited;
    if (!stores.count(region_starts_[region])) stack.push_back(region_starts_[region]);
    visited.insert(region_starts_[region]);
    bool unstored = false;
    while (!stack.empty() && !unstored) {
      BasicBlock* block = stack.back();
      stack.pop_back();
      for (BasicBlock* succ : successors(block)) {
        if (succ == barrier_blocks_[region]) unstored = true;
        if (regions_[region].contains(succ) && !stores.count(succ) && visited.insert(succ).second)
          stack.push_back(succ);
      }
    }
    if (!unstored) scalars->insert(alloca);
  }
  return descending ? kFuseDescending : kFuseAscending;
}

// Group indices of a fused loop. Its accesses index group memory with
// ext(x + c) (group_element), which scalar evolution can only take for an
// affine function of the item counter under a run-time no-wrap assumption;
// the loop vectoriser then cannot see the constant distance between the
// read and the written elements and guards its wide loop with an overlap
// check that always fails (Hillis-Steele's ranges overlap by design).
// Each such index operand of an in-bounds GEP becomes x64 + c, with x64
// the fused loop's i64 item counter: equal where x + c does not wrap, and
// where it wraps the original address lies 2^32 elements away, outside
// the group segment (far smaller), so the in-bounds GEP was poison and
// the access undefined. Runs on a fused nest's clones before the local id
// markers are replaced.
void WorkItemLoops::widen_group_indices(BasicBlock* block, Value* x64) {
  for (Instruction& inst : *block) {
    Value* ptr = nullptr;
    if (auto* load = dyn_cast<LoadInst>(&inst)) ptr = load->getPointerOperand();
    else if (auto* store = dyn_cast<StoreInst>(&inst)) ptr = store->getPointerOperand();
    if (!ptr || !on_group_segment(ptr)) continue;
    for (unsigned depth = 0; depth < 8; ++depth) {
      auto* gep = dyn_cast<GetElementPtrInst>(ptr);
      if (!gep) break;
      for (Use& index : gep->indices()) {
        int64_t c = 0;
        if (isa<Constant>(index) || !index->getType()->isIntegerTy(64) || !gep->isInBounds() ||
            !local_x_plus(index, &c))
          continue;
        IRBuilder<> ib(gep);
        index.set(ib.CreateAdd(x64, ib.getInt64(c), "xgpu.x.index", /*HasNUW=*/false, /*HasNSW=*/true));
      }
      ptr = gep->getPointerOperand();
    }
  }
}

// Compares of the local id x with a constant, in a copy of a fused loop
// that only runs the items low..high: those the range decides become
// constants (the split fused loop's `lid >= off` guards), so neither copy
// keeps the branch (a masked load once vectorised). Runs before the local
// id markers are replaced.
void WorkItemLoops::fold_x_compares(BasicBlock* block, uint32_t low, uint32_t high) {
  for (Instruction& inst : *block) {
    auto* compare = dyn_cast<ICmpInst>(&inst);
    if (!compare) continue;
    for (unsigned side = 0; side < 2; ++side) {
      Value* id = compare->getOperand(side);
      auto* constant = dyn_cast<ConstantInt>(compare->getOperand(1 - side));
      if (isa<ZExtInst>(id)) id = cast<ZExtInst>(id)->getOperand(0);
      auto* call = dyn_cast<CallInst>(id);
      if (!constant || !call || !is_call_to(*call, kLocalIdMarker) || !isa<ConstantInt>(call->getArgOperand(0)) ||
          !cast<ConstantInt>(call->getArgOperand(0))->isZero())
        continue;
      const unsigned bits = constant->getBitWidth();
      const ConstantRange x(APInt(bits, low), APInt(bits, uint64_t(high) + 1));
      const ConstantRange other(constant->getValue());
      const CmpInst::Predicate pred = side == 0 ? compare->getPredicate() : compare->getSwappedPredicate();
      if (ConstantRange::makeSatisfyingICmpRegion(pred, other).contains(x))
        compare->replaceAllUsesWith(ConstantInt::getTrue(compare->getType()));
      else if (ConstantRange::makeSatisfyingICmpRegion(CmpInst::getInversePredicate(pred), other).contains(x))
        compare->replaceAllUsesWith(ConstantInt::getFalse(compare->getType()));
      break;
    }
  }
}

// Combined tail atomics. An atomic add that is the last thing its work
// item does (result unused, relaxed, nothing after it on any path of the
// item but return) may be performed at any later point before the kernel
// completes: that is what would happen if the item simply ran later, and
// nothing the item does afterwards can order anything after it. The
// language gives workgroups no forward-progress guarantee towards each
// other, so "later" may be the end of the run of workgroups the call
// runs. Two deferred adds to one address then equal one add of their sum.
// When the address is the same for the items of one local id in every
// workgroup of a run (`&args->bins[lid]`: built from the kernarg, the
// local ids and the record fields a run shares), each item adds its
// operand to its local id's total instead, and the run's end makes one
// atomic add per local id whose total is not zero, with the add's
// ordering and scope: one atomic per bin per run instead of one per bin
// per workgroup.

// A value that the items of one local id compute alike in every workgroup
// of a run along x: made of the kernarg and its fields, the local ids,
// constants and the fields of the workgroup record that a run shares (all
// but workgroup_id[0], item_count[0] and the runtime's pointers).
bool WorkItemLoops::run_invariant(Value* value, unsigned depth) {
  if (isa<Constant>(value)) return true;
  if (isa<Argument>(value)) return value == kernarg();
  auto* inst = dyn_cast<Instruction>(value);
  if (!inst || depth == 0 || !rematerializable(inst, depth)) return false;
  if (is_call_to(*inst, kLocalIdMarker)) return isa<Constant>(cast<CallInst>(inst)->getArgOperand(0));
  if (auto* load = dyn_cast<LoadInst>(inst)) {
    uint64_t offset = 0;
    if (is_argument_field(load->getPointerOperand(), kernarg(), dl_, &offset)) return true;
    if (!is_argument_field(load->getPointerOperand(), workgroup(), dl_, &offset)) return false;
    const uint64_t end = offset + dl_.getTypeStoreSize(load->getType()).getFixedValue();
    return (offset >= kWorkgroupIdOffset + 4 && end <= kWorkgroupItemCountOffset) ||
           (offset >= kWorkgroupItemCountOffset + 4 && end <= kWorkgroupGroupSegmentOffset);
  }
  for (Value* operand : inst->operands())
    if (!run_invariant(operand, depth - 1)) return false;
  return true;
}

// Nothing follows `rmw` on any path of its item but instructions that
// neither touch memory nor have another effect, branches and return (a
// loop back to the add, a barrier or a call fails the test).
bool WorkItemLoops::tail(AtomicRMWInst* rmw) {
  if (!rmw->use_empty()) return false;
  std::vector<std::pair<BasicBlock*, BasicBlock::iterator>> work{
      {rmw->getParent(), std::next(rmw->getIterator())}};
  SmallPtrSet<BasicBlock*, 16> seen;
  while (!work.empty()) {
    auto [block, it] = work.back();
    work.pop_back();
    for (; it != block->end(); ++it) {
      Instruction& inst = *it;
      if (isa<ReturnInst>(inst) || isa<UnreachableInst>(inst)) break;
      if (isa<BranchInst>(inst) || isa<SwitchInst>(inst)) {
        for (BasicBlock* next : successors(&inst))
          if (seen.insert(next).second) work.push_back({next, next->begin()});
        break;
      }
      if (inst.isTerminator() || inst.mayReadOrWriteMemory() || inst.mayHaveSideEffects()) return false;
    }
  }
  return true;
}

// A copy of `value`'s operand tree that is in no block (rematerialize
// copies it where the run's end needs the address).
Value* WorkItemLoops::detach(Value* value) {
  auto* inst = dyn_cast<Instruction>(value);
  if (!inst) return value;
  Instruction* copy = inst->clone();
  for (unsigned i = 0; i < copy->getNumOperands(); ++i) copy->setOperand(i, detach(copy->getOperand(i)));
  detached_.push_back(copy);
  return copy;
}

// Finds the combinable tail atomics of a barrier kernel (see above) and
// turns each into an add to its local id's total.
void WorkItemLoops::combine_tails() {
  if (barrier_blocks_.empty() || !aggregates_.empty()) return;
  std::vector<AtomicRMWInst*> found;
  const bool escapes = group_escapes();
  for (BasicBlock& block : f_)
    for (Instruction& inst : block) {
      auto* rmw = dyn_cast<AtomicRMWInst>(&inst);
      if (rmw && rmw->getOperation() == AtomicRMWInst::Add && !rmw->isVolatile() &&
          rmw->getOrdering() == AtomicOrdering::Monotonic &&
          pointer_touch(rmw->getPointerOperand(), escapes) == Touch::kOther &&
          run_invariant(rmw->getPointerOperand(), kRematerializeDepth) && tail(rmw) &&
          found.size() < kMaxCombinedAtomics)
        found.push_back(rmw);
    }
  if (found.empty()) return;
  Type* i32 = Type::getInt32Ty(ctx_);
  FunctionCallee local_id =
      f_.getParent()->getOrInsertFunction(kLocalIdMarker, FunctionType::get(i32, {i32}, false));
  BasicBlock& entry = f_.getEntryBlock();
  IRBuilder<> eb(&entry, entry.getFirstInsertionPt());
  for (AtomicRMWInst* rmw : found) {
    Combine c{detach(rmw->getPointerOperand()), rmw->getOrdering(), rmw->getSyncScopeID(), rmw->getAlign(),
              rmw->getType()};
    c.totals = eb.CreateAlloca(c.type, eb.getInt32(uint32_t(kMaxWorkgroupItems)), "xgpu.combine.totals");
    shared_slots_.insert(c.totals);
    // The local id's slot: (z * item_count[1] + y) * workgroup_size[0] + x,
    // the same in every workgroup of the run (only the last may be
    // narrower along x).
    IRBuilder<> b(rmw);
    Value* id[3];
    for (unsigned d = 0; d < 3; ++d) {
      CallInst* call = b.CreateCall(local_id, {b.getInt32(d)});
      call->setDoesNotAccessMemory();
      id[d] = call;
    }
    Value* rows = b.CreateAlignedLoad(
        i32, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), workgroup(), kWorkgroupItemCountOffset + 4), Align(4));
    Value* width = b.CreateAlignedLoad(
        i32, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), workgroup(), kWorkgroupSizeOffset), Align(4));
    Value* index = b.CreateNUWAdd(b.CreateNUWMul(b.CreateNUWAdd(b.CreateNUWMul(id[2], rows), id[1]), width), id[0]);
    Value* slot = b.CreateInBoundsGEP(c.type, c.totals, b.CreateZExt(index, b.getInt64Ty()), "xgpu.combine.slot");
    Value* value = rmw->getValOperand();
    BasicBlock* block = rmw->getParent();
    rmw->eraseFromParent();
    // `if (c) atomic_add(p, v)` (a histogram's `if (bins[lid] != 0)`): the
    // total takes c ? v : 0 on every item instead, so that the item loop
    // widens with plain loads and stores of the totals rather than masked
    // ones (a third of histogram256's time). Done when the add's block is
    // one side of a branch and holds nothing but the add and what it
    // computes from the local ids, the kernarg and the record.
    BasicBlock* from = block->getSinglePredecessor();
    auto* branch = from ? dyn_cast<BranchInst>(from->getTerminator()) : nullptr;
    auto* value_inst = dyn_cast<Instruction>(value);
    bool hoist = branch && branch->isConditional() && branch->getSuccessor(0) != branch->getSuccessor(1) &&
                 (!value_inst || value_inst->getParent() != block);
    for (Instruction& inst : *block) {
      if (!hoist || inst.isTerminator()) break;
      uint64_t offset = 0;
      auto* load = dyn_cast<LoadInst>(&inst);
      hoist = is_call_to(inst, kLocalIdMarker) ||
              (load && load->isSimple() &&
               (load->getPointerOperand() == slot ||
                is_argument_field(load->getPointerOperand(), workgroup(), dl_, &offset) ||
                is_argument_field(load->getPointerOperand(), kernarg(), dl_, &offset))) ||
              isa<GetElementPtrInst>(inst) || isa<CastInst>(inst) || isa<CmpInst>(inst) || isa<SelectInst>(inst) ||
              (isa<BinaryOperator>(inst) && !inst.isIntDivRem()) ||
              (isa<StoreInst>(inst) && cast<StoreInst>(inst).getPointerOperand() == slot);
    }
    if (hoist) {
      IRBuilder<> hb(branch);
      // The condition under which the add's block runs: the branch's, or
      // its inverse (a compare's inverse predicate, which the accumulation
      // of group memory recognises: `v != 0`).
      Value* taken = branch->getCondition();
      if (branch->getSuccessor(0) != block) {
        auto* compare = dyn_cast<CmpInst>(taken);
        taken = compare ? hb.CreateCmp(compare->getInversePredicate(), compare->getOperand(0), compare->getOperand(1))
                        : hb.CreateNot(taken);
      }
      value = hb.CreateSelect(taken, value, Constant::getNullValue(value->getType()));
      while (&block->front() != block->getTerminator()) block->front().moveBefore(branch);
    }
    IRBuilder<> ab(hoist ? static_cast<Instruction*>(branch) : block->getTerminator());
    ab.CreateStore(ab.CreateAdd(ab.CreateLoad(c.type, slot), value), slot);
    combines_.push_back(c);
  }
}

// The combined atomics of a run, a function of their own (called once per
// run; the workgroup function keeps no atomic in its loops):
// K_xgpu_wi_.combine(kernarg, wg, first, length, slots, width, rows,
// totals...) makes one atomic add, with the original add's ordering and
// scope, per slot whose total is not zero, to the address the items of
// the slot's local ids added to. Those adds belong to the whole run,
// which `wg` names while they run (a fault in one reports the run).
Function* WorkItemLoops::combine_function() {
  Type* i32 = Type::getInt32Ty(ctx_);
  Type* ptr = PointerType::getUnqual(ctx_);
  std::vector<Type*> parameters{ptr, ptr, i32, i32, i32, i32, i32};
  for (size_t k = 0; k < combines_.size(); ++k) parameters.push_back(ptr);
  Function* function = Function::Create(FunctionType::get(Type::getVoidTy(ctx_), parameters, false),
                                        GlobalValue::InternalLinkage, f_.getName() + ".combine", f_.getParent());
  function->copyAttributesFrom(&f_);
  function->setAttributes(AttributeList::get(ctx_, AttributeList::FunctionIndex,
                                             f_.getAttributes().getFnAttrs()));
  function->addFnAttr(Attribute::NoInline);
  function->removeFnAttr(Attribute::AlwaysInline);
  function->removeFnAttr(Attribute::Convergent);
  // Nothing keeps the pointers it is given: the totals stay private to
  // the workgroup function as far as its alias analysis knows.
  for (unsigned arg = 0; arg < function->arg_size(); ++arg) {
    if (!function->getArg(arg)->getType()->isPointerTy()) continue;
    function->addParamAttr(arg, Attribute::NoCapture);
    if (arg != 1) function->addParamAttr(arg, Attribute::ReadOnly);
  }
  Argument* kernarg = function->getArg(0);
  Argument* wg = function->getArg(1);
  Argument* first = function->getArg(2);
  Argument* length = function->getArg(3);
  Argument* slots = function->getArg(4);
  Argument* width = function->getArg(5);
  Argument* rows = function->getArg(6);
  BasicBlock* entry = BasicBlock::Create(ctx_, "entry", function);
  IRBuilder<> b(entry);
  b.CreateAlignedStore(first, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), wg, kWorkgroupIdOffset), Align(4),
                       /*isVolatile=*/true);
  b.CreateAlignedStore(length, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), wg, kWorkgroupRunOffset), Align(4),
                       /*isVolatile=*/true);
  BasicBlock* loop = BasicBlock::Create(ctx_, "slot", function);
  b.CreateBr(loop);
  b.SetInsertPoint(loop);
  PHINode* slot = b.CreatePHI(i32, 2, "slot");
  slot->addIncoming(b.getInt32(0), entry);
  BasicBlock* current = loop;
  for (size_t k = 0; k < combines_.size(); ++k) {
    Combine& c = combines_[k];
    Value* total =
        b.CreateLoad(c.type, b.CreateInBoundsGEP(c.type, function->getArg(7 + unsigned(k)), b.CreateZExt(slot, b.getInt64Ty())));
    BasicBlock* add = BasicBlock::Create(ctx_, "add", function);
    BasicBlock* after = BasicBlock::Create(ctx_, "next", function);
    b.CreateCondBr(b.CreateICmpNE(total, Constant::getNullValue(c.type)), add, after);
    // The slot's local ids, and the address the items of those ids add to.
    IRBuilder<> ab(add);
    Value* x = ab.CreateURem(slot, width);
    Value* yz = ab.CreateUDiv(slot, width);
    Value* y = ab.CreateURem(yz, rows);
    Value* z = ab.CreateUDiv(yz, rows);
    Instruction* at = ab.CreateBr(after);
    Value* pointer = rematerialize(c.pointer, at);
    for (auto it = add->begin(); it != add->end();) {
      Instruction& inst = *it++;
      inst.replaceUsesOfWith(f_.getArg(0), kernarg);
      inst.replaceUsesOfWith(f_.getArg(1), wg);
      if (!is_call_to(inst, kLocalIdMarker)) continue;
      Value* d = cast<CallInst>(inst).getArgOperand(0);
      IRBuilder<> ib(&inst);
      inst.replaceAllUsesWith(ib.CreateSelect(
          ib.CreateICmpEQ(d, ib.getInt32(0)), x,
          ib.CreateSelect(ib.CreateICmpEQ(d, ib.getInt32(1)), y,
                          ib.CreateSelect(ib.CreateICmpEQ(d, ib.getInt32(2)), z, ib.getInt32(0)))));
      inst.eraseFromParent();
    }
    if (pointer == f_.getArg(0)) pointer = kernarg;
    IRBuilder<>(at).CreateAtomicRMW(AtomicRMWInst::Add, pointer, total, c.align, c.ordering, c.scope);
    b.SetInsertPoint(after);
    current = after;
  }
  Value* next = b.CreateNUWAdd(slot, b.getInt32(1));
  slot->addIncoming(next, current);
  BasicBlock* done = BasicBlock::Create(ctx_, "done", function);
  b.CreateCondBr(b.CreateICmpULT(next, slots), loop, done);
  ReturnInst::Create(ctx_, done);
  for (Instruction* inst : detached_) inst->dropAllReferences();
  for (Instruction* inst : detached_) inst->deleteValue();
  detached_.clear();
  return function;
}

// Group memory kept across the workgroups of a run: a barrier kernel of
// three regions, the shape of a groupshared histogram (or any per-slot
// count: zero, add, flush), whose tail adds are combined (combine_tails):
//   region 0 (one block, every item): group[x + e] = 0, and nothing else
//     that touches memory or calls (loads of the kernarg and the record
//     aside): later workgroups skip it;
//   region 1: group memory only through integer atomic adds whose old value
//     is unused (any address);
//   region 2: group memory only through loads of group[x + e] (the element
//     region 0 zeroed), no effect but the combined totals' updates, each in
//     the region's first block and adding the loaded value v itself or
//     `v != 0 ? v : 0`, no other load but of the kernarg, the record and
//     the totals (only the run's last workgroup runs it);
//   no per-item slots (a skipped region would leave one stale).
// The run's workgroups then zero only once and read the slots only once:
// the first runs region 0, the last region 2, and in between group memory
// keeps the counts of the run so far. Region 2's total over the run is the
// same (a sum of each workgroup's slot is the slot of the summed adds:
// integer adds wrap, associative and commutative), and nothing else reads
// the slots: region 1's adds return nothing anyone reads. Only for runs of
// full one-row workgroups, decided per call (every workgroup zeroes the
// same slots then).
bool WorkItemLoops::plan_accumulation() {
  if (!combining() || !aggregates_.empty() || needs_dispatch() || !per_item_.empty()) return false;
  if (regions_.size() != 3 || region_exits_[0] != 1 || region_exits_[1] != 2 || region_exits_[2] != kExitsReturn)
    return false;
  if (regions_[0].size() != 1) return false;
  SmallPtrSet<const Value*, 4> totals;
  for (const Combine& c : combines_) totals.insert(c.totals);
  auto on_totals = [&](Value* ptr) { return totals.count(getUnderlyingObject(ptr, 0)) != 0; };
  // A group pointer kept in memory, passed to a call or made into an
  // integer could reach the bins where no analysis sees it.
  if (group_escapes()) return false;
  bool zeroed = false;
  int64_t element = 0;
  uint64_t scale = 0;
  Type* type = nullptr;
  SmallPtrSet<Value*, 4> slot_loads;  // region 2's loads of the zeroed slot
  std::vector<StoreInst*> updates;    // region 2's stores to the totals
  for (unsigned r = 0; r < 3; ++r)
    for (BasicBlock* block : regions_[r])
      for (Instruction& inst : *block) {
        // With no group pointer escaping (above), an access touches group
        // memory, other memory, or both, and the analysis knows which.
        const Touch touch = access_touch(inst, /*escapes=*/false);
        if (touch == Touch::kUnknown) return false;
        if (isa<CallBase>(inst)) {
          if (is_call_to(inst, kLocalIdMarker)) continue;
          // Region 0 is skipped by later workgroups: it makes no calls;
          // region 2 (the last only) none that touch memory; region 1 none
          // that touch group memory.
          if (r == 0 || (r == 2 && touch != Touch::kNone) || touch == Touch::kGroup) return false;
          continue;
        }
        if (touch == Touch::kNone) continue;
        Value* ptr = getLoadStorePointerOperand(&inst);
        if (auto* rmw = dyn_cast<AtomicRMWInst>(&inst)) ptr = rmw->getPointerOperand();
        else if (auto* cmpxchg = dyn_cast<AtomicCmpXchgInst>(&inst)) ptr = cmpxchg->getPointerOperand();
        if (!ptr) return false;
        if (r == 1) {
          // Group memory only through the lowered adds whose result nobody reads.
          if (touch == Touch::kGroup && !group_adds_.count(&inst)) return false;
          continue;
        }
        if (r == 2 && inst.mayWriteToMemory()) {
          auto* store = dyn_cast<StoreInst>(&inst);
          if (!store || !store->isSimple() || !on_totals(ptr) || block != region_starts_[2]) return false;
          updates.push_back(store);
          continue;
        }
        if (touch == Touch::kOther) {
          // Regions 0 and 2 read only the kernarg, the record and (region
          // 2) the totals, which cannot fault (a load that could would
          // fault only in one workgroup of a run).
          uint64_t offset = 0;
          auto* load = dyn_cast<LoadInst>(&inst);
          if (!load || !load->isSimple() ||
              !(is_argument_field(ptr, kernarg(), dl_, &offset) || is_argument_field(ptr, workgroup(), dl_, &offset) ||
                (r == 2 && on_totals(ptr))))
            return false;
          continue;
        }
        int64_t e = 0;
        uint64_t k = 0;
        if (r == 0) {
          auto* store = dyn_cast<StoreInst>(&inst);
          auto* zero = store ? dyn_cast<Constant>(store->getValueOperand()) : nullptr;
          if (zeroed || !store || !store->isSimple() || !zero || !zero->isNullValue() ||
              !zero->getType()->isIntegerTy() ||
              !group_element(ptr, zero->getType(), &element, &scale))
            return false;
          zeroed = true;
          type = zero->getType();
          continue;
        }
        auto* load = dyn_cast<LoadInst>(&inst);
        if (!load || !load->isSimple() || !zeroed || load->getType() != type || !group_element(ptr, type, &e, &k) ||
            e != element || k != scale)
          return false;
        slot_loads.insert(load);
      }
  if (!zeroed || updates.empty()) return false;
  // Each update adds v or `v != 0 ? v : 0` (v a load of the slot) to what
  // it loaded from the same total.
  auto slot_value = [&](Value* value) {
    if (slot_loads.count(value)) return true;
    Value* v = nullptr;
    ICmpInst::Predicate predicate;
    if (match(value, PatternMatch::m_Select(
                         PatternMatch::m_ICmp(predicate, PatternMatch::m_Value(v), PatternMatch::m_Zero()),
                         PatternMatch::m_Deferred(v), PatternMatch::m_Zero())))
      return predicate == ICmpInst::ICMP_NE && slot_loads.count(v) != 0;
    if (match(value, PatternMatch::m_Select(
                         PatternMatch::m_ICmp(predicate, PatternMatch::m_Value(v), PatternMatch::m_Zero()),
                         PatternMatch::m_Zero(), PatternMatch::m_Deferred(v))))
      return predicate == ICmpInst::ICMP_EQ && slot_loads.count(v) != 0;
    return false;
  };
  for (StoreInst* update : updates) {
    auto* add = dyn_cast<BinaryOperator>(update->getValueOperand());
    if (!add || add->getOpcode() != Instruction::Add) return false;
    bool ok = false;
    for (unsigned i = 0; i < 2 && !ok; ++i) {
      auto* previous = dyn_cast<LoadInst>(add->getOperand(i));
      ok = previous && previous->getPointerOperand() == update->getPointerOperand() &&
           slot_value(add->getOperand(1 - i));
    }
    if (!ok) return false;
  }
  return true;
}

// Follow the regions from region 0, which every item runs: while each has
// one way out, every item reaches the same barrier and the next region is
// known at build time. Only when a region with several ways out is reachable
// so do items need a state word, and the workgroup a dispatcher.
bool WorkItemLoops::needs_dispatch() const {
  std::vector<bool> seen(regions_.size());
  for (unsigned r = 0; !seen[r];) {
    seen[r] = true;
    if (region_exits_[r] == kExitsMixed) return true;
    if (region_exits_[r] == kExitsReturn) return false;
    r = region_exits_[r];
  }
  return false;
}

// The sized path (set_sized): the workgroup record's sizes and item counts
// are the required size's, and group memory is an array of the function,
// aligned as the runtime aligns the group segment; a shared slot, not a
// per-item one.
void WorkItemLoops::specialize_sized() {
  // The workgroup is full: its x range lies inside the grid. Said so that
  // the kernel's own item count (<xgpu/kernel.h>: the grid size less the
  // workgroup's first x id, at most the workgroup size) folds to the size.
  {
    IRBuilder<> b(&*f_.getEntryBlock().getFirstInsertionPt());
    Type* i32 = b.getInt32Ty();
    auto field = [&](uint64_t offset) {
      return b.CreateAlignedLoad(i32, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), workgroup(), offset), Align(4));
    };
    Value* left = b.CreateSub(field(kWorkgroupGridSizeOffset),
                              b.CreateMul(field(kWorkgroupIdOffset), b.getInt32(sized_x_)));
    b.CreateAssumption(b.CreateICmpUGE(left, b.getInt32(sized_x_)));
  }
  AllocaInst* group = nullptr;
  if (sized_group_bytes_) {
    IRBuilder<> b(&*f_.getEntryBlock().getFirstInsertionPt());
    group = b.CreateAlloca(ArrayType::get(b.getInt8Ty(), sized_group_bytes_), nullptr, "xgpu.group");
    group->setAlignment(Align(kGroupSegmentAlignment));
    shared_slots_.insert(group);
    group_alloca_ = group;
  }
  std::vector<LoadInst*> loads;
  for (BasicBlock& block : f_)
    for (Instruction& inst : block)
      if (auto* load = dyn_cast<LoadInst>(&inst)) loads.push_back(load);
  for (LoadInst* load : loads) {
    uint64_t offset = 0;
    if (!load->isSimple() || !is_argument_field(load->getPointerOperand(), workgroup(), dl_, &offset)) continue;
    Value* value = nullptr;
    if (offset == kWorkgroupGroupSegmentOffset && load->getType()->isPointerTy()) {
      value = group;
    } else if (load->getType()->isIntegerTy(32)) {
      for (uint64_t base : {kWorkgroupSizeOffset, kWorkgroupItemCountOffset})
        if (offset >= base && offset < base + 12 && (offset - base) % 4 == 0)
          value = ConstantInt::get(load->getType(), offset == base ? sized_x_ : 1);
    }
    if (!value) continue;
    load->replaceAllUsesWith(value);
    load->eraseFromParent();
  }
}

// The sized path's arrays (group memory, the per-item slots) are its own:
// no kernel buffer can alias them. Said with scoped no-alias metadata, so
// that the vectoriser adds no run-time overlap checks between them and the
// kernel's buffers (such a check compares their addresses as integers,
// after which no alias analysis can tell them apart, nor can SROA take the
// arrays into registers). An access whose every underlying object (through
// GEPs, casts, selects and phis) is one of the arrays gets the scope; one
// none of whose objects can be one gets the no-alias list: each object is
// another stack slot, a global or an argument, or — only when no array's
// address escapes (stored, passed to a call that may keep it, made into an
// integer: LLVM's capture tracking) — a pointer loaded from memory,
// returned by a call or made from an integer. Any other access (a group
// pointer read from a private table, one kept in a per-item slot across a
// barrier, one built from an integer) gets neither.
void WorkItemLoops::scope_sized_arrays(const SmallPtrSetImpl<Value*>& arrays) {
  bool escapes = false;
  for (Value* array : arrays)
    escapes = escapes || PointerMayBeCaptured(array, /*ReturnCaptures=*/true, /*StoreCaptures=*/true, kMaxCaptureUses);
  MDBuilder mdb(ctx_);
  MDNode* domain = mdb.createAnonymousAliasScopeDomain("xgpu.sized");
  MDNode* scope = mdb.createAnonymousAliasScope(domain, "xgpu.sized.arrays");
  MDNode* list = MDNode::get(ctx_, {scope});
  for (BasicBlock& block : f_)
    for (Instruction& inst : block) {
      Value* ptr = nullptr;
      if (auto* load = dyn_cast<LoadInst>(&inst)) ptr = load->getPointerOperand();
      else if (auto* store = dyn_cast<StoreInst>(&inst)) ptr = store->getPointerOperand();
      else if (auto* rmw = dyn_cast<AtomicRMWInst>(&inst)) ptr = rmw->getPointerOperand();
      else if (auto* cmpxchg = dyn_cast<AtomicCmpXchgInst>(&inst)) ptr = cmpxchg->getPointerOperand();
      if (!ptr) continue;
      SmallVector<const Value*, 4> objects;
      getUnderlyingObjects(ptr, objects, nullptr, /*MaxLookup=*/0);
      unsigned own = 0, apart = 0;
      for (const Value* object : objects) {
        if (arrays.count(const_cast<Value*>(object)))
          ++own;
        else if (isa<AllocaInst>(object) || isa<GlobalValue>(object) || isa<Argument>(object) ||
                 isa<ConstantPointerNull>(object) || !escapes)
          ++apart;
      }
      if (objects.empty()) continue;
      if (own == objects.size())
        inst.setMetadata(LLVMContext::MD_alias_scope, list);
      else if (apart == objects.size())
        inst.setMetadata(LLVMContext::MD_noalias, list);
    }
}

// Marks every loop of the sized path: no unrolling until the pass's last
// step (LateUnrollPass), which unrolls them in full.
void WorkItemLoops::mark_sized_loops() {
  DominatorTree dt(f_);
  LoopInfo li(dt);
  for (Loop* loop : li.getLoopsInPreorder()) {
    SmallVector<Metadata*, 4> operands{nullptr};
    if (MDNode* id = loop->getLoopID())
      for (unsigned i = 1; i < id->getNumOperands(); ++i) operands.push_back(id->getOperand(i));
    operands.push_back(MDNode::get(ctx_, {MDString::get(ctx_, kUnrollDisable)}));
    operands.push_back(MDNode::get(ctx_, {MDString::get(ctx_, kLateUnrollMarker)}));
    MDNode* id = MDNode::getDistinct(ctx_, operands);
    id->replaceOperandWith(0, id);
    loop->setLoopID(id);
  }
}

void WorkItemLoops::build() {
  Type* i32 = Type::getInt32Ty(ctx_);
  Type* i64 = Type::getInt64Ty(ctx_);
  BasicBlock* old_entry = &f_.getEntryBlock();
  std::vector<BasicBlock*> old_blocks;
  for (BasicBlock& block : f_) old_blocks.push_back(&block);

  BasicBlock* entry = BasicBlock::Create(ctx_, "xgpu.entry", &f_, old_entry);
  IRBuilder<> b(entry);
  for (AllocaInst* alloca : allocas_) alloca->moveBefore(*entry, entry->end());
  b.SetInsertPoint(entry);
  Value* counts[3];
  for (unsigned d = 0; d < 3; ++d)
    counts[d] = sized_x_ ? static_cast<Value*>(b.getInt32(d == 0 ? sized_x_ : 1))
                         : b.CreateAlignedLoad(i32,
                                               b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), workgroup(),
                                                                            kWorkgroupItemCountOffset + 4 * d),
                                               Align(4), "xgpu.items");
  Value* items = b.CreateNUWMul(b.CreateNUWMul(counts[0], counts[1]), counts[2]);
  Value* items64 = b.CreateZExt(items, i64);

  // Per-item slots: one array of the alloca's type per work item (of a
  // constant size on the sized path, where SROA can split it).
  DenseMap<AllocaInst*, AllocaInst*> arrays;
  DenseMap<AllocaInst*, Type*> item_types;
  for (AllocaInst* alloca : allocas_) {
    if (!per_item_.count(alloca)) continue;
    Type* element = alloca->getAllocatedType();
    if (auto* size = dyn_cast<ConstantInt>(alloca->getArraySize()); size && !size->isOne())
      element = ArrayType::get(element, size->getZExtValue());
    AllocaInst* array = sized_x_ ? b.CreateAlloca(ArrayType::get(element, sized_x_), nullptr, alloca->getName() + ".items")
                                 : b.CreateAlloca(element, items64, alloca->getName() + ".items");
    array->setAlignment(alloca->getAlign());
    arrays[alloca] = array;
    item_types[alloca] = element;
    item_arrays_.push_back(array);
  }
  const unsigned barrier_count = unsigned(barrier_blocks_.size());
  const bool dispatched = needs_dispatch();
  AllocaInst* state = dispatched ? b.CreateAlloca(i32, items64, "xgpu.state") : nullptr;

  // Where the workgroup ends: return, or the next workgroup of the run.
  BasicBlock* exit = BasicBlock::Create(ctx_, "xgpu.exit", &f_);
  if (!runs()) ReturnInst::Create(ctx_, exit);
  BasicBlock* dispatch = dispatched ? BasicBlock::Create(ctx_, "xgpu.dispatch", &f_) : exit;

  // Set by the dispatcher: every item waits at the barrier being resumed, so
  // its region's loop needs no per-item test (the loop is unswitched on it).
  AllocaInst* uniform_slot = dispatched ? b.CreateAlloca(b.getInt1Ty(), nullptr, "xgpu.uniform") : nullptr;

  std::vector<BasicBlock*> region_entries(regions_.size());
  for (unsigned r = 0; r < regions_.size(); ++r)
    region_entries[r] = BasicBlock::Create(ctx_, "xgpu.region" + Twine(r), &f_);
  b.SetInsertPoint(entry);
  for (Aggregate& a : aggregates_) b.CreateStore(Constant::getNullValue(a.type), a.running);
  // A run of workgroups along x (combined tail atomics): the regions run
  // once per workgroup; before each, `wg` names it (workgroup_id[0],
  // item_count[0], workgroup_run 1: volatile, so that a fault finds them
  // stored), and the per-item state is sized for the run's first, its
  // widest. Its local ids' totals start at zero.
  Value* run_first = nullptr;
  Value* run_length = nullptr;
  Value* slot_count = nullptr;
  Value* group_width = nullptr;
  PHINode* run_index = nullptr;
  BasicBlock* run_head = nullptr;
  Value* accumulating = nullptr;  // plan_accumulation's runs: this call's is one
  if (runs()) {
    auto field = [&](uint64_t offset) { return b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), workgroup(), offset); };
    run_first = b.CreateAlignedLoad(i32, field(kWorkgroupIdOffset), Align(4), "xgpu.run.first");
    Value* length = b.CreateAlignedLoad(i32, field(kWorkgroupRunOffset), Align(4));
    run_length = b.CreateBinaryIntrinsic(Intrinsic::umax, length, b.getInt32(1), nullptr, "xgpu.run.length");
    group_width = b.CreateAlignedLoad(i32, field(kWorkgroupSizeOffset), Align(4), "xgpu.run.width");
    Value* grid_width = b.CreateAlignedLoad(i32, field(kWorkgroupGridSizeOffset), Align(4));
    if (accumulate_) {
      // Every workgroup of the run full along x, one row each.
      Value* end = b.CreateNUWMul(b.CreateNUWAdd(b.CreateZExt(run_first, i64), b.CreateZExt(run_length, i64)),
                                  b.CreateZExt(group_width, i64));
      accumulating = b.CreateAnd(b.CreateICmpULE(end, b.CreateZExt(grid_width, i64)),
                                 b.CreateICmpEQ(b.CreateOr(counts[1], counts[2]), b.getInt32(1)), "xgpu.accumulate");
    }
    slot_count = b.CreateNUWMul(b.CreateNUWMul(group_width, counts[1]), counts[2], "xgpu.combine.slots");
    b.CreateAlignedStore(b.getInt32(1), field(kWorkgroupRunOffset), Align(4), /*isVolatile=*/true);
    BasicBlock* before_run = entry;
    if (combining()) {
      // No workgroup has more items than the totals hold (the runtime's
      // limit); a runtime that broke it would get a trap, not a stack smash.
      BasicBlock* too_big = BasicBlock::Create(ctx_, "xgpu.combine.too_big", &f_);
      BasicBlock* zero = BasicBlock::Create(ctx_, "xgpu.combine.zero", &f_);
      b.CreateCondBr(b.CreateICmpUGT(slot_count, b.getInt32(uint32_t(kMaxWorkgroupItems))), too_big, zero);
      IRBuilder<> tb(too_big);
      tb.CreateIntrinsic(Intrinsic::trap, {}, {});
      tb.CreateUnreachable();
      b.SetInsertPoint(zero);
      PHINode* slot = b.CreatePHI(i32, 2, "xgpu.combine.zero.slot");
      slot->addIncoming(b.getInt32(0), entry);
      for (Combine& c : combines_)
        b.CreateStore(Constant::getNullValue(c.type), b.CreateInBoundsGEP(c.type, c.totals, b.CreateZExt(slot, i64)));
      Value* next_slot = b.CreateNUWAdd(slot, b.getInt32(1));
      slot->addIncoming(next_slot, zero);
      before_run = zero;
      run_head = BasicBlock::Create(ctx_, "xgpu.run", &f_);
      b.CreateCondBr(b.CreateICmpULT(next_slot, slot_count), zero, run_head);
    } else {
      run_head = BasicBlock::Create(ctx_, "xgpu.run", &f_);
      b.CreateBr(run_head);
    }
    b.SetInsertPoint(run_head);
    run_index = b.CreatePHI(i32, 2, "xgpu.run.index");
    run_index->addIncoming(b.getInt32(0), before_run);
    Value* group = b.CreateNUWAdd(run_first, run_index, "xgpu.run.group");
    Value* left = b.CreateSub(b.CreateZExt(grid_width, i64),
                              b.CreateNUWMul(b.CreateZExt(group, i64), b.CreateZExt(group_width, i64)));
    Value* width = b.CreateTrunc(
        b.CreateBinaryIntrinsic(Intrinsic::umin, left, b.CreateZExt(group_width, i64)), i32, "xgpu.run.items");
    b.CreateAlignedStore(group, field(kWorkgroupIdOffset), Align(4), /*isVolatile=*/true);
    b.CreateAlignedStore(width, field(kWorkgroupItemCountOffset), Align(4), /*isVolatile=*/true);
    counts[0] = width;
    items64 = b.CreateZExt(b.CreateNUWMul(b.CreateNUWMul(width, counts[1]), counts[2]), i64);
  }
  if (sized_path_) {
    // A workgroup of the kernel's required size, in full (not at the grid's
    // edge), without dynamic group memory runs the sized path.
    auto field = [&](uint64_t offset) {
      return b.CreateAlignedLoad(i32, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), workgroup(), offset), Align(4));
    };
    Value* sized = b.CreateICmpEQ(counts[0], b.getInt32(sized_path_x_));
    sized = b.CreateAnd(sized, b.CreateICmpEQ(b.CreateOr(counts[1], counts[2]), b.getInt32(1)));
    sized = b.CreateAnd(sized, b.CreateICmpEQ(field(kWorkgroupSizeOffset), b.getInt32(sized_path_x_)));
    sized = b.CreateAnd(sized, b.CreateICmpEQ(b.CreateOr(field(kWorkgroupSizeOffset + 4), field(kWorkgroupSizeOffset + 8)),
                                              b.getInt32(1)));
    sized = b.CreateAnd(sized, b.CreateICmpEQ(field(kWorkgroupGroupSegmentSizeOffset),
                                              b.getInt32(sized_path_group_bytes_)), "xgpu.sized");
    BasicBlock* call = BasicBlock::Create(ctx_, "xgpu.sized.call", &f_);
    b.CreateCondBr(sized, call, region_entries[0]);
    IRBuilder<> cb(call);
    cb.CreateCall(sized_path_, {kernarg(), workgroup()});
    cb.CreateBr(exit);
  } else if (accumulating) {
    // Group memory keeps the run's counts: only its first workgroup zeroes.
    Value* later = b.CreateICmpNE(run_index, b.getInt32(0));
    b.CreateCondBr(b.CreateAnd(accumulating, later), region_entries[1], region_entries[0]);
  } else {
    b.CreateBr(region_entries[0]);
  }

  // Pairs of regions that one-row workgroups run as one loop (fusion_order),
  // taken from the first region on; a region fused with the one before it
  // starts no pair. The slots that only carry a value into the second
  // region are one scalar each there (mem2reg makes them registers).
  // The fused loop counts its items in i64 and indexes group memory with
  // that counter (widen_group_indices), and a descending one is split at
  // its distance (fold_x_compares), so the vectoriser sees the constant
  // distance between the elements read and written and widens it without
  // run-time overlap checks or masked loads: on scan256 half the time of
  // the two loops it replaces.
  std::vector<unsigned> fusions(regions_.size(), kNoFusion);
  std::vector<uint32_t> splits(regions_.size(), 0);
  std::vector<DenseMap<AllocaInst*, AllocaInst*>> fused_scalars(regions_.size());
  // (The sized path's unrolled loops need no fusion; a run that accumulates
  // group memory skips regions 0 and 2 on its own.)
  if (!dispatched && !sized_x_ && !accumulate_)
    for (unsigned r = 0; r + 1 < regions_.size(); ++r) {
      SmallPtrSet<AllocaInst*, 4> scalars;
      fusions[r] = fusion_order(r, &scalars, &splits[r]);
      if (fusions[r] == kNoFusion) continue;
      IRBuilder<> sb(entry, entry->getFirstInsertionPt());
      for (AllocaInst* alloca : scalars)
        fused_scalars[r][alloca] = sb.CreateAlloca(alloca->getAllocatedType(), nullptr, alloca->getName() + ".fused");
      ++r;
    }

  for (unsigned r = 0; r < regions_.size(); ++r) {
    const std::string region_tag = "r" + std::to_string(r);
    // Without state words, items that would only pass through to the
    // barrier need not run at all: the x loop stops at x_bound.
    const uint64_t bound = dispatched ? 0 : x_bound(r);
    // Replaced by the branch into the region's loop nest once it is built.
    Instruction* placeholder = new UnreachableInst(ctx_, region_entries[r]);
    Value* uniform = nullptr;
    if (r == 0 || !dispatched) {
      uniform = ConstantInt::getTrue(ctx_);
    } else {
      IRBuilder<> rb(placeholder);
      uniform = rb.CreateLoad(rb.getInt1Ty(), uniform_slot, "xgpu.uniform");
    }

    // Resuming the items that wait at an aggregated add: the one atomic add
    // of their total, whose old value they all add their offset to.
    for (Aggregate& a : aggregates_) {
      if (a.barrier != r) continue;
      IRBuilder<> ab(placeholder);
      Value* total = ab.CreateLoad(a.type, a.running, "xgpu.aggregate.total");
      Value* pointer = rematerialize(a.pointer, placeholder);
      AtomicRMWInst* add = ab.CreateAtomicRMW(AtomicRMWInst::Add, pointer, total, a.align, a.ordering, a.scope);
      ab.CreateStore(add, a.base);
      ab.CreateStore(Constant::getNullValue(a.type), a.running);
    }

    // A region run by every item whose only way out is one barrier (or
    // return) leaves every item there: the next region follows without the
    // dispatcher's scan.
    BasicBlock* done = dispatch;
    if (barrier_count && region_exits_[r] != kExitsMixed) {
      done = BasicBlock::Create(ctx_, region_tag + ".done", &f_);
      IRBuilder<> db(done);
      BasicBlock* next = region_exits_[r] == kExitsReturn ? exit : region_entries[region_exits_[r]];
      if (!dispatched && accumulating && r == 1) {
        // ... and only its last reads the slots into the totals.
        Value* more = db.CreateICmpNE(db.CreateNUWAdd(run_index, db.getInt32(1)), run_length);
        db.CreateCondBr(db.CreateAnd(accumulating, more), exit, next);
      } else if (!dispatched) {
        db.CreateBr(next);
      } else if (r == 0) {
        if (next != exit) db.CreateStore(db.getTrue(), uniform_slot);
        db.CreateBr(next);
      } else {
        db.CreateCondBr(uniform, next, dispatch);  // the uniform slot stays true
      }
    }

    // Emits the region's loop nest z { y { x { item } } }, bottom-tested
    // (every count is >= 1), with `x_count` items along x; returns its
    // first block. Its last z iteration goes to `done`.
    // With `fused` (a one-row nest only), the nest runs region r + 1 after
    // region r in each item's iteration, in that order of the items, and
    // its last iteration goes to `fused_done`; it runs the items low ..
    // x_count - 1 (descending: low is where it stops), of which high is
    // the largest there can be, and folds the compares of x that range
    // decides (fold_x_compares).
    auto emit_nest = [&](Value* x_count, Value* y_count, Value* z_count, const std::string& tag,
                         unsigned fused = kNoFusion, BasicBlock* fused_done = nullptr, uint32_t low = 0,
                         uint32_t high = kMaxWorkgroupItems - 1) -> BasicBlock* {
      const bool descending = fused == kFuseDescending;
      BasicBlock* zh = BasicBlock::Create(ctx_, tag + ".z", &f_);
      BasicBlock* yh = BasicBlock::Create(ctx_, tag + ".y", &f_);
      BasicBlock* xh = BasicBlock::Create(ctx_, tag + ".x", &f_);
      BasicBlock* xl = BasicBlock::Create(ctx_, tag + ".x.next", &f_);
      BasicBlock* yl = BasicBlock::Create(ctx_, tag + ".y.next", &f_);
      BasicBlock* zl = BasicBlock::Create(ctx_, tag + ".z.next", &f_);
      b.SetInsertPoint(zh);
      PHINode* z = b.CreatePHI(i32, 2, "xgpu.z");
      b.CreateBr(yh);
      b.SetInsertPoint(yh);
      PHINode* y = b.CreatePHI(i32, 2, "xgpu.y");
      y->addIncoming(b.getInt32(0), zh);
      Value* first_x = descending ? b.CreateSub(x_count, b.getInt32(1)) : b.getInt32(0);
      // A fused nest counts its items in i64 (widen_group_indices); x is
      // its truncation, exact (x < kMaxWorkgroupItems).
      Value* first_x64 = fused ? b.CreateZExt(first_x, i64) : nullptr;
      b.CreateBr(xh);  // x_count >= 1, as x_bound and the item counts are
      b.SetInsertPoint(xh);
      PHINode* x_phi = b.CreatePHI(fused ? i64 : i32, 2, fused ? "xgpu.x64" : "xgpu.x");
      x_phi->addIncoming(fused ? first_x64 : first_x, yh);
      Value* x = fused ? b.CreateTrunc(x_phi, i32, "xgpu.x", /*IsNUW=*/true, /*IsNSW=*/true) : x_phi;
      Value* row = b.CreateNUWAdd(b.CreateNUWMul(z, counts[1]), y);
      Value* linear = b.CreateZExt(b.CreateNUWAdd(b.CreateNUWMul(row, counts[0]), x), i64, "xgpu.item");

      ValueToValueMapTy map;
      for (auto& [alloca, array] : arrays)
        if (!fused || !fused_scalars[r].count(alloca))
          map[alloca] = b.CreateInBoundsGEP(item_types[alloca], array, linear, alloca->getName() + ".item");
      if (fused)
        for (auto& [alloca, scalar] : fused_scalars[r]) map[alloca] = scalar;
      Value* state_slot = state ? b.CreateInBoundsGEP(i32, state, linear, "xgpu.state.item") : nullptr;

      // Exits: to barrier k records k; a return records kStateReturned.
      for (BasicBlock* barrier : barrier_blocks_) {
        if (fused && barrier == barrier_blocks_[r]) continue;  // into region r + 1
        BasicBlock* leave = BasicBlock::Create(ctx_, tag + ".to.barrier" + Twine(barrier_index_[barrier]), &f_);
        if (state_slot) new StoreInst(ConstantInt::get(i32, barrier_index_[barrier]), state_slot, leave);
        BranchInst::Create(xl, leave);
        map[barrier] = leave;
      }
      std::vector<BasicBlock*> clones;
      for (unsigned part = r; part <= (fused ? r + 1 : r); ++part)
        for (BasicBlock* block : regions_[part]) {
          BasicBlock* clone = CloneBasicBlock(block, map, "." + tag, &f_);
          map[block] = clone;
          clones.push_back(clone);
        }
      if (fused) map[barrier_blocks_[r]] = map[region_starts_[r + 1]];
      if (r == 0 || !dispatched) {
        b.CreateBr(cast<BasicBlock>(map[region_starts_[r]]));
      } else {
        // Only the items waiting at this region's barrier run it.
        BasicBlock* test = BasicBlock::Create(ctx_, tag + ".x.test", &f_);
        b.CreateCondBr(uniform, cast<BasicBlock>(map[region_starts_[r]]), test);
        IRBuilder<> tb(test);
        Value* here = tb.CreateICmpEQ(tb.CreateAlignedLoad(i32, state_slot, Align(4)), tb.getInt32(r));
        tb.CreateCondBr(here, cast<BasicBlock>(map[region_starts_[r]]), xl);
      }
      for (BasicBlock* clone : clones)
        for (Instruction& inst : *clone) RemapInstruction(&inst, map, RF_NoModuleLevelChanges | RF_IgnoreMissingLocals);
      if (fused)
        for (BasicBlock* clone : clones) {
          widen_group_indices(clone, x_phi);
          fold_x_compares(clone, low, high);
        }
      for (BasicBlock* clone : clones) {
        for (auto it = clone->begin(); it != clone->end();) {
          Instruction& inst = *it++;
          if (is_call_to(inst, kLocalIdMarker)) {
            Value* d = cast<CallInst>(inst).getArgOperand(0);
            IRBuilder<> ib(&inst);
            Value* id = ib.CreateSelect(ib.CreateICmpEQ(d, ib.getInt32(0)), x,
                                        ib.CreateSelect(ib.CreateICmpEQ(d, ib.getInt32(1)), y,
                                                        ib.CreateSelect(ib.CreateICmpEQ(d, ib.getInt32(2)), z,
                                                                        ib.getInt32(0))));
            inst.replaceAllUsesWith(id);
            inst.eraseFromParent();
          } else if (isa<ReturnInst>(inst)) {
            IRBuilder<> ib(&inst);
            if (state_slot) ib.CreateAlignedStore(ib.getInt32(kStateReturned), state_slot, Align(4));
            ib.CreateBr(xl);
            inst.eraseFromParent();
          }
        }
      }

      b.SetInsertPoint(xl);
      if (descending) {
        Value* x1 = b.CreateSub(x_phi, b.getInt64(1));
        x_phi->addIncoming(x1, xl);
        b.CreateCondBr(b.CreateICmpNE(x_phi, b.getInt64(low)), xh, yl);
      } else if (fused) {
        Value* x1 = b.CreateNUWAdd(x_phi, b.getInt64(1));
        x_phi->addIncoming(x1, xl);
        b.CreateCondBr(b.CreateICmpULT(x1, b.CreateZExt(x_count, i64)), xh, yl);
      } else {
        Value* x1 = b.CreateNUWAdd(x_phi, b.getInt32(1));
        x_phi->addIncoming(x1, xl);
        b.CreateCondBr(b.CreateICmpULT(x1, x_count), xh, yl);
      }
      b.SetInsertPoint(yl);
      Value* y1 = b.CreateNUWAdd(y, b.getInt32(1));
      y->addIncoming(y1, yl);
      b.CreateCondBr(b.CreateICmpULT(y1, y_count), yh, zl);
      b.SetInsertPoint(zl);
      Value* z1 = b.CreateNUWAdd(z, b.getInt32(1));
      z->addIncoming(z1, zl);
      b.CreateCondBr(b.CreateICmpULT(z1, z_count), zh, fused ? fused_done : done);
      return zh;
    };

    IRBuilder<> rb(placeholder);
    // A one-row workgroup (1-D, the common case) runs a copy without the y
    // and z loops, whose latches and spilled counters cost each region a
    // few instructions more (measured on scan256: about 5 %).
    Value* one_row = rb.CreateICmpEQ(rb.CreateOr(counts[1], counts[2]), rb.getInt32(1), "xgpu.one_row");  // counts >= 1
    if (!bound) {
      // A fused pair (one-row workgroups only: items of other rows share
      // x) goes on to the region after region r + 1.
      BasicBlock* fused_done = nullptr;
      if (fusions[r] != kNoFusion) {
        fused_done = BasicBlock::Create(ctx_, region_tag + ".fused.done", &f_);
        const unsigned after = region_exits_[r + 1];
        BranchInst::Create(after == kExitsReturn ? exit : region_entries[after], fused_done);
      }
      BasicBlock* row_nest = nullptr;
      if (const uint32_t split = splits[r]) {
        // A descending fused pair split at its distance d: the items d ..
        // x_count - 1 (when there are such), then 0 .. min(x_count, d) - 1,
        // each copy with the compares of x its range decides folded.
        Value* low_count = rb.CreateBinaryIntrinsic(Intrinsic::umin, counts[0], rb.getInt32(split));
        BasicBlock* low_nest = emit_nest(low_count, rb.getInt32(1), rb.getInt32(1), region_tag + ".row.low",
                                         fusions[r], fused_done, 0, split - 1);
        BasicBlock* high_nest = emit_nest(counts[0], rb.getInt32(1), rb.getInt32(1), region_tag + ".row.high",
                                          fusions[r], low_nest, split);
        row_nest = BasicBlock::Create(ctx_, region_tag + ".row.split", &f_);
        IRBuilder<> sb(row_nest);
        sb.CreateCondBr(sb.CreateICmpUGT(counts[0], sb.getInt32(split)), high_nest, low_nest);
        cast<PHINode>(&high_nest->front())->addIncoming(sb.getInt32(0), row_nest);
        auto* low_z = cast<PHINode>(&low_nest->front());
        for (BasicBlock* pred : predecessors(low_nest))
          if (low_z->getBasicBlockIndex(pred) < 0) low_z->addIncoming(sb.getInt32(0), pred);
      } else {
        row_nest = emit_nest(counts[0], rb.getInt32(1), rb.getInt32(1), region_tag + ".row", fusions[r], fused_done);
        cast<PHINode>(&row_nest->front())->addIncoming(rb.getInt32(0), region_entries[r]);
      }
      BasicBlock* nest = emit_nest(counts[0], counts[1], counts[2], region_tag);
      cast<PHINode>(&nest->front())->addIncoming(rb.getInt32(0), region_entries[r]);
      rb.CreateCondBr(one_row, row_nest, nest);
      placeholder->eraseFromParent();
      continue;
    }
    // A region that only the items below the bound run: when the workgroup
    // is one row (1-D) of at least `bound` items (every full workgroup of a
    // kernel written for its size), the region is one x loop whose trip
    // count is the constant `bound`, so the optimiser unrolls a short loop
    // into straight-line code and vectorises a long one without a remainder
    // or runtime checks. Other workgroups (the grid's edge, a narrower
    // dispatch, several rows, where a constant x loop inside the y loop
    // invites the optimiser to keep group memory in registers across rows)
    // run the copy that stops at the item count.
    BasicBlock* wide = emit_nest(rb.getInt32(uint32_t(bound)), rb.getInt32(1), rb.getInt32(1), region_tag + ".const");
    BasicBlock* narrow = emit_nest(counts[0], counts[1], counts[2], region_tag);
    cast<PHINode>(&wide->front())->addIncoming(rb.getInt32(0), region_entries[r]);
    cast<PHINode>(&narrow->front())->addIncoming(rb.getInt32(0), region_entries[r]);
    Value* full = rb.CreateICmpUGE(counts[0], rb.getInt32(uint32_t(bound)));
    rb.CreateCondBr(rb.CreateAnd(one_row, full, "xgpu.x.full"), wide, narrow);
    placeholder->eraseFromParent();
  }

  if (dispatched) {
    // The next region is that of the lowest-numbered barrier an item waits
    // at (all items that have not returned wait at the same barrier in a
    // kernel that follows the language rules; others wait for a later
    // round). One pass over the state words, two reductions (vectorised):
    // the lowest and the highest state; every item waits at the same barrier
    // (none returned, none elsewhere) when they are equal.
    BasicBlock* scan = BasicBlock::Create(ctx_, "xgpu.dispatch.scan", &f_);
    BasicBlock* chosen = BasicBlock::Create(ctx_, "xgpu.dispatch.chosen", &f_);
    BasicBlock* resume = BasicBlock::Create(ctx_, "xgpu.dispatch.resume", &f_);
    b.SetInsertPoint(dispatch);
    b.CreateBr(scan);
    b.SetInsertPoint(scan);
    PHINode* i = b.CreatePHI(i64, 2, "xgpu.scan");
    PHINode* lowest = b.CreatePHI(i32, 2, "xgpu.scan.lowest");
    PHINode* highest = b.CreatePHI(i32, 2, "xgpu.scan.highest");
    i->addIncoming(b.getInt64(0), dispatch);
    lowest->addIncoming(b.getInt32(kStateReturned), dispatch);
    highest->addIncoming(b.getInt32(0), dispatch);
    Value* s = b.CreateAlignedLoad(i32, b.CreateInBoundsGEP(i32, state, i), Align(4));
    Value* lowest1 = b.CreateBinaryIntrinsic(Intrinsic::umin, lowest, s);
    Value* highest1 = b.CreateBinaryIntrinsic(Intrinsic::umax, highest, s);
    Value* i1 = b.CreateNUWAdd(i, b.getInt64(1));
    i->addIncoming(i1, scan);
    lowest->addIncoming(lowest1, scan);
    highest->addIncoming(highest1, scan);
    b.CreateCondBr(b.CreateICmpULT(i1, items64), scan, chosen);
    b.SetInsertPoint(chosen);
    b.CreateCondBr(b.CreateICmpEQ(lowest1, b.getInt32(kStateReturned)), exit, resume);
    b.SetInsertPoint(resume);
    b.CreateStore(b.CreateICmpEQ(lowest1, highest1), uniform_slot);
    SwitchInst* sw = b.CreateSwitch(lowest1, exit, barrier_count);
    for (unsigned k = 1; k <= barrier_count; ++k) sw->addCase(b.getInt32(k), region_entries[k]);
  }

  if (runs()) {
    // The run's end: the next workgroup, or the combined atomics.
    IRBuilder<> eb(exit);
    Value* next = eb.CreateNUWAdd(run_index, eb.getInt32(1));
    run_index->addIncoming(next, exit);
    BasicBlock* flush = BasicBlock::Create(ctx_, "xgpu.combine.flush", &f_);
    eb.CreateCondBr(eb.CreateICmpULT(next, run_length), run_head, flush);
    IRBuilder<> fb(flush);
    if (combining()) {
      std::vector<Value*> arguments{kernarg(), workgroup(), run_first, run_length, slot_count, group_width, counts[1]};
      for (Combine& c : combines_) arguments.push_back(c.totals);
      fb.CreateCall(combine_function(), arguments);
    }
    fb.CreateRetVoid();
  }

  for (BasicBlock* block : old_blocks) block->dropAllReferences();
  for (BasicBlock* block : old_blocks) block->eraseFromParent();
  for (auto& [alloca, array] : arrays) {
    alloca->replaceAllUsesWith(array);  // none left but dead ones
    alloca->eraseFromParent();
  }
}

bool WorkItemLoops::run(std::string* reason) {
  if (!check(reason)) return false;
  // Lifetime markers would land on per-item slots; they are only hints.
  // Scoped no-alias declarations (from inlining the kernel body into the
  // work-item function) would sit inside the item loops, where they keep
  // loads of the kernarg (a no-alias, read-only parameter once transformed)
  // from moving out of them; dropped with the metadata that names them.
  std::vector<Instruction*> hints;
  for (BasicBlock& block : f_)
    for (Instruction& inst : block) {
      auto* intrinsic = dyn_cast<IntrinsicInst>(&inst);
      if (intrinsic && (intrinsic->isLifetimeStartOrEnd() ||
                        intrinsic->getIntrinsicID() == Intrinsic::experimental_noalias_scope_decl)) {
        hints.push_back(intrinsic);
        continue;
      }
      inst.setMetadata(LLVMContext::MD_alias_scope, nullptr);
      inst.setMetadata(LLVMContext::MD_noalias, nullptr);
    }
  for (Instruction* inst : hints) inst->eraseFromParent();

  lower_group_segment_atomics();
  mark_global_ids();
  if (sized_x_) specialize_sized();
  // Barriers split blocks first, so that a value used on both sides of a
  // barrier in one original block is recomputed after it too.
  split_barriers();
  if (!sized_x_) combine_tails();  // the sized path runs one workgroup per call
  // Tail atomics combined across a run save more than the sized path's
  // registers (a histogram's bins are indexed by data: they stay in memory
  // on the sized path too): a kernel with them keeps the general loops.
  if (combining()) sized_path_ = nullptr;
  if (!recount_aggregates()) split_aggregates();
  rematerialize_uses();
  demote();
  find_regions();
  classify_allocas();
  // Per-item slots live on the stack of the thread that runs the workgroup
  // (worker threads: 8 MiB): bounded for the largest workgroup.
  uint64_t per_item_bytes = sizeof(uint32_t);  // the item's state word
  for (AllocaInst* alloca : per_item_)
    if (std::optional<TypeSize> size = alloca->getAllocationSize(dl_)) per_item_bytes += size->getFixedValue();
  if (per_item_bytes * kMaxWorkgroupItems > kMaxPerItemStackBytes) {
    *reason = "keeps " + std::to_string(per_item_bytes) + " bytes per work item across barriers, more than " +
              std::to_string(kMaxPerItemStackBytes / kMaxWorkgroupItems) + " (stack of a " +
              std::to_string(kMaxWorkgroupItems) + "-item workgroup)";
    return false;
  }
  accumulate_ = !sized_x_ && runs() && plan_accumulation();
  if (sized_x_ && (needs_dispatch() || !aggregates_.empty())) {
    *reason = "its regions need a dispatcher";
    return false;
  }
  build();
  if (sized_x_) {
    mark_sized_loops();
    SmallPtrSet<Value*, 8> arrays;
    if (group_alloca_) arrays.insert(group_alloca_);
    for (AllocaInst* array : item_arrays_) arrays.insert(array);
    scope_sized_arrays(arrays);
  }
  f_.removeFnAttr(Attribute::Convergent);
  return true;
}

// Recursion cannot be inlined away; such a kernel keeps fiber mode.
bool calls_itself(const Function& function) {
  for (const Instruction& inst : instructions(function))
    if (const auto* call = dyn_cast<CallBase>(&inst); call && call->getCalledFunction() == &function) return true;
  return false;
}

GlobalVariable* find_descriptor(Module& module, StringRef kernel) {
  const std::string name = (kernel + kDescriptorSuffix).str();
  if (GlobalVariable* gv = module.getGlobalVariable(name)) return gv;
  return module.getGlobalVariable(("\01" + name));
}

// Guard-free item loops. A bounds check on an item index, `if (i < n)` with
// i = start + item (an affine function of the item loop's counter, step 1,
// in any integer width, wrapping or not) and n the same on every item, is
// if-converted by the loop vectoriser into masked loads and stores, which
// are slow on many x86-64 CPUs. Each such check of an innermost loop is
// true on every iteration when start < n and the loop's last counter value
// is below n - start (no iteration can wrap then: start + k < n). The loop
// is versioned on that test: a copy whose checks are constant true, which
// widens without masks, runs when it holds (every full workgroup of a
// guarded kernel), the original loop otherwise (the grid's edge). Checks
// written as i >= n (an early return) fold to false in the copy; i != 0
// (`i > 0` on an unsigned id) is i - 1 < all ones. Checks of any other form
// are left as they are.
struct BoundCheck {
  ICmpInst* compare;  // i < n or i >= n, in either operand order
  const SCEV* start;  // i on the loop's first iteration
  const SCEV* bound;  // n, loop-invariant
  bool in_range;      // the compare is i < n (else i >= n)
};

bool match_zero(const Value* value) {
  const auto* constant = dyn_cast<ConstantInt>(value);
  return constant && constant->isZero();
}

// Whether `block` of `loop` is in none of its inner loops.
bool own_block(const Loop& loop, const BasicBlock* block) {
  for (const Loop* inner : loop)
    if (inner->contains(block)) return false;
  return true;
}

// Whether `loop` is one of <xgpu/kernel.h>'s item loops (its mark).
bool item_loop(const Loop& loop) {
  const MDNode* option = findOptionMDForLoopID(loop.getLoopID(), kItemLoopMarker);
  if (!option || option->getNumOperands() != 2) return false;
  const auto* value = mdconst::dyn_extract<ConstantInt>(option->getOperand(1));
  return value && value->getZExtValue() == kItemLoopMarkerValue;
}

// An item loop around exactly one inner loop, which is innermost and runs
// the same number of times for every item: what unroll-and-jam interleaves.
bool jam_candidate(Loop& loop, ScalarEvolution& se) {
  return item_loop(loop) && loop.getSubLoops().size() == 1 && loop.getSubLoops()[0]->isInnermost() &&
         hasIterationCountInvariantInParent(loop.getSubLoops()[0], se);
}

bool find_bound_checks(Loop& loop, ScalarEvolution& se, std::vector<BoundCheck>* out) {
  unsigned size = 0;
  for (BasicBlock* block : loop.blocks()) size += unsigned(block->size());
  for (BasicBlock* block : loop.blocks()) {
    if (!own_block(loop, block)) continue;  // an inner loop's checks are its own
    for (Instruction& inst : *block) {
      auto* compare = dyn_cast<ICmpInst>(&inst);
      if (!compare) continue;
      // The loop's own exit tests are not bounds checks.
      bool exits = false;
      for (User* user : compare->users()) {
        auto* user_inst = dyn_cast<Instruction>(user);
        exits |= !user_inst || !loop.contains(user_inst) ||
                 (user_inst->isTerminator() && loop.isLoopExiting(user_inst->getParent()));
      }
      if (exits) continue;
      // i < n (true in the copy) or its negation i >= n (false in the copy).
      Value* index = nullptr;
      Value* bound = nullptr;
      bool in_range = true;
      switch (compare->getPredicate()) {
        case ICmpInst::ICMP_UGE:
          in_range = false;
          [[fallthrough]];
        case ICmpInst::ICMP_ULT:
          index = compare->getOperand(0);
          bound = compare->getOperand(1);
          break;
        case ICmpInst::ICMP_ULE:
          in_range = false;
          [[fallthrough]];
        case ICmpInst::ICMP_UGT:
          index = compare->getOperand(1);
          bound = compare->getOperand(0);
          break;
        case ICmpInst::ICMP_EQ:
        case ICmpInst::ICMP_NE: {
          // i != 0 is i - 1 < all ones (`j > 0` on an unsigned id).
          in_range = compare->getPredicate() == ICmpInst::ICMP_NE;
          const bool zero_right = match_zero(compare->getOperand(1));
          if (!zero_right && !match_zero(compare->getOperand(0))) continue;
          Value* value = compare->getOperand(zero_right ? 0 : 1);
          if (!se.isSCEVable(value->getType())) continue;
          auto* rec = dyn_cast<SCEVAddRecExpr>(se.getSCEV(value));
          if (!rec || rec->getLoop() != &loop || !rec->isAffine() || !rec->getStepRecurrence(se)->isOne() ||
              !se.isLoopInvariant(rec->getStart(), &loop))
            continue;
          out->push_back({compare, se.getMinusSCEV(rec->getStart(), se.getOne(rec->getType())),
                          se.getMinusOne(rec->getType()), in_range});
          continue;
        }
        default:
          continue;
      }
      if (!se.isSCEVable(index->getType())) continue;
      const SCEV* bound_scev = se.getSCEV(bound);
      auto* rec = dyn_cast<SCEVAddRecExpr>(se.getSCEV(index));
      if (!rec || rec->getLoop() != &loop || !rec->isAffine() || !rec->getStepRecurrence(se)->isOne() ||
          !se.isLoopInvariant(bound_scev, &loop) || !se.isLoopInvariant(rec->getStart(), &loop))
        continue;
      out->push_back({compare, rec->getStart(), bound_scev, in_range});
    }
  }
  if (out->size() > kMaxVersionedChecks) out->resize(kMaxVersionedChecks);
  return !out->empty() && size <= kMaxVersionedLoopSize;
}

// Versions `loop` on its bound checks being true throughout (see above).
// Returns whether it did, and the guard-free copy in *copy_out.
bool version_bound_checks(Function& function, Loop& loop, LoopInfo& li, DominatorTree& dt, ScalarEvolution& se,
                          Loop** copy_out = nullptr) {
  if (!loop.isInnermost() && !jam_candidate(loop, se)) return false;
  std::vector<BoundCheck> checks;
  if (!find_bound_checks(loop, se, &checks)) return false;
  // A preheader of its own and dedicated exits (the loop may be entered
  // straight from the outer loop's check).
  simplifyLoop(&loop, &dt, &li, &se, nullptr, nullptr, /*PreserveLCSSA=*/false);
  BasicBlock* preheader = loop.getLoopPreheader();
  if (!preheader || !loop.isLoopSimplifyForm()) return false;
  const SCEV* last = se.getBackedgeTakenCount(&loop);  // the counter's last value
  if (isa<SCEVCouldNotCompute>(last)) return false;
  const DataLayout& dl = function.getParent()->getDataLayout();
  SCEVExpander expander(se, dl, "xgpu.split");
  Instruction* at = preheader->getTerminator();
  if (!expander.isSafeToExpandAt(last, at)) return false;
  for (const BoundCheck& check : checks)
    if (!expander.isSafeToExpandAt(check.start, at) || !expander.isSafeToExpandAt(check.bound, at)) return false;
  formLCSSARecursively(loop, dt, &li, &se);

  // The test, in a block of its own before the two loops.
  BasicBlock* test_block = preheader;
  preheader = SplitBlock(test_block, test_block->getTerminator(), &dt, &li, nullptr, "xgpu.split.ph");
  at = test_block->getTerminator();
  IRBuilder<> b(at);
  Value* all = b.getTrue();
  for (const BoundCheck& check : checks) {
    Value* start = expander.expandCodeFor(check.start, check.start->getType(), at);
    Value* bound = expander.expandCodeFor(check.bound, check.start->getType(), at);
    Type* wide = last->getType()->getIntegerBitWidth() > start->getType()->getIntegerBitWidth() ? last->getType()
                                                                                                  : start->getType();
    Value* count = expander.expandCodeFor(last, last->getType(), at);
    Value* below = b.CreateICmpULT(start, bound, "xgpu.split.start");
    Value* room = b.CreateZExt(b.CreateSub(bound, start), wide);
    Value* fits = b.CreateICmpULT(b.CreateZExt(count, wide), room, "xgpu.split.fits");
    all = b.CreateAnd(all, b.CreateAnd(below, fits));
  }
  expander.clear();

  // The guard-free copy, its exits joined to the original loop's.
  SmallVector<BasicBlock*, 8> exits;
  loop.getExitBlocks(exits);
  SmallVector<BasicBlock*, 8> exiting;
  loop.getExitingBlocks(exiting);
  ValueToValueMapTy map;
  SmallVector<BasicBlock*, 16> blocks;
  Loop* copy = cloneLoopWithPreheader(preheader, test_block, &loop, map, ".xgpu.nocheck", &li, &dt, blocks);
  remapInstructionsInBlocks(blocks, map);
  for (BasicBlock* exit : exits)
    for (PHINode& phi : exit->phis())
      for (BasicBlock* from : exiting)
        if (int index = phi.getBasicBlockIndex(from); index >= 0) {
          Value* value = phi.getIncomingValue(unsigned(index));
          Value* mapped = map.count(value) ? static_cast<Value*>(map[value]) : value;
          phi.addIncoming(mapped, cast<BasicBlock>(map[from]));
        }
  for (const BoundCheck& check : checks) {
    auto* copied = cast<ICmpInst>(map[check.compare]);
    copied->replaceAllUsesWith(ConstantInt::getBool(copied->getType(), check.in_range));
    copied->eraseFromParent();
  }
  // Branch between the two.
  Instruction* old = test_block->getTerminator();
  BranchInst::Create(copy->getLoopPreheader(), preheader, all, old->getIterator());
  old->eraseFromParent();
  dt.recalculate(function);
  if (copy_out) *copy_out = copy;
  return true;
}

// Unroll-and-jam of guard-free item loops. An item loop around one inner
// loop whose trip count is the same for every item (gemm's and atax's `k`
// loop: it depends only on the arguments) runs one item's inner loop after
// another: a float sum over `k` is one dependency chain per item, and the
// inner loop is what LLVM's vectoriser sees. Interleaving the inner loops of
// kJamCount items (unroll the item loop, jam the copies of the inner loop
// into one) gives each `k` iteration kJamCount independent chains, and loads
// that are the same for every item (a[row * n + k]) once. Each item's own
// operations keep their order (a sum is not reassociated: the floats stay
// the same); only operations of different items are interleaved, which
// their model allows: work items of a kernel are unordered but through
// atomics, and item loops with atomics, volatile accesses or calls are left
// alone. LLVM's LoopUnrollAndJamPass is not in clang's pipeline and proves
// that order free from dependence analysis, which fails on any two kernel
// buffers (they may alias); the pass knows it from the model and calls
// LLVM's UnrollAndJamLoop itself, on the loops <xgpu/kernel.h> marks as
// item loops (XGPU_KERNEL_ITEM_LOOP_) only, in their guard-free copy (the
// checks folded, the copy is straight-line code around the inner loop).

// Sets the integer option `name` of `loop` to `value`, in a loop ID of its
// own (a cloned loop shares its original's).
void set_loop_option(Loop& loop, StringRef name, uint64_t value) {
  LLVMContext& context = loop.getHeader()->getContext();
  SmallVector<Metadata*, 4> operands{nullptr};
  if (MDNode* id = loop.getLoopID())
    for (unsigned i = 1; i < id->getNumOperands(); ++i) {
      const auto* option = dyn_cast<MDNode>(id->getOperand(i));
      const auto* option_name =
          option && option->getNumOperands() > 0 ? dyn_cast<MDString>(option->getOperand(0)) : nullptr;
      if (!option_name || option_name->getString() != name) operands.push_back(id->getOperand(i));
    }
  Metadata* count = ConstantAsMetadata::get(ConstantInt::get(Type::getInt32Ty(context), value));
  operands.push_back(MDNode::get(context, {MDString::get(context, name), count}));
  MDNode* id = MDNode::getDistinct(context, operands);
  id->replaceOperandWith(0, id);
  loop.setLoopID(id);
}

// The name of loop ID option `operand` (an MDNode whose first operand is
// its name), or "".
StringRef option_name(const MDOperand& operand) {
  const auto* option = dyn_cast<MDNode>(operand);
  const auto* name = option && option->getNumOperands() > 0 ? dyn_cast<MDString>(option->getOperand(0)) : nullptr;
  return name ? name->getString() : StringRef();
}

// Replaces each loop ID of `function` for which `rewrite` returns options
// (nullopt: keep the ID) with a new distinct ID of those options: one new
// ID per old one, so that the latches of a loop keep sharing theirs.
// Returns whether it replaced any.
bool rewrite_loop_ids(Function& function,
                      function_ref<std::optional<SmallVector<Metadata*, 4>>(MDNode*)> rewrite) {
  DenseMap<MDNode*, MDNode*> replaced;
  for (BasicBlock& block : function) {
    Instruction* terminator = block.getTerminator();
    MDNode* id = terminator ? terminator->getMetadata(LLVMContext::MD_loop) : nullptr;
    if (!id) continue;
    MDNode* done = replaced.lookup(id);
    if (!done) {
      std::optional<SmallVector<Metadata*, 4>> options = rewrite(id);
      if (!options) continue;
      SmallVector<Metadata*, 4> operands{nullptr};
      operands.append(options->begin(), options->end());
      done = MDNode::getDistinct(function.getContext(), operands);
      done->replaceOperandWith(0, done);
      replaced[id] = done;
    }
    terminator->setMetadata(LLVMContext::MD_loop, done);
  }
  return !replaced.empty();
}

// Removes the item-loop and jam marks from every loop ID in `module`.
void drop_loop_marks(Module& module) {
  for (Function& function : module)
    rewrite_loop_ids(function, [](MDNode* id) -> std::optional<SmallVector<Metadata*, 4>> {
      SmallVector<Metadata*, 4> options;
      for (unsigned i = 1; i < id->getNumOperands(); ++i)
        if (StringRef name = option_name(id->getOperand(i)); name != kItemLoopMarker && name != kJamMarker)
          options.push_back(id->getOperand(i));
      if (options.size() + 1 == id->getNumOperands()) return std::nullopt;
      return options;
    });
}

// Whether the address of a stack slot of `function` escapes (LLVM's
// capture tracking): then a pointer loaded from memory or made from an
// integer may point into one.
bool stack_escapes(Function& function) {
  for (Instruction& inst : instructions(function))
    if (isa<AllocaInst>(inst) && PointerMayBeCaptured(&inst, /*ReturnCaptures=*/true, /*StoreCaptures=*/true, kMaxCaptureUses))
      return true;
  return false;
}

bool jam_marked(const Loop& loop) { return findOptionMDForLoopID(loop.getLoopID(), kJamMarker) != nullptr; }

// Whether UnrollAndJamLoop may interleave `loop`'s items: the shape it takes
// (LLVM's isSafeToUnrollAndJam without its dependence test, which the item
// loop's model answers, see above) and nothing that orders items.
bool jammable(Loop& loop, DominatorTree& dt, ScalarEvolution& se) {
  if (loop.getSubLoops().size() != 1) return false;
  Loop* inner = loop.getSubLoops()[0];
  if (!inner->isInnermost() || !hasIterationCountInvariantInParent(inner, se)) return false;
  for (Loop* each : {&loop, inner})
    if (!each->isLoopSimplifyForm() || !each->isRotatedForm() || !each->getExitBlock() ||
        !each->getExitingBlock() || each->getHeader()->hasAddressTaken())
      return false;
  // Blocks before the inner loop lead only into it; one block after it.
  BasicBlock* inner_latch = inner->getLoopLatch();
  BasicBlock* inner_preheader = inner->getLoopPreheader();
  SmallPtrSet<BasicBlock*, 8> fore;
  SmallPtrSet<BasicBlock*, 2> aft;
  for (BasicBlock* block : loop.blocks()) {
    if (inner->contains(block)) continue;
    if (dt.dominates(inner_latch, block))
      aft.insert(block);
    else
      fore.insert(block);
  }
  if (aft.size() != 1) return false;
  for (BasicBlock* block : fore)
    if (block != inner_preheader)
      for (BasicBlock* next : successors(block))
        if (!fore.count(next)) return false;
  // Nothing that orders items or leaves the loop otherwise.
  for (BasicBlock* block : loop.blocks())
    for (Instruction& inst : *block) {
      if (inst.mayThrow()) return false;
      if (auto* load = dyn_cast<LoadInst>(&inst)) {
        if (!load->isSimple()) return false;
      } else if (auto* store = dyn_cast<StoreInst>(&inst)) {
        if (!store->isSimple()) return false;
        // A private array the body writes is one stack slot that every
        // item reuses in turn: interleaved items would share it. So is
        // any store that may reach one (a pointer from memory or from an
        // integer, while a stack slot's address escapes).
        SmallVector<const Value*, 4> objects;
        getUnderlyingObjects(store->getPointerOperand(), objects, nullptr, /*MaxLookup=*/0);
        for (const Value* object : objects)
          if (isa<AllocaInst>(object) ||
              (!isa<GlobalValue>(object) && !isa<Argument>(object) && stack_escapes(*loop.getHeader()->getParent())))
            return false;
      } else if (inst.mayReadOrWriteMemory() || (isa<CallBase>(&inst) && !isa<IntrinsicInst>(&inst))) {
        return false;
      }
    }
  // The next item's header values are computed before the inner loop (the
  // jammed copies of the blocks before it run back to back).
  BasicBlock* latch = loop.getLoopLatch();
  SmallPtrSet<Instruction*, 8> seen;
  std::vector<Instruction*> work;
  for (PHINode& phi : loop.getHeader()->phis())
    if (auto* value = dyn_cast<Instruction>(phi.getIncomingValueForBlock(latch))) work.push_back(value);
  while (!work.empty()) {
    Instruction* inst = work.back();
    work.pop_back();
    if (!seen.insert(inst).second) continue;
    if (inner->contains(inst)) return false;
    if (!aft.count(inst->getParent())) continue;
    if (isa<PHINode>(inst) || inst->mayHaveSideEffects() || inst->mayReadOrWriteMemory()) return false;
    for (Value* operand : inst->operands())
      if (auto* operand_inst = dyn_cast<Instruction>(operand)) work.push_back(operand_inst);
  }
  return true;
}

// Interleaves the item loops of `function` marked for it (see above).
void jam_item_loops(Function& function, FunctionAnalysisManager& fam) {
  std::vector<BasicBlock*> headers;
  for (Loop* loop : fam.getResult<LoopAnalysis>(function).getLoopsInPreorder())
    if (jam_marked(*loop)) headers.push_back(loop->getHeader());
  if (headers.empty()) return;
  // The copy's checks are constants: fold the branches on them, and the
  // values computed from them first.
  {
    LoopInfo& li = fam.getResult<LoopAnalysis>(function);
    for (BasicBlock* header : headers)
      if (Loop* loop = li.getLoopFor(header); loop && loop->getHeader() == header)
        for (BasicBlock* block : loop->blocks())
          if (own_block(*loop, block)) {
            SimplifyInstructionsInBlock(block);
            ConstantFoldTerminator(block, /*DeleteDeadConditions=*/true);
          }
    removeUnreachableBlocks(function);
    fam.invalidate(function, PreservedAnalyses::none());
  }
  // Blocks in a line merged: one block after the inner loop.
  {
    LoopInfo& li = fam.getResult<LoopAnalysis>(function);
    for (BasicBlock* header : headers) {
      Loop* loop = li.getLoopFor(header);
      if (!loop || loop->getHeader() != header) continue;
      for (bool merged = true; merged;) {
        merged = false;
        for (BasicBlock* block : loop->blocks())
          if (block != header && own_block(*loop, block) && MergeBlockIntoPredecessor(block, nullptr, &li)) {
            merged = true;
            break;
          }
      }
    }
    fam.invalidate(function, PreservedAnalyses::none());
  }
  std::vector<BasicBlock*> jammed_headers;  // of the jammed inner loops
  for (BasicBlock* header : headers) {
    LoopInfo& li = fam.getResult<LoopAnalysis>(function);
    DominatorTree& dt = fam.getResult<DominatorTreeAnalysis>(function);
    ScalarEvolution& se = fam.getResult<ScalarEvolutionAnalysis>(function);
    AssumptionCache& ac = fam.getResult<AssumptionAnalysis>(function);
    Loop* loop = li.getLoopFor(header);
    if (!loop || loop->getHeader() != header) continue;
    simplifyLoop(loop, &dt, &li, &se, &ac, nullptr, /*PreserveLCSSA=*/false);
    formLCSSARecursively(*loop, dt, &li, &se);
    if (jammable(*loop, dt, se)) {
      const TargetTransformInfo& tti = fam.getResult<TargetIRAnalysis>(function);
      OptimizationRemarkEmitter& ore = fam.getResult<OptimizationRemarkEmitterAnalysis>(function);
      // The trip count is known at run time only: a remainder loop runs the
      // last items (fewer than kJamCount) one by one.
      if (UnrollAndJamLoop(loop, kJamCount, /*TripCount=*/0, /*TripMultiple=*/1, /*UnrollRemainder=*/false, &li,
                           &se, &dt, &ac, &tti, &ore) != LoopUnrollResult::Unmodified)
        jammed_headers.push_back(loop->getSubLoops()[0]->getHeader());
    }
    fam.invalidate(function, PreservedAnalyses::none());
  }
  // Each jammed copy of the inner loop brought its own counter, the same
  // recurrence as the first's: one counter, so that the values the items
  // share (a[row * n + k] and its index) are computed once (EarlyCSE below).
  if (!jammed_headers.empty()) {
    ScalarEvolution& se = fam.getResult<ScalarEvolutionAnalysis>(function);
    for (BasicBlock* header : jammed_headers) {
      std::vector<PHINode*> kept, merged;
      for (PHINode& phi : header->phis()) {
        if (!se.isSCEVable(phi.getType())) continue;
        const SCEV* value = se.getSCEV(&phi);
        PHINode* same = nullptr;
        for (PHINode* other : kept)
          if (other->getType() == phi.getType() && se.getSCEV(other) == value && isa<SCEVAddRecExpr>(value))
            same = other;
        if (same) {
          phi.replaceAllUsesWith(same);
          merged.push_back(&phi);
        } else {
          kept.push_back(&phi);
        }
      }
      // Their increments are left dead (EarlyCSE deletes them).
      for (PHINode* phi : merged) phi->eraseFromParent();
    }
    fam.invalidate(function, PreservedAnalyses::none());
  }
  // The jammed copies load what every item loads (a[row * n + k]): one load.
  if (!jammed_headers.empty()) fam.invalidate(function, EarlyCSEPass(/*UseMemorySSA=*/true).run(function, fam));
}

// Versions the innermost item loops of a host workgroup function, and item
// loops around one inner loop (then interleaved in their guard-free copy).
void split_bound_checks(Function& function, FunctionAnalysisManager& fam) {
  std::vector<BasicBlock*> headers;
  {
    ScalarEvolution& se = fam.getResult<ScalarEvolutionAnalysis>(function);
    // The outer ones first: the inner loop of the guard-free copy is not
    // versioned itself (two inner loops could not be jammed).
    for (Loop* loop : fam.getResult<LoopAnalysis>(function).getLoopsInPreorder())
      if (!loop->isInnermost() && jam_candidate(*loop, se)) headers.push_back(loop->getHeader());
  }
  for (Loop* loop : fam.getResult<LoopAnalysis>(function).getLoopsInPreorder())
    if (loop->isInnermost()) headers.push_back(loop->getHeader());
  for (BasicBlock* header : headers) {
    LoopInfo& li = fam.getResult<LoopAnalysis>(function);
    DominatorTree& dt = fam.getResult<DominatorTreeAnalysis>(function);
    ScalarEvolution& se = fam.getResult<ScalarEvolutionAnalysis>(function);
    Loop* loop = li.getLoopFor(header);
    if (!loop || loop->getHeader() != header) continue;
    Loop* copy = nullptr;
    if (version_bound_checks(function, *loop, li, dt, se, &copy)) {
      if (copy && !copy->isInnermost()) set_loop_option(*copy, kJamMarker, kJamCount);
    } else if (!loop->isInnermost()) {
      // Jam candidates only (the outer loops above): one without bounds
      // checks is guard-free as it is (one with checks that could not be
      // versioned fails jammable()).
      unsigned size = 0;
      for (BasicBlock* block : loop->blocks()) size += unsigned(block->size());
      if (size <= kMaxVersionedLoopSize) set_loop_option(*loop, kJamMarker, kJamCount);
    }
    // Even a loop left alone may have been put in simplified form.
    fam.invalidate(function, PreservedAnalyses::none());
  }
  jam_item_loops(function, fam);
}

struct WorkItemLoopPass : PassInfoMixin<WorkItemLoopPass> {
  explicit WorkItemLoopPass(PassBuilder* builder) : builder_(builder) {}

  PreservedAnalyses run(Module& module, ModuleAnalysisManager& mam) {
    std::vector<Function*> items;
    for (Function& function : module)
      if (!function.isDeclaration() && function.getName().ends_with(kItemFunctionSuffix)) items.push_back(&function);
    if (items.empty()) return PreservedAnalyses::all();
    FunctionAnalysisManager& fam = mam.getResult<FunctionAnalysisManagerModuleProxy>(module).getManager();
    FunctionPassManager cleanup =
        builder_->buildFunctionSimplificationPipeline(OptimizationLevel::O3, ThinOrFullLTOPhase::None);

    // Helpers that call xgpu_barrier() and were not inlined (their code is
    // shared with the fiber entry) are inlined into the work-item function.
    SmallPtrSet<Function*, 8> reaches_barrier;
    for (bool grew = true; grew;) {
      grew = false;
      for (Function& function : module) {
        if (function.isDeclaration() || reaches_barrier.count(&function)) continue;
        for (Instruction& inst : instructions(function)) {
          auto* call = dyn_cast<CallBase>(&inst);
          Function* callee = call ? call->getCalledFunction() : nullptr;
          if (callee && (callee->getName() == kBarrierMarker || reaches_barrier.count(callee))) {
            reaches_barrier.insert(&function);
            grew = true;
            break;
          }
        }
      }
    }

    for (Function* function : items) {
      StringRef kernel = function->getName().drop_back(kItemFunctionSuffix.size());
      std::string reason;
      GlobalVariable* descriptor = find_descriptor(module, kernel);
      auto* init = descriptor && descriptor->hasInitializer()
                       ? dyn_cast<ConstantStruct>(descriptor->getInitializer())
                       : nullptr;
      const bool barriers = !init || init->getNumOperands() <= kDescriptorFlagsField ||
                            (cast<ConstantInt>(init->getOperand(kDescriptorFlagsField))->getZExtValue() &
                             kFlagUsesBarriers);
      // A kernel without barriers keeps <xgpu/kernel.h>'s item loop unless it
      // has an atomic add the workgroup function aggregates.
      if (!barriers && !WorkItemLoops(*function, module.getDataLayout(), reaches_barrier).find_aggregates()) {
        removeFromUsedLists(module, [&](Constant* c) { return c->stripPointerCasts() == function; });
        function->replaceAllUsesWith(PoisonValue::get(function->getType()));
        function->eraseFromParent();
        continue;
      }
      for (unsigned round = 0; round < kInlineRounds; ++round) {
        std::vector<CallBase*> calls;
        for (Instruction& inst : instructions(*function))
          if (auto* call = dyn_cast<CallBase>(&inst))
            if (Function* callee = call->getCalledFunction();
                callee && reaches_barrier.count(callee) && !calls_itself(*callee))
              calls.push_back(call);
        if (calls.empty()) break;
        for (CallBase* call : calls) {
          InlineFunctionInfo info;
          InlineFunction(*call, info);
        }
      }
      fam.invalidate(*function, PreservedAnalyses::none());
      cleanup.run(*function, fam);
      bool done = false;
      bool runs = false;  // the function runs runs of workgroups
      if (!init || init->getNumOperands() <= kDescriptorFlagsField) {
        reason = "its host descriptor was not found";
      } else {
        // A barrier kernel of a required workgroup size (x, 1, 1) gets the
        // sized path too: a copy of the work-item function transformed for
        // exactly that workgroup (WorkItemLoops::set_sized), which the
        // workgroup function calls for full workgroups. A kernel it does not
        // fit runs without it.
        Function* sized = nullptr;
        uint32_t sized_x = 0, group_bytes = 0;
        if (barriers && init->getNumOperands() > kDescriptorRequiredSizeField) {
          Constant* required = init->getOperand(kDescriptorRequiredSizeField);
          auto element = [&](unsigned i) {
            auto* value = dyn_cast_or_null<ConstantInt>(required->getAggregateElement(i));
            return value ? value->getZExtValue() : 0;
          };
          const auto* group = dyn_cast<ConstantInt>(init->getOperand(kDescriptorGroupSegmentSizeField));
          if (element(0) >= 1 && element(0) <= kMaxSizedItems && element(1) == 1 && element(2) == 1 && group &&
              group->getZExtValue() <= kMaxSizedGroupBytes) {
            sized_x = uint32_t(element(0));
            group_bytes = uint32_t(group->getZExtValue());
            ValueToValueMapTy map;
            sized = CloneFunction(function, map);
            sized->setName(function->getName() + ".sized");
            sized->setLinkage(GlobalValue::InternalLinkage);
            WorkItemLoops sized_transform(*sized, module.getDataLayout(), reaches_barrier);
            sized_transform.set_sized(sized_x, group_bytes);
            std::string why;
            if (!sized_transform.run(&why)) {
              sized->eraseFromParent();
              sized = nullptr;
            }
          }
        }
        WorkItemLoops transform(*function, module.getDataLayout(), reaches_barrier);
        transform.set_runs(barriers);
        if (sized) transform.set_sized_path(sized, sized_x, group_bytes);
        done = (barriers || transform.find_aggregates()) && transform.run(&reason);
        runs = done && transform.runs();
        if (sized) {
          // Into the workgroup function (its one call), where the sized
          // path's stack arrays become the caller's.
          std::vector<CallBase*> calls;
          for (User* user : sized->users())
            if (auto* call = dyn_cast<CallBase>(user)) calls.push_back(call);
          for (CallBase* call : calls) {
            InlineFunctionInfo info;
            InlineFunction(*call, info);
          }
          if (sized->use_empty()) sized->eraseFromParent();
        }
      }
      removeFromUsedLists(module, [&](Constant* c) { return c->stripPointerCasts() == function; });
      if (!done) {
        if (barriers)
          errs() << "xgpu-wiloop: note: kernel '" << kernel << "' runs its work items as fibers on the host: "
                 << reason << "\n";
        function->replaceAllUsesWith(PoisonValue::get(function->getType()));
        function->eraseFromParent();
        continue;
      }
      if (verifyFunction(*function, &errs())) {
        if (getenv("XGPU_WILOOP_DUMP")) function->print(errs());
        report_fatal_error("xgpu-wiloop: kernel '" + kernel + "': the transformed function is invalid");
      }
      // The kernarg segment and the workgroup record are readable for the
      // whole dispatch and written by nobody while it runs: loads from them
      // may move out of the item loops.
      const auto* kernarg_size = dyn_cast<ConstantInt>(init->getOperand(kDescriptorKernargSizeField));
      if (kernarg_size && kernarg_size->getZExtValue() != 0)
        function->addDereferenceableParamAttr(0, kernarg_size->getZExtValue());
      function->addDereferenceableParamAttr(1, kWorkgroupRecordBytes);
      // Aligned as the descriptor says (the kernarg, spec/kernels.md) and
      // as the record's type is: such loads may be speculated.
      const auto* kernarg_alignment = dyn_cast<ConstantInt>(init->getOperand(kDescriptorKernargAlignmentField));
      if (kernarg_alignment && isPowerOf2_64(kernarg_alignment->getZExtValue()))
        function->addParamAttr(0, Attribute::getWithAlignment(function->getContext(),
                                                              Align(kernarg_alignment->getZExtValue())));
      function->addParamAttr(
          1, Attribute::getWithAlignment(function->getContext(), Align(kWorkgroupRecordAlignment)));
      // A function that runs runs of workgroups writes `wg` (the
      // workgroup it is running), which nothing else reads while it runs.
      for (unsigned arg = 0; arg < 2; ++arg) {
        function->addParamAttr(arg, Attribute::NoAlias);
        if (arg == 0 || !runs) function->addParamAttr(arg, Attribute::ReadOnly);
      }
      fam.invalidate(*function, PreservedAnalyses::none());
      cleanup.run(*function, fam);
      std::vector<Constant*> fields;
      for (unsigned i = 0; i < init->getNumOperands(); ++i) fields.push_back(init->getOperand(i));
      fields[kDescriptorRunWorkgroupField] = function;
      auto* flags = cast<ConstantInt>(fields[kDescriptorFlagsField]);
      if (barriers)
        fields[kDescriptorFlagsField] = ConstantInt::get(
            flags->getType(), flags->getZExtValue() | kFlagWorkitemLoops | (runs ? kFlagWorkgroupRuns : 0));
      else  // the function written here runs one workgroup per call
        fields[kDescriptorFlagsField] =
            ConstantInt::get(flags->getType(), flags->getZExtValue() & ~kFlagWorkgroupRuns);
      descriptor->setInitializer(ConstantStruct::get(init->getType(), fields));
    }
    // Guard-free copies of the item loops of every workgroup function.
    for (GlobalVariable& global : module.globals()) {
      if (!global.getName().ends_with(kDescriptorSuffix) || !global.hasInitializer()) continue;
      auto* fields = dyn_cast<ConstantStruct>(global.getInitializer());
      if (!fields || fields->getNumOperands() <= kDescriptorRunWorkgroupField) continue;
      auto* run = dyn_cast<Function>(fields->getOperand(kDescriptorRunWorkgroupField)->stripPointerCasts());
      if (run && !run->isDeclaration()) split_bound_checks(*run, fam);
    }
    drop_loop_marks(module);
    // What is left of the markers sits in helpers on paths only the
    // work-item functions take (workitem_loops == 1): never reached.
    for (StringRef marker : {kLocalIdMarker, kBarrierMarker}) {
      Function* decl = module.getFunction(marker);
      if (!decl) continue;
      std::vector<CallInst*> calls;
      for (User* user : decl->users())
        if (auto* call = dyn_cast<CallInst>(user)) calls.push_back(call);
      for (CallInst* call : calls) {
        IRBuilder<> b(call);
        b.CreateIntrinsic(Intrinsic::trap, {}, {});
        if (!call->getType()->isVoidTy()) call->replaceAllUsesWith(PoisonValue::get(call->getType()));
        call->eraseFromParent();
      }
      if (decl->use_empty()) decl->eraseFromParent();
    }
    return PreservedAnalyses::none();
  }

  PassBuilder* builder_;
};

// A masked load or store of a stack array at a constant offset whose mask
// is a constant run of lanes (a tree or scan step's first vector, whose
// first lanes read before the array: `x >= off ? v[x - off] : 0`) becomes a
// load or store of just those lanes, which lie inside the array, and a
// shuffle: accesses SROA can take into registers, where the masked
// intrinsic kept the whole array in memory. Returns whether it changed any.
bool narrow_masked_array_accesses(Function& function) {
  const DataLayout& dl = function.getParent()->getDataLayout();
  std::vector<IntrinsicInst*> calls;
  for (Instruction& inst : instructions(function))
    if (auto* intrinsic = dyn_cast<IntrinsicInst>(&inst);
        intrinsic && (intrinsic->getIntrinsicID() == Intrinsic::masked_load ||
                      intrinsic->getIntrinsicID() == Intrinsic::masked_store))
      calls.push_back(intrinsic);
  bool changed = false;
  for (IntrinsicInst* call : calls) {
    const bool load = call->getIntrinsicID() == Intrinsic::masked_load;
    Value* ptr = call->getArgOperand(load ? 0 : 1);
    auto* mask = dyn_cast<Constant>(call->getArgOperand(load ? 2 : 3));
    auto* type = cast<FixedVectorType>(load ? call->getType() : call->getArgOperand(0)->getType());
    if (!mask) continue;
    const unsigned lanes = type->getNumElements();
    int first = -1, last = -1;
    bool run = true;
    for (unsigned i = 0; i < lanes; ++i) {
      Constant* bit = mask->getAggregateElement(i);
      if (!bit || isa<UndefValue>(bit)) {
        run = false;
        break;
      }
      if (bit->isOneValue()) {
        if (last >= 0 && last != int(i) - 1) run = false;
        if (first < 0) first = int(i);
        last = int(i);
      }
    }
    if (!run || first < 0) continue;
    APInt offset(dl.getIndexTypeSizeInBits(ptr->getType()), 0);
    auto* array = dyn_cast<AllocaInst>(ptr->stripAndAccumulateConstantOffsets(dl, offset, /*AllowNonInbounds=*/true));
    std::optional<TypeSize> size = array ? array->getAllocationSize(dl) : std::nullopt;
    const uint64_t element = dl.getTypeStoreSize(type->getElementType());
    if (!size || size->isScalable() || dl.getTypeAllocSize(type->getElementType()) != element) continue;
    const int64_t begin = offset.getSExtValue() + int64_t(first) * int64_t(element);
    const int64_t end = offset.getSExtValue() + int64_t(last + 1) * int64_t(element);
    if (begin < 0 || uint64_t(end) > size->getFixedValue()) continue;
    const unsigned count = unsigned(last - first + 1);
    IRBuilder<> b(call);
    Type* part_type = count == 1 ? type->getElementType() : static_cast<Type*>(FixedVectorType::get(type->getElementType(), count));
    Value* at = b.CreateConstGEP1_64(b.getInt8Ty(), ptr, uint64_t(first) * element);
    const Align align = commonAlignment(cast<ConstantInt>(call->getArgOperand(load ? 1 : 2))->getAlignValue(),
                                        uint64_t(first) * element);
    if (load) {
      Value* part = b.CreateAlignedLoad(part_type, at, align);
      Value* result = call->getArgOperand(3);  // the passthru lanes
      for (unsigned i = 0; i < count; ++i)
        result = b.CreateInsertElement(result, count == 1 ? part : b.CreateExtractElement(part, uint64_t(i)),
                                       uint64_t(first) + i);
      call->replaceAllUsesWith(result);
    } else {
      Value* value = call->getArgOperand(0);
      Value* part = nullptr;
      if (count == 1) {
        part = b.CreateExtractElement(value, uint64_t(first));
      } else {
        SmallVector<int, 16> indices;
        for (unsigned i = 0; i < count; ++i) indices.push_back(int(first + i));
        part = b.CreateShuffleVector(value, indices);
      }
      b.CreateAlignedStore(part, at, align);
    }
    call->eraseFromParent();
    changed = true;
  }
  return changed;
}

struct NarrowMaskedArrayAccessesPass : PassInfoMixin<NarrowMaskedArrayAccessesPass> {
  PreservedAnalyses run(Function& function, FunctionAnalysisManager&) {
    return narrow_masked_array_accesses(function) ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
};

// The pass's last step, after vectorisation: unrolls the sized path's loops
// (WorkItemLoops::set_sized) in full, then lets SROA take group memory and
// the per-item slots, now at constant offsets, into registers. Vectorised
// first, the loops unroll into vector code (a tree reduction's steps into
// vector adds of registers and, for the last steps, shuffles); unrolled
// before, they would be scalar code the SLP vectoriser gathers badly.
struct LateUnrollPass : PassInfoMixin<LateUnrollPass> {
  PreservedAnalyses run(Module& module, ModuleAnalysisManager& mam) {
    FunctionAnalysisManager& fam = mam.getResult<FunctionAnalysisManagerModuleProxy>(module).getManager();
    bool changed = false;
    for (Function& function : module) {
      if (function.isDeclaration()) continue;
      // The marked loop IDs, each replaced by one that asks for a full
      // unroll instead.
      LLVMContext& context = function.getContext();
      const bool marked = rewrite_loop_ids(function, [&](MDNode* id) -> std::optional<SmallVector<Metadata*, 4>> {
        SmallVector<Metadata*, 4> options;
        bool late = false;
        for (unsigned i = 1; i < id->getNumOperands(); ++i) {
          const StringRef name = option_name(id->getOperand(i));
          late |= name == kLateUnrollMarker;
          if (name != kLateUnrollMarker && !name.starts_with("llvm.loop.unroll.")) options.push_back(id->getOperand(i));
        }
        if (!late) return std::nullopt;
        options.push_back(MDNode::get(context, {MDString::get(context, kUnrollFull)}));
        return options;
      });
      if (!marked) continue;
      changed = true;
      FunctionPassManager fpm;
      fpm.addPass(LoopUnrollPass(LoopUnrollOptions(3, /*OnlyWhenForced=*/true, /*ForgetSCEV=*/false)));
      // A masked load of an array element, now at a constant offset, is a
      // load and a select (the array is dereferenceable): what SROA takes.
      fpm.addPass(InstCombinePass());
      fpm.addPass(NarrowMaskedArrayAccessesPass());
      fpm.addPass(SROAPass(SROAOptions::ModifyCFG));
      fpm.addPass(EarlyCSEPass(/*UseMemorySSA=*/true));
      fpm.addPass(InstCombinePass());
      fpm.addPass(DSEPass());
      fpm.addPass(SimplifyCFGPass());
      fam.invalidate(function, PreservedAnalyses::none());
      fam.invalidate(function, fpm.run(function, fam));
    }
    return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
};

}  // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "xgpu-wiloop", "1", [](PassBuilder& builder) {
            builder.registerOptimizerEarlyEPCallback([&builder](ModulePassManager& mpm, OptimizationLevel) {
              mpm.addPass(WorkItemLoopPass(&builder));
            });
            builder.registerOptimizerLastEPCallback(
                [](ModulePassManager& mpm, OptimizationLevel) { mpm.addPass(LateUnrollPass()); });
            builder.registerPipelineParsingCallback(
                [&builder](StringRef name, ModulePassManager& mpm, ArrayRef<PassBuilder::PipelineElement>) {
                  if (name == "xgpu-wiloop") {
                    mpm.addPass(WorkItemLoopPass(&builder));
                    return true;
                  }
                  if (name == "xgpu-wiloop-late") {
                    mpm.addPass(LateUnrollPass());
                    return true;
                  }
                  return false;
                });
          }};
}
