// xgpu-wiloop: Unroll-and-jam of guard-free item loops.
#include "wiloop.h"

namespace xgpu_wiloop {

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
bool jammable(Loop& loop, DominatorTree& dt, ScalarEvolution& se, std::string* why) {
  auto no = [&](const char* reason) {
    *why = reason;
    return false;
  };
  if (loop.getSubLoops().size() != 1) return no("it does not hold exactly one inner loop");
  Loop* inner = loop.getSubLoops()[0];
  if (!inner->isInnermost() || !hasIterationCountInvariantInParent(inner, se)) return no("its inner loop's trip count differs between items");
  for (Loop* each : {&loop, inner})
    if (!each->isLoopSimplifyForm() || !each->isRotatedForm() || !each->getExitBlock() ||
        !each->getExitingBlock() || each->getHeader()->hasAddressTaken())
      return no("it is not in the shape unroll-and-jam takes");
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
  if (aft.size() != 1) return no("more than one block after the inner loop");
  for (BasicBlock* block : fore)
    if (block != inner_preheader)
      for (BasicBlock* next : successors(block))
        if (!fore.count(next)) return no("a branch before the inner loop");
  // Nothing that orders items or leaves the loop otherwise.
  for (BasicBlock* block : loop.blocks())
    for (Instruction& inst : *block) {
      if (inst.mayThrow()) return no("an instruction that may throw");
      if (auto* load = dyn_cast<LoadInst>(&inst)) {
        if (!load->isSimple()) return no("an atomic or volatile load");
      } else if (auto* store = dyn_cast<StoreInst>(&inst)) {
        if (!store->isSimple()) return no("an atomic or volatile store");
        // A private array the body writes is one stack slot that every
        // item reuses in turn: interleaved items would share it. So is
        // any store that may reach one (a pointer from memory or from an
        // integer, while a stack slot's address escapes).
        SmallVector<const Value*, 4> objects;
        getUnderlyingObjects(store->getPointerOperand(), objects, nullptr, /*MaxLookup=*/0);
        for (const Value* object : objects)
          if (isa<AllocaInst>(object) ||
              (!isa<GlobalValue>(object) && !isa<Argument>(object) && stack_escapes(*loop.getHeader()->getParent())))
            return no("a store that may reach a private array (every item reuses it in turn)");
      } else if (auto* intrinsic = dyn_cast<IntrinsicInst>(&inst); intrinsic && intrinsic->isLifetimeStartOrEnd()) {
        return no("a private array's lifetime starts or ends in it (every item reuses the array in turn)");
      } else if (inst.mayReadOrWriteMemory() || (isa<CallBase>(&inst) && !isa<IntrinsicInst>(&inst))) {
        return no("an atomic, call or other memory effect");
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
    if (inner->contains(inst)) return no("the next item's values depend on the inner loop");
    if (!aft.count(inst->getParent())) continue;
    if (isa<PHINode>(inst) || inst->mayHaveSideEffects() || inst->mayReadOrWriteMemory()) return no("the next item's values depend on an effect after the inner loop");
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
    std::string why;
    OptimizationRemarkEmitter& ore = fam.getResult<OptimizationRemarkEmitterAnalysis>(function);
    if (!jammable(*loop, dt, se, &why)) {
      ore.emit(OptimizationRemarkMissed(kRemarkPass, "unroll-and-jam", loop->getStartLoc(), loop->getHeader())
               << "function '" << function.getName() << "': not unroll-and-jam: an item loop: " << why);
    } else {
      const TargetTransformInfo& tti = fam.getResult<TargetIRAnalysis>(function);
      // The trip count is known at run time only: a remainder loop runs the
      // last items (fewer than kJamCount) one by one.
      if (UnrollAndJamLoop(loop, kJamCount, /*TripCount=*/0, /*TripMultiple=*/1, /*UnrollRemainder=*/false, &li,
                           &se, &dt, &ac, &tti, &ore) != LoopUnrollResult::Unmodified) {
        jammed_headers.push_back(loop->getSubLoops()[0]->getHeader());
        ore.emit(OptimizationRemark(kRemarkPass, "unroll-and-jam", loop->getStartLoc(), loop->getHeader())
                 << "function '" << function.getName() << "': unroll-and-jam: the inner loops of "
                 << std::to_string(kJamCount) << " items interleaved");
      }
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

}  // namespace xgpu_wiloop
