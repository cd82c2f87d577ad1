// xgpu-wiloop: Loads every item makes of one address, read once per item loop.
#include "wiloop.h"

namespace xgpu_wiloop {

// Invariant loads of an item loop. The iterations of one of <xgpu/kernel.h>'s
// item loops (its mark) are different work items. A plain load (not
// volatile, not atomic) whose address is the same for every item, and which
// every item makes before it writes anything (`if (i >= args->state->count)
// return;`, a bound a kernel reads from a buffer), reads the same value in
// every iteration of a program without data races: for item k + 1 to read
// something else, an earlier item would have had to write that address,
// and one work item's plain write read by another's plain load with nothing
// ordering them (no barrier, and no atomic of acquire or stronger order or
// fence in the loop, which could order them legitimately) is a data race,
// whose behaviour is undefined (HSA's and C11's memory models); another
// workgroup or agent can only order its writes before these loads through
// the same kinds of operations. So the load is made once, in the loop's
// preheader, and its value used by every item: LLVM's LICM cannot, as it
// must assume a later item's store may alias it. Then the bound is
// loop-invariant and the bounds checks of the item loop are versioned
// (bound_checks.cpp), so the loop widens without masks.
// Conditions, each checked:
// - the loop is an item loop (marked), in rotated form with one latch, which
//   is its only exiting block: its preheader runs only when the first
//   iteration does, so the load is not made where no item would make it;
// - the load's block dominates the latch (every item makes it), nothing
//   that may write memory comes before it in the iteration (on any path from
//   the header), and its address is defined outside the loop;
// - what the load reads is not the function's own stack (the kernel's
//   private memory, or the pass's: running totals and slots that one
//   iteration writes for the next): no underlying object of its address is
//   an alloca, and one that is a pointer from memory, an argument or an
//   integer can only be when no alloca's address escapes;
// - the loop holds no fence, no atomic operation ordered more strongly than
//   monotonic (relaxed), and no call but to intrinsics that do not
//   synchronise (a call could hold either).
// Repeated until nothing moves (a hoisted pointer makes the load through it
// invariant).

namespace {

// Whether `inst` may order one work item's writes before another's reads.
bool synchronises(const Instruction& inst) {
  if (isa<FenceInst>(inst)) return true;
  if (const auto* load = dyn_cast<LoadInst>(&inst)) return isStrongerThanMonotonic(load->getOrdering());
  if (const auto* store = dyn_cast<StoreInst>(&inst)) return isStrongerThanMonotonic(store->getOrdering());
  if (const auto* rmw = dyn_cast<AtomicRMWInst>(&inst)) return isStrongerThanMonotonic(rmw->getOrdering());
  if (const auto* cmpxchg = dyn_cast<AtomicCmpXchgInst>(&inst))
    return isStrongerThanMonotonic(cmpxchg->getSuccessOrdering()) ||
           isStrongerThanMonotonic(cmpxchg->getFailureOrdering());
  if (const auto* call = dyn_cast<CallBase>(&inst)) {
    const auto* intrinsic = dyn_cast<IntrinsicInst>(call);
    if (!intrinsic) return true;
    switch (intrinsic->getIntrinsicID()) {
      case Intrinsic::masked_load:
      case Intrinsic::masked_store:
      case Intrinsic::masked_gather:
      case Intrinsic::masked_scatter:
      case Intrinsic::memcpy:
      case Intrinsic::memcpy_inline:
      case Intrinsic::memmove:
      case Intrinsic::memset:
      case Intrinsic::memset_inline:
      case Intrinsic::lifetime_start:
      case Intrinsic::lifetime_end:
      case Intrinsic::assume:
        return false;
      default:
        return intrinsic->mayReadOrWriteMemory() || intrinsic->mayHaveSideEffects();
    }
  }
  return false;
}

// Whether something that may write memory comes before `load` in an
// iteration of `loop`: in its block, or in a block on a path from the
// header to it.
bool written_before(const Loop& loop, const LoadInst& load) {
  for (const Instruction* inst = load.getPrevNode(); inst; inst = inst->getPrevNode())
    if (inst->mayWriteToMemory()) return true;
  SmallVector<const BasicBlock*, 8> work;
  SmallPtrSet<const BasicBlock*, 8> seen;
  if (load.getParent() != loop.getHeader())
    for (const BasicBlock* pred : predecessors(load.getParent())) work.push_back(pred);
  while (!work.empty()) {
    const BasicBlock* block = work.pop_back_val();
    if (!loop.contains(block) || !seen.insert(block).second) continue;
    for (const Instruction& inst : *block)
      if (inst.mayWriteToMemory()) return true;
    if (block == loop.getHeader()) continue;  // (not across the back edge)
    for (const BasicBlock* pred : predecessors(block)) work.push_back(pred);
  }
  return false;
}

// Whether `load` may read the function's own stack (`escaped`: some
// alloca's address escapes, so a pointer from elsewhere may be one).
bool may_read_stack(const LoadInst& load, bool escaped) {
  SmallVector<const Value*, 4> objects;
  getUnderlyingObjects(load.getPointerOperand(), objects, nullptr, /*MaxLookup=*/0);
  for (const Value* object : objects) {
    if (isa<AllocaInst>(object)) return true;
    if (escaped && !isa<GlobalVariable>(object)) return true;
  }
  return objects.empty();
}

// Hoists the invariant loads of item loop `loop`; returns how many.
unsigned hoist(Loop& loop, DominatorTree& dt, bool escaped) {
  BasicBlock* preheader = loop.getLoopPreheader();
  BasicBlock* latch = loop.getLoopLatch();
  if (!item_loop(loop) || !preheader || !latch || !loop.isRotatedForm() || loop.getExitingBlock() != latch ||
      !isa<BranchInst>(preheader->getTerminator()) || preheader->getTerminator()->getNumSuccessors() != 1)
    return 0;
  for (BasicBlock* block : loop.blocks())
    for (Instruction& inst : *block)
      if (synchronises(inst)) return 0;
  unsigned hoisted = 0;
  for (bool moved = true; moved;) {
    moved = false;
    for (BasicBlock* block : loop.blocks()) {
      if (!dt.dominates(block, latch)) continue;
      for (Instruction& inst : make_early_inc_range(*block)) {
        auto* load = dyn_cast<LoadInst>(&inst);
        if (!load || !load->isSimple() || !loop.isLoopInvariant(load->getPointerOperand()) ||
            may_read_stack(*load, escaped))
          continue;
        if (written_before(loop, *load)) continue;
        load->moveBefore(preheader->getTerminator());
        // (Its metadata stays true of it: it is the same load, made once.)
        ++hoisted;
        moved = true;
      }
    }
  }
  return hoisted;
}

}  // namespace

void hoist_invariant_loads(Function& function, FunctionAnalysisManager& fam) {
  LoopInfo& li = fam.getResult<LoopAnalysis>(function);
  DominatorTree& dt = fam.getResult<DominatorTreeAnalysis>(function);
  bool escaped = false;
  for (Instruction& inst : instructions(function))
    if (isa<AllocaInst>(inst))
      escaped = escaped || PointerMayBeCaptured(&inst, /*ReturnCaptures=*/true, /*StoreCaptures=*/true, kMaxCaptureUses);
  unsigned hoisted = 0;
  DebugLoc where;
  BasicBlock* at = nullptr;
  for (Loop* loop : li.getLoopsInPreorder()) {
    const unsigned moved = hoist(*loop, dt, escaped);
    if (moved && !at) {
      where = loop->getStartLoc();
      at = loop->getHeader();
    }
    hoisted += moved;
  }
  if (!hoisted) return;
  fam.invalidate(function, PreservedAnalyses::none());
  fam.getResult<OptimizationRemarkEmitterAnalysis>(function).emit(
      OptimizationRemark(kRemarkPass, "invariant-loads", where, at)
      << "function '" << function.getName() << "': invariant-loads: " << ore::NV("Loads", hoisted)
      << " load(s) every item makes of one address before it writes, made once per item loop");
}

}  // namespace xgpu_wiloop
