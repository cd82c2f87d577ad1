// xgpu-wiloop: Fused regions: two regions of a one-row workgroup run as one item loop.
#include "wiloop.h"

namespace xgpu_wiloop {

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
unsigned WorkItemLoops::fusion_order(unsigned region, SmallSetVector<AllocaInst*, 4>* scalars, uint32_t* split,
                                     std::string* why) {
  auto no = [&](const char* reason) {
    *why = reason;
    return kNoFusion;
  };
  *split = 0;
  const unsigned next = region + 1;
  if (next >= regions_.size() || region_exits_[region] != next || region_exits_[next] == kExitsMixed ||
      region_exits_[next] == next || !aggregates_.empty() || x_bound(region) || x_bound(next))
    return no("");
  for (BasicBlock* block : regions_[region])
    if (regions_[next].contains(block)) return no("");
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
          if (!load->isSimple()) return no("an atomic or volatile load");
          ptr = load->getPointerOperand();
          type = load->getType();
        } else if (auto* st = dyn_cast<StoreInst>(&inst)) {
          if (!st->isSimple()) return no("an atomic or volatile store");
          ptr = st->getPointerOperand();
          type = st->getValueOperand()->getType();
          store = true;
        } else if (is_call_to(inst, kLocalIdMarker)) {
          continue;
        } else if (inst.mayReadOrWriteMemory() || inst.mayHaveSideEffects()) {
          return no("a call, atomic or other effect");
        } else {
          continue;
        }
        if (isa<AllocaInst>(getUnderlyingObject(ptr, /*MaxLookup=*/0))) continue;  // the item's own stack
        if (on_group_segment(ptr)) {
          Access access{0, 0, store};
          if (!group_element(ptr, type, &access.element, &access.scale)) return no("a group address that is not base + scale * (x + c)");
          accesses[half].push_back(access);
          continue;
        }
        const Value* object = getUnderlyingObject(ptr, /*MaxLookup=*/0);
        if (store || (object != kernarg() && object != workgroup())) return no("a store to memory other than group memory and the item's own stack, or a load of memory other than group memory, the kernarg and the record");
      }
  bool ascending = false;
  bool descending = false;
  int64_t distance = 0;  // one distance of every descending pair, or -1
  for (const Access& a : accesses[0])
    for (const Access& b : accesses[1]) {
      if (!a.store && !b.store) continue;
      if (a.scale != b.scale) return no("group accesses of different element sizes");
      if (b.element > a.element) {
        descending = true;
        const int64_t d = b.element - a.element;
        distance = distance == 0 || distance == d ? d : -1;
      }
      if (b.element < a.element) ascending = true;
    }
  if (ascending && descending) return no("conflicting group accesses need both orders of the items");
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

}  // namespace xgpu_wiloop
