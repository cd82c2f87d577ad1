// xgpu-wiloop: Guard-free item loops: item loops versioned on their bounds checks.
#include "wiloop.h"

namespace xgpu_wiloop {

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

// Versions the innermost item loops of a host workgroup function, and item
// loops around one inner loop (then interleaved in their guard-free copy).
void split_bound_checks(Function& function, FunctionAnalysisManager& fam) {
  hoist_invariant_loads(function, fam);  // (a bound read from memory becomes invariant)
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
    const DebugLoc where = loop->getStartLoc();
    BasicBlock* at = loop->getHeader();
    if (version_bound_checks(function, *loop, li, dt, se, &copy)) {
      fam.getResult<OptimizationRemarkEmitterAnalysis>(function).emit(
          OptimizationRemark(kRemarkPass, "bound-checks", where, at)
          << "function '" << function.getName()
          << "': bound-checks: an item loop versioned: a copy without its bounds checks runs where they all hold");
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

}  // namespace xgpu_wiloop
