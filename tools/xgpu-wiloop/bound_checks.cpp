// xgpu-wiloop: Guard-free item loops: item loops versioned on their bounds checks.
#include "wiloop.h"

#include "llvm/Transforms/Utils/LoopConstrainer.h"

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
//
// Split item loops. Where the test fails (a row of a stencil that holds its
// first and last columns: a run of workgroups is as wide as the grid), the
// original loop is split in three (LLVM's LoopConstrainer, as IRCE uses
// it): the items before the range where every check holds, that range, and
// the items after it, in that order, each once. On iteration k the index of
// a check is (r + k) mod 2^w (r its value on the first iteration, w its
// width; the counter is first + k, step 1), so the check holds exactly on
// the iterations k with (r + k) mod 2^w < n: the range taken is the first
// run of such iterations (from the first when r < n, else from the wrap at
// k = 2^w - r), intersected over the checks, computed in 64 bits and clamped
// to the loop's iterations (an unsigned latch, step 1). The middle loop's
// checks are constant; the loops before and after keep them. Legal because
// every item runs once, in the original order, and a check is folded only on
// counter values where it holds. (LoopConstrainer needs the loop's entry
// known to have its first counter below its end; for a loop that leaves when
// its nuw-incremented counter equals the end, that is assumed in its
// preheader: any other entry would wrap the counter, which is undefined.)
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

// Splits `loop` (the original of a versioned loop, taken where its checks
// do not all hold) into a loop of the items before the range where they all
// hold, a guard-free loop over that range and a loop of the items after it
// (above). Returns whether it did.
// A loop that leaves when its counter, incremented without unsigned wrap
// (nuw), equals `end` is entered only with its first counter below end:
// from any other it would have to wrap first, which is undefined. Says so
// (llvm.assume: first < end, end != 0) in its preheader, where the loop
// constrainer's check that its new bounds cannot overflow reads it; the
// loop's entry guard above is often one ScalarEvolution cannot relate
// (another width, another unswitched copy).
void assume_counter_below_end(Function& function, Loop& loop, AssumptionCache& assumptions) {
  BasicBlock* latch = loop.getLoopLatch();
  BasicBlock* preheader = loop.getLoopPreheader();
  auto* branch = latch ? dyn_cast<BranchInst>(latch->getTerminator()) : nullptr;
  if (!preheader || !branch || !branch->isConditional()) return;
  auto* compare = dyn_cast<ICmpInst>(branch->getCondition());
  if (!compare || !compare->isEquality()) return;
  // Leaves on equality: eq with the exit first, or ne with the exit second.
  const bool leaves_first = !loop.contains(branch->getSuccessor(0));
  if ((compare->getPredicate() == ICmpInst::ICMP_EQ) != leaves_first) return;
  for (unsigned side = 0; side < 2; ++side) {
    auto* next = dyn_cast<BinaryOperator>(compare->getOperand(side));
    Value* end = compare->getOperand(1 - side);
    if (!next || next->getOpcode() != Instruction::Add || !next->hasNoUnsignedWrap() || !loop.isLoopInvariant(end))
      continue;
    auto* phi = dyn_cast<PHINode>(next->getOperand(0));
    auto* one = dyn_cast<ConstantInt>(next->getOperand(1));
    if (!phi || !one || !one->isOne() || phi->getParent() != loop.getHeader() ||
        phi->getIncomingValueForBlock(latch) != next)
      continue;
    Value* first = phi->getIncomingValueForBlock(preheader);
    IRBuilder<> b(preheader->getTerminator());
    for (Value* fact : {b.CreateICmpULT(first, end), b.CreateICmpNE(end, ConstantInt::get(end->getType(), 0))}) {
      CallInst* assume = b.CreateAssumption(fact);
      assumptions.registerAssumption(cast<AssumeInst>(assume));
    }
    return;
  }
}

bool split_bound_checks_range(Function& function, Loop& loop, LoopInfo& li, DominatorTree& dt, ScalarEvolution& se,
                              AssumptionCache& assumptions) {
  if (!loop.isInnermost()) return false;
  // A loop of a known trip count (the sized path's items) is left whole:
  // the last step unrolls it in full, and each item's checks fold there.
  if (se.getSmallConstantTripCount(&loop) != 0) return false;
  std::vector<BoundCheck> checks;
  if (!find_bound_checks(loop, se, &checks)) return false;
  // Dedicated exits again (the versioned copy's exits joined the original's).
  simplifyLoop(&loop, &dt, &li, &se, nullptr, nullptr, /*PreserveLCSSA=*/false);
  formLCSSARecursively(loop, dt, &li, &se);
  assume_counter_below_end(function, loop, assumptions);
  const char* why = nullptr;
  std::optional<LoopStructure> parsed = LoopStructure::parseLoopStructure(se, loop, /*AllowUnsigned=*/true, why);
  if (!parsed || !parsed->IndVarIncreasing || parsed->IsSignedPredicate) return false;
  const LoopStructure& ls = *parsed;
  auto* step = dyn_cast<ConstantInt>(ls.IndVarStep);
  auto* iv_type = dyn_cast<IntegerType>(ls.IndVarBase->getType());
  if (!step || !step->isOne() || !iv_type) return false;
  BasicBlock* preheader = loop.getLoopPreheader();
  if (!preheader) return false;
  Instruction* at = preheader->getTerminator();
  const DataLayout& dl = function.getParent()->getDataLayout();
  SCEVExpander expander(se, dl, "xgpu.range");
  for (const BoundCheck& check : checks) {
    if (check.start->getType()->getIntegerBitWidth() > 64 || !expander.isSafeToExpandAt(check.start, at) ||
        !expander.isSafeToExpandAt(check.bound, at))
      return false;
  }

  // The iterations [lo, hi) where every check holds. Iteration k has counter
  // first + k and index (r + k) mod 2^w, r the index on the first iteration:
  // a check holds from iteration 0 for n - r iterations when r < n, else
  // from iteration 2^w - r (the wrap) for n. In 64 bits, each clamped to the
  // loop's count = end - first iterations, so no sum overflows.
  IRBuilder<> b(at);
  Type* wide = b.getInt64Ty();
  Value* first = b.CreateZExtOrTrunc(ls.IndVarStart, wide);
  Value* count = b.CreateSub(b.CreateZExtOrTrunc(ls.LoopExitAt, wide), first);
  auto umax = [&](Value* x, Value* y) { return b.CreateSelect(b.CreateICmpUGT(x, y), x, y); };
  auto umin = [&](Value* x, Value* y) { return b.CreateSelect(b.CreateICmpULT(x, y), x, y); };
  Value* lo = ConstantInt::get(wide, 0);
  Value* hi = count;
  for (const BoundCheck& check : checks) {
    Type* index_type = check.start->getType();
    Value* r = b.CreateZExt(expander.expandCodeFor(check.start, index_type, at), wide);
    Value* n = b.CreateZExt(expander.expandCodeFor(check.bound, index_type, at), wide);
    Value* holds_now = b.CreateICmpULT(r, n);
    // 2^w - r (for w = 64: 0 - r; r = 0 there only with n = 0, an empty run).
    Value* to_wrap = index_type->getIntegerBitWidth() == 64
                         ? b.CreateNeg(r)
                         : b.CreateSub(ConstantInt::get(wide, uint64_t{1} << index_type->getIntegerBitWidth()), r);
    Value* skip = b.CreateSelect(holds_now, ConstantInt::get(wide, 0), to_wrap);
    Value* length = b.CreateSelect(holds_now, b.CreateSub(n, r), n);
    Value* lo_c = umin(skip, count);
    Value* hi_c = b.CreateAdd(lo_c, umin(length, b.CreateSub(count, lo_c)));
    lo = umax(lo, lo_c);
    hi = umin(hi, hi_c);
  }
  hi = umax(lo, hi);  // empty: every item runs in the loops before and after
  Value* low_limit = b.CreateZExtOrTrunc(b.CreateAdd(first, lo, "xgpu.range.lo"), iv_type);
  Value* high_limit = b.CreateZExtOrTrunc(b.CreateAdd(first, hi, "xgpu.range.hi"), iv_type);
  expander.clear();

  LoopConstrainer::SubRanges ranges;
  ranges.LowLimit = se.getSCEV(low_limit);
  ranges.HighLimit = se.getSCEV(high_limit);
  MDNode* loop_id = loop.getLoopID();
  std::vector<Loop*> clones;
  LoopConstrainer constrainer(loop, li, [&](Loop* clone, bool) { clones.push_back(clone); }, ls, se, dt, iv_type,
                              ranges);
  if (!constrainer.run()) return false;  // (the limits computed above are then dead code)
  // The loops before and after are the original loop over fewer items, not
  // slow paths: they keep its loop options (the constrainer disables every
  // transform on them), so they widen as it did.
  for (Loop* clone : clones)
    if (clone->getLoopLatch()) clone->setLoopID(loop_id);  // (the limits computed above are then dead code)
  // `loop` is the middle loop now. Its latch branches on not(iv < limit):
  // as iv >= limit, the form whose trip count ScalarEvolution computes (the
  // loop vectoriser runs next, with no instruction combining between).
  if (auto* latch = dyn_cast<BranchInst>(loop.getLoopLatch()->getTerminator()); latch && latch->isConditional()) {
    Value* inner = nullptr;
    if (match(latch->getCondition(), PatternMatch::m_Not(PatternMatch::m_Value(inner))))
      if (auto* compare = dyn_cast<ICmpInst>(inner); compare && compare->hasOneUse()) {
        auto* negated = cast<Instruction>(latch->getCondition());
        compare->setPredicate(compare->getInversePredicate());
        negated->replaceAllUsesWith(compare);
        negated->eraseFromParent();
      }
  }
  // Its checks hold on every iteration.
  for (const BoundCheck& check : checks) {
    check.compare->replaceAllUsesWith(ConstantInt::getBool(check.compare->getType(), check.in_range));
    check.compare->eraseFromParent();
  }
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
      // Where they do not all hold: the original loop, split on them.
      if (loop->isInnermost() &&
          split_bound_checks_range(function, *loop, li, dt, se, fam.getResult<AssumptionAnalysis>(function))) {
        fam.getResult<OptimizationRemarkEmitterAnalysis>(function).emit(
            OptimizationRemark(kRemarkPass, "bound-checks", where, at)
            << "function '" << function.getName()
            << "': bound-checks: where they do not all hold, the items in the range where they do run without "
               "them, those before and after in loops of their own");
      }
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
