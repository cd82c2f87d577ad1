// xgpu-wiloop: Groupshared bins kept across the workgroups of a run.
#include "wiloop.h"

#include "llvm/Analysis/ConstantFolding.h"

namespace xgpu_wiloop {

// Group memory kept across the workgroups of a run: a barrier kernel of
// three regions, the shape of a groupshared histogram (or any per-slot
// count: zero, add, flush), whose tail adds are combined (combine_tails).
// T is the integer type of the slots (one for all of them):
//   region 0: group memory only through stores of zero of type T to whole
//     T slots; no other memory but demote()'s own slots, loads of the
//     kernarg and the record aside; no calls: later workgroups skip it;
//   region 1: group memory only through integer adds of type T to whole
//     T slots whose old value is unused (any address);
//   region 2: group memory only through loads of whole T slots, no effect
//     but the combined totals' updates, each adding the loaded value v
//     itself or `v != 0 ? v : 0` (or v truncated) to what it loaded from
//     the same total, no
//     other load but of the kernarg, the record, the totals and demote()'s
//     slots (only the run's last workgroup runs it);
//   in regions 0 and 2, every address and every branch condition the same
//     for one local id in every workgroup of the run (steady: built from
//     the kernarg, the local ids, constants, the record fields a run
//     shares and demote()'s slots holding such values), but in region 2
//     (a) branches whose two ways differ by an empty block only, and
//     (b) gates: a branch that leaves the region without reaching an
//     update when a count slot g is zero (`if (counted == 0) return;`,
//     also as one term of an `&&`), where g is a witness: item 0 stores
//     zero to it in region 0 on every path, region 1 adds only positive
//     constants to it outside loops, and every other add of region 1 sits
//     in a block that also adds to g and is to a slot that cannot be g's
//     (LLVM's value ranges of its index) or, outside loops, adds an operand
//     of bounded unsigned range (what it may add to g, at most, counts
//     towards the wrap limit below);
//   no per-item slots (a skipped region would leave one stale).
// The run's workgroups then zero only once and read the slots only once:
// the first runs region 0, the last region 2, and in between group memory
// keeps the counts of the run so far. Why the totals are the same:
//  - a slot region 0 zeroes (the same slots in every workgroup of the run:
//    its addresses and branches are steady) holds, at region 2, the sum of
//    the run's adds to it (integer adds wrap: associative and
//    commutative), and region 2 adds it, or nothing when it is zero, to a
//    total that is the same in every workgroup (steady again): the sum of
//    what each workgroup's region 2 would have added;
//  - a slot region 0 does not zero holds, in every workgroup, what the
//    previous one left plus its adds: its contents are undefined at
//    workgroup start (spec/kernels.md), so any value read from it is one
//    the kernel could have read;
//  - a gate: in a workgroup whose g stays zero no add was made at all (each
//    one comes with a positive constant added to g, and nothing added to g
//    is negative), so its zeroed slots stay zero and its region 2 would add
//    nothing; over the run g is a sum of at most accumulate_items_limit_
//    items' bounded increments (checked per call), which cannot wrap: the
//    run's g is zero exactly when every workgroup's is;
//  - region 1's adds return nothing anyone reads.
// Only for runs of full one-row workgroups, decided per call (every
// workgroup zeroes the same slots then).
// A gate's count apart (scope_gate_count, `kept-bins-count`): its accesses
// get an alias scope, every other access of region 1 !noalias to it, when
// each of those is to group memory at offsets LLVM's value ranges keep off
// the count's bytes, or to memory that is not group memory (no group
// pointer escapes), and region 1 calls nothing that touches memory: the
// promise is then true of every pair of dynamic accesses, and LLVM keeps
// the count in a register across the item loop.
// Whether `ptr` is the group segment plus a sum of constants and variables
// times strides that are all multiples of `scale` (through GEPs, and
// demote()'s slots: every value stored into one): an address of one whole
// scale-sized slot, whichever the variables choose.
bool WorkItemLoops::whole_slot(Value* ptr, uint64_t scale, unsigned depth) const {
  if (auto* load = dyn_cast<LoadInst>(ptr); load && load->isSimple() && demoted_slot(load->getPointerOperand())) {
    if (depth == 0) return false;
    bool any = false;
    for (User* user : load->getPointerOperand()->users()) {
      auto* store = dyn_cast<StoreInst>(user);
      if (!store) continue;
      if (!store->isSimple() || !whole_slot(store->getValueOperand(), scale, depth - 1)) return false;
      any = true;
    }
    return any;
  }
  const unsigned bits = dl_.getIndexTypeSizeInBits(ptr->getType());
  APInt constant(bits, 0);
  for (unsigned depth = 0; depth < 16 && !group_root(ptr); ++depth) {
    auto* gep = dyn_cast<GEPOperator>(ptr);
    if (!gep) return false;
    MapVector<Value*, APInt> variables;
    if (!gep->collectOffset(dl_, bits, variables, constant)) return false;
    for (auto& [variable, stride] : variables)
      if (stride.srem(APInt(bits, scale)) != 0) return false;
    ptr = gep->getPointerOperand();
  }
  return group_root(ptr) && scale != 0 && constant.srem(APInt(bits, scale)) == 0;
}

// Whether `value` is the same for one local id in every workgroup of a run
// (see above): the kernarg, the record fields a run shares, local ids,
// constants, the group segment, the function's own stack slots, integer
// minima and maxima of such values, and demote()'s slots all of whose
// stores store such values (a cycle through one is the same function of
// such values each time round). `seen` starts empty for each question.
bool WorkItemLoops::steady(Value* value, SmallPtrSetImpl<const Value*>& seen, unsigned depth) {
  if (isa<Constant>(value) || isa<Argument>(value)) return true;
  auto* inst = dyn_cast<Instruction>(value);
  if (!inst || depth == 0) return false;
  if (!seen.insert(inst).second) return true;
  if (auto* alloca = dyn_cast<AllocaInst>(inst)) return alloca->isStaticAlloca();  // one address per call
  if (auto* load = dyn_cast<LoadInst>(inst)) {
    if (!load->isSimple()) return false;
    if (group_root(load)) return true;
    Value* ptr = load->getPointerOperand();
    uint64_t offset = 0;
    if (is_argument_field(ptr, kernarg(), dl_, &offset)) return true;
    if (is_argument_field(ptr, workgroup(), dl_, &offset))
      return run_shared_field(offset, dl_.getTypeStoreSize(load->getType()).getFixedValue());
    if (!demoted_slot(ptr)) return false;
    for (User* user : ptr->users()) {
      if (isa<LoadInst>(user)) continue;
      auto* store = dyn_cast<StoreInst>(user);
      if (!store || store->getPointerOperand() != ptr || !store->isSimple() ||
          !steady(store->getValueOperand(), seen, depth - 1))
        return false;
    }
    return true;
  }
  if (auto* intrinsic = dyn_cast<IntrinsicInst>(inst)) {
    const Intrinsic::ID id = intrinsic->getIntrinsicID();
    if (id != Intrinsic::umin && id != Intrinsic::umax && id != Intrinsic::smin && id != Intrinsic::smax) return false;
    for (Value* operand : intrinsic->args())
      if (!steady(operand, seen, depth - 1)) return false;
    return true;
  }
  if (auto* call = dyn_cast<CallInst>(inst)) return is_call_to(*inst, kLocalIdMarker) && isa<Constant>(call->getArgOperand(0));
  if (!isa<BinaryOperator, CastInst, CmpInst, SelectInst, GetElementPtrInst, FreezeInst>(inst)) return false;
  for (Value* operand : inst->operands())
    if (!steady(operand, seen, depth - 1)) return false;
  return true;
}

// `value` for the work item (0, 0, 0), where it follows from the local ids
// and constants alone; else null.
Constant* WorkItemLoops::at_item_zero(Value* value, unsigned depth) {
  if (auto* constant = dyn_cast<Constant>(value)) return constant;
  auto* inst = dyn_cast<Instruction>(value);
  if (!inst || depth == 0) return nullptr;
  if (is_call_to(*inst, kLocalIdMarker)) return ConstantInt::get(inst->getType(), 0);
  if (inst->mayReadOrWriteMemory() || isa<PHINode>(inst) || inst->isTerminator()) return nullptr;
  SmallVector<Constant*, 4> operands;
  for (Value* operand : inst->operands()) {
    Constant* c = at_item_zero(operand, depth - 1);
    if (!c) return nullptr;
    operands.push_back(c);
  }
  return ConstantFoldInstOperands(inst, operands, dl_);
}

// Whether the work item (0, 0, 0), which every workgroup has, runs `target`
// each time it runs region `region`: no way through the region from its
// start to a barrier or the return avoids `target`, where the branches whose
// condition follows for that item take its way (others either).
bool WorkItemLoops::item_zero_runs(unsigned region, BasicBlock* target) {
  SmallPtrSet<BasicBlock*, 32> seen;
  std::vector<BasicBlock*> work{region_starts_[region]};
  while (!work.empty()) {
    BasicBlock* block = work.back();
    work.pop_back();
    if (block == target || !seen.insert(block).second) continue;
    if (!regions_[region].contains(block)) return false;  // left the region without running it
    Instruction* term = block->getTerminator();
    if (succ_empty(block)) return false;
    if (auto* branch = dyn_cast<BranchInst>(term); branch && branch->isConditional())
      if (auto* taken = dyn_cast_or_null<ConstantInt>(at_item_zero(branch->getCondition(), 12))) {
        work.push_back(branch->getSuccessor(taken->isZero() ? 1 : 0));
        continue;
      }
    for (BasicBlock* next : successors(block)) work.push_back(next);
  }
  return true;
}

// Whether `ptr` is the group segment plus a constant; sets *offset.
bool WorkItemLoops::group_constant_slot(Value* ptr, uint64_t* offset) const {
  APInt delta(dl_.getIndexTypeSizeInBits(ptr->getType()), 0);
  const Value* base = ptr->stripAndAccumulateConstantOffsets(dl_, delta, /*AllowNonInbounds=*/true);
  if (!group_root(base) || delta.isNegative()) return false;
  *offset = delta.getZExtValue();
  return true;
}

// The byte offsets from the group segment that `ptr` may have (LLVM's value
// ranges and known bits of its variable indices, at `context`), or none when it is not
// built from the group segment by GEPs.
std::optional<ConstantRange> WorkItemLoops::group_offset_range(Value* ptr, Instruction* context) const {
  const unsigned bits = 64;
  if (dl_.getIndexTypeSizeInBits(ptr->getType()) != bits) return std::nullopt;
  APInt constant(bits, 0);
  ConstantRange total(APInt(bits, 0));
  for (unsigned depth = 0; depth < 16 && !group_root(ptr); ++depth) {
    auto* gep = dyn_cast<GEPOperator>(ptr);
    if (!gep) return std::nullopt;
    MapVector<Value*, APInt> variables;
    if (!gep->collectOffset(dl_, bits, variables, constant)) return std::nullopt;
    for (auto& [variable, stride] : variables) {
      if (!variable->getType()->isIntegerTy()) return std::nullopt;
      ConstantRange range =
          computeConstantRange(variable, /*ForSigned=*/false, /*UseInstrInfo=*/true, nullptr, context)
              .intersectWith(ConstantRange::fromKnownBits(computeKnownBits(variable, dl_), /*IsSigned=*/false));
      total = total.add(range.sextOrTrunc(bits).multiply(ConstantRange(stride)));
    }
    ptr = gep->getPointerOperand();
  }
  if (!group_root(ptr)) return std::nullopt;
  return total.add(ConstantRange(constant));
}

// Whether the count slot at group `offset` (type `type`) is a witness for
// the adds of region 1 (see above); `zeroes` are region 0's stores of zero.
// Sets *limit to the most items of a run over which its count cannot wrap.
bool WorkItemLoops::witnessed_gate(uint64_t offset, Type* type, const SmallPtrSetImpl<StoreInst*>& zeroes,
                                   uint64_t* limit, std::string* why) {
  auto no = [&](const char* reason) {
    *why = reason;
    return false;
  };
  bool zeroed = false;
  for (StoreInst* store : zeroes) {
    uint64_t at = 0;
    if (group_constant_slot(store->getPointerOperand(), &at) && at == offset &&
        item_zero_runs(0, store->getParent()))
      zeroed = true;
  }
  if (!zeroed) return no("a gate's count is not set to zero by item 0 on every path of the zeroing region");
  DominatorTree dt(f_);
  LoopInfo loops(dt);
  const uint64_t size = dl_.getTypeStoreSize(type).getFixedValue();
  const ConstantRange slot(APInt(64, offset), APInt(64, offset + size));
  SmallPtrSet<BasicBlock*, 8> counting;  // blocks that add to the count
  std::vector<StoreInst*> others;
  APInt sum(128, 0);
  for (BasicBlock* block : regions_[1])
    for (Instruction& inst : *block) {
      auto* store = dyn_cast<StoreInst>(&inst);
      if (!store || !group_adds_.count(store)) continue;
      uint64_t at = 0;
      if (!group_constant_slot(store->getPointerOperand(), &at) || at != offset) {
        others.push_back(store);
        continue;
      }
      // The lowered add: its load of the slot plus the operand.
      auto* add = dyn_cast<BinaryOperator>(store->getValueOperand());
      ConstantInt* step = nullptr;
      if (add && add->getOpcode() == Instruction::Add)
        for (unsigned i = 0; i < 2 && !step; ++i)
          if (auto* load = dyn_cast<LoadInst>(add->getOperand(i)); load && group_adds_.count(load))
            step = dyn_cast<ConstantInt>(add->getOperand(1 - i));
      if (!step || step->isZero()) return no("a gate's count is added to by something other than a positive constant");
      if (loops.getLoopFor(block)) return no("a gate's count is added to in a loop");
      sum += step->getValue().zext(128);
      counting.insert(block);
    }
  if (counting.empty()) return no("a gate's count is never added to");
  for (StoreInst* store : others) {
    if (!counting.count(store->getParent())) return no("an add of the counting region is not beside an add to a gate's count");
    std::optional<ConstantRange> range = group_offset_range(store->getPointerOperand(), store);
    if (range && range->intersectWith(slot).isEmptySet()) continue;
    // It may add to the count too: then only what cannot make it wrap (an
    // operand of bounded unsigned range, outside loops).
    auto* add = dyn_cast<BinaryOperator>(store->getValueOperand());
    Value* operand = nullptr;
    if (add && add->getOpcode() == Instruction::Add)
      for (unsigned i = 0; i < 2 && !operand; ++i)
        if (auto* load = dyn_cast<LoadInst>(add->getOperand(i)); load && group_adds_.count(load))
          operand = add->getOperand(1 - i);
    if (!operand || loops.getLoopFor(store->getParent()))
      return no("an add of the counting region may be to a gate's count, in a loop or of an unknown operand");
    const ConstantRange added =
        computeConstantRange(operand, /*ForSigned=*/false, /*UseInstrInfo=*/true, nullptr, store)
            .intersectWith(ConstantRange::fromKnownBits(computeKnownBits(operand, dl_), /*IsSigned=*/false));
    sum += added.getUnsignedMax().zext(128);
  }
  if (sum.getActiveBits() > type->getIntegerBitWidth()) return no("a gate's count may wrap within one work item's adds");
  const APInt most = APInt::getMaxValue(type->getIntegerBitWidth()).zext(128).udiv(sum);
  *limit = most.getActiveBits() > 64 ? UINT64_MAX : most.getZExtValue();
  return true;
}

bool WorkItemLoops::plan_accumulation(std::string* why) {
  auto no = [&](const char* reason) {
    *why = reason;
    return false;
  };
  if (!combining()) return no("it has no combined tail adds");
  if (!aggregates_.empty()) return no("it aggregates atomic adds");
  if (needs_dispatch()) return no("its regions need a dispatcher");
  if (!per_item_.empty()) return no("it keeps values per item across barriers");
  if (regions_.size() != 3 || region_exits_[0] != 1 || region_exits_[1] != 2 || region_exits_[2] != kExitsReturn)
    return no("its regions are not zero, barrier, add, barrier, flush");
  SmallPtrSet<const Value*, 4> totals;
  for (const Combine& c : combines_) totals.insert(c.totals);
  auto on_totals = [&](Value* ptr) { return totals.count(getUnderlyingObject(ptr, 0)) != 0; };
  auto is_steady = [&](Value* value) {
    SmallPtrSet<const Value*, 32> seen;
    return steady(value, seen, 24);
  };
  // A group pointer kept in memory, passed to a call or made into an
  // integer could reach the bins where no analysis sees it.
  if (group_escapes()) return no("a group pointer escapes (stored, passed to a call or made into an integer)");
  Type* type = nullptr;  // T
  uint64_t scale = 0;    // its store size: the slots' grid
  SmallPtrSet<StoreInst*, 8> zeroes;  // region 0's stores of zero
  SmallPtrSet<Value*, 8> slot_loads;  // region 2's loads of the slots
  std::vector<StoreInst*> updates;    // region 2's stores to the totals
  for (unsigned r = 0; r < 3; ++r)
    for (BasicBlock* block : regions_[r])
      for (Instruction& inst : *block) {
        // With no group pointer escaping (above), an access touches group
        // memory, other memory, or both, and the analysis knows which.
        const Touch touch = access_touch(inst, /*escapes=*/false);
        if (touch == Touch::kUnknown) return no("an access may touch group memory or other memory and the analysis cannot tell which");
        if (isa<CallBase>(inst)) {
          if (is_call_to(inst, kLocalIdMarker)) continue;
          // Region 0 is skipped by later workgroups: it makes no calls;
          // region 2 (the last only) none that touch memory; region 1 none
          // that touch group memory.
          if (r == 0 || (r == 2 && touch != Touch::kNone) || touch == Touch::kGroup) return no("a call in a region that later workgroups skip or only the last runs, or one that touches group memory");
          continue;
        }
        if (touch == Touch::kNone) continue;
        Value* ptr = getLoadStorePointerOperand(&inst);
        if (auto* rmw = dyn_cast<AtomicRMWInst>(&inst)) ptr = rmw->getPointerOperand();
        else if (auto* cmpxchg = dyn_cast<AtomicCmpXchgInst>(&inst)) ptr = cmpxchg->getPointerOperand();
        if (!ptr) return no("an access whose address the analysis does not know");
        // demote()'s own slots: a value of the region's own code.
        if (r != 1 && demoted_slot(ptr) && (isa<LoadInst>(inst) || isa<StoreInst>(inst)) && !inst.isAtomic() &&
            !inst.isVolatile())
          continue;
        if (r == 1) {
          // Group memory only through the lowered adds whose result nobody reads.
          if (touch != Touch::kGroup) continue;
          if (!group_adds_.count(&inst)) return no("the adding region touches group memory other than through adds whose result is unused");
          continue;  // their type and slots: below, once T is known
        }
        if (r == 2 && inst.mayWriteToMemory()) {
          auto* store = dyn_cast<StoreInst>(&inst);
          if (!store || !store->isSimple() || !on_totals(ptr)) return no("the flushing region writes memory other than the combined totals");
          if (!is_steady(ptr)) return no("the flushing region updates a total that may differ between the workgroups of a run");
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
            return no(isa<LoadInst>(inst) || !inst.mayWriteToMemory()
                          ? "the zeroing or flushing region reads memory other than the kernarg, the record and the totals"
                          : "the zeroing region writes memory other than group memory (a store or an atomic)");
          continue;
        }
        if (r == 0) {
          auto* store = dyn_cast<StoreInst>(&inst);
          auto* zero = store ? dyn_cast<Constant>(store->getValueOperand()) : nullptr;
          if (!store || !store->isSimple() || !zero || !zero->isNullValue() || !zero->getType()->isIntegerTy() ||
              (type && zero->getType() != type))
            return no("the zeroing region stores something other than zeros of one integer type to group memory");
          type = zero->getType();
          scale = dl_.getTypeStoreSize(type).getFixedValue();
          if (dl_.getTypeSizeInBits(type) != scale * 8 || !whole_slot(ptr, scale, /*depth=*/4))
            return no("the zeroing region stores zero to part of a slot");
          if (!is_steady(ptr)) return no("the zeroing region stores to an address that may differ between the workgroups of a run");
          zeroes.insert(store);
          continue;
        }
        auto* load = dyn_cast<LoadInst>(&inst);
        if (!load || !load->isSimple() || !type || load->getType() != type || !whole_slot(ptr, scale, /*depth=*/4))
          return no("the flushing region reads group memory other than whole slots of the zeroed type");
        if (!is_steady(ptr)) return no("the flushing region reads a slot that may differ between the workgroups of a run");
        slot_loads.insert(load);
      }
  if (zeroes.empty() || updates.empty()) return no("no zeroed element or no update of the totals");
  // Region 1's adds: each to one whole slot of T (the sum of a slot's
  // per-workgroup counts is then the count of the run's adds: a narrower
  // add would wrap sooner, a wider one carry into the next slot).
  for (BasicBlock* block : regions_[1])
    for (Instruction& inst : *block) {
      if (!group_adds_.count(&inst)) continue;
      Type* added = isa<LoadInst>(inst) ? inst.getType() : cast<StoreInst>(inst).getValueOperand()->getType();
      if (added != type) return no("an add to the bins is of another type than the zeroed slots");
      if (!whole_slot(getLoadStorePointerOperand(&inst), scale, /*depth=*/4)) return no("an add to the bins may not be to one whole slot");
    }
  // Each update adds v or `v != 0 ? v : 0` (v a load of a slot) to what
  // it loaded from the same total.
  // What `value` may be, seen through demote()'s slots (every value stored
  // into one; which one is decided by the region's branches, which are
  // checked below); false when there are too many.
  auto sources = [&](Value* value, SmallVectorImpl<Value*>& out) {
    SmallPtrSet<Value*, 16> seen;
    SmallVector<Value*, 8> work{value};
    while (!work.empty()) {
      Value* v = work.pop_back_val();
      if (!seen.insert(v).second) continue;
      if (seen.size() > 32) return false;
      auto* load = dyn_cast<LoadInst>(v);
      if (!load || !demoted_slot(load->getPointerOperand())) {
        out.push_back(v);
        continue;
      }
      for (User* user : load->getPointerOperand()->users())
        if (auto* store = dyn_cast<StoreInst>(user); store && store->getPointerOperand() == load->getPointerOperand())
          work.push_back(store->getValueOperand());
    }
    return !out.empty();
  };
  // The group slot (its constant offset) that `value` is a load of, through
  // demote()'s slots: every source one of region 2's loads of that slot.
  auto constant_slot_of = [&](Value* value) -> std::optional<uint64_t> {
    SmallVector<Value*, 8> values;
    if (!sources(value, values)) return std::nullopt;
    std::optional<uint64_t> offset;
    for (Value* v : values) {
      auto* load = dyn_cast<LoadInst>(v);
      uint64_t at = 0;
      if (!load || !slot_loads.count(load) || !group_constant_slot(load->getPointerOperand(), &at) ||
          (offset && *offset != at))
        return std::nullopt;
      offset = at;
    }
    return offset;
  };
  // Whether `x` is one of region 2's slot loads, through demote()'s slots,
  // and whether `x` and `v` have the same sources.
  auto is_slot = [&](Value* x) {
    SmallVector<Value*, 8> values;
    if (!sources(x, values)) return false;
    for (Value* each : values)
      if (!slot_loads.count(each)) return false;
    return true;
  };
  auto same = [&](Value* x, Value* v) {
    SmallVector<Value*, 8> a, b;
    return x == v || (sources(x, a) && sources(v, b) && a == b);
  };
  // v, `v != 0 ? v : 0`, or a truncation of either (a truncation of v adds
  // the same modulo its width: sums of slots map to sums of their
  // truncations), v a slot's value.
  auto slot_value = [&](Value* value) {
    Value* inner = nullptr;
    if (match(value, PatternMatch::m_Trunc(PatternMatch::m_Value(inner)))) value = inner;
    if (is_slot(value)) return true;
    auto* select = dyn_cast<SelectInst>(value);
    auto* compare = select ? dyn_cast<ICmpInst>(select->getCondition()) : nullptr;
    if (!compare || !compare->isEquality() || !match(compare->getOperand(1), PatternMatch::m_Zero())) return false;
    Value* v = compare->getOperand(0);
    // v != 0 ? x : 0, or v == 0 ? 0 : x
    const bool ne = compare->getPredicate() == ICmpInst::ICMP_NE;
    Value* x = select->getOperand(ne ? 1 : 2);
    if (!match(select->getOperand(ne ? 2 : 1), PatternMatch::m_Zero())) return false;
    if (match(x, PatternMatch::m_Trunc(PatternMatch::m_Value(inner)))) x = inner;
    return is_slot(v) && same(x, v);
  };
  SmallPtrSet<BasicBlock*, 8> updating;
  for (StoreInst* update : updates) {
    updating.insert(update->getParent());
    auto* add = dyn_cast<BinaryOperator>(update->getValueOperand());
    if (!add || add->getOpcode() != Instruction::Add) return no("an update of the totals is not an add");
    bool ok = false;
    for (unsigned i = 0; i < 2 && !ok; ++i) {
      auto* previous = dyn_cast<LoadInst>(add->getOperand(i));
      ok = previous && previous->getPointerOperand() == update->getPointerOperand() &&
           slot_value(add->getOperand(1 - i));
    }
    if (!ok) return no("an update of the totals adds something other than a slot's value");
  }
  // Branches: steady in region 0; in region 2 steady, or ways that differ
  // by an empty block, or gates on a witness count.
  auto reaches_update = [&](BasicBlock* from) {
    SmallPtrSet<BasicBlock*, 32> seen;
    std::vector<BasicBlock*> work{from};
    while (!work.empty()) {
      BasicBlock* block = work.back();
      work.pop_back();
      if (!regions_[2].contains(block) || !seen.insert(block).second) continue;
      if (updating.count(block)) return true;
      for (BasicBlock* next : successors(block)) work.push_back(next);
    }
    return false;
  };
  // `a` is `b`, or an empty block that goes on to `b` (which merges no values).
  auto empty_way = [](BasicBlock* a, BasicBlock* b) {
    return a == b || (a->size() == 1 && a->getSingleSuccessor() == b && !isa<PHINode>(b->front()));
  };
  SmallSetVector<uint64_t, 2> gates;
  for (unsigned r : {0u, 2u})
    for (BasicBlock* block : regions_[r]) {
      Instruction* term = block->getTerminator();
      if (isa<ReturnInst>(term) || (isa<BranchInst>(term) && cast<BranchInst>(term)->isUnconditional())) continue;
      auto* branch = dyn_cast<BranchInst>(term);
      if (!branch) {
        auto* choice = dyn_cast<SwitchInst>(term);
        if (!choice || !is_steady(choice->getCondition()))
          return no(r == 0 ? "the zeroing region branches on a value that may differ between the workgroups of a run"
                           : "the flushing region branches on a value that may differ between the workgroups of a run");
        continue;
      }
      Value* condition = branch->getCondition();
      if (is_steady(condition)) continue;
      if (r == 2 && (empty_way(branch->getSuccessor(0), branch->getSuccessor(1)) ||
                     empty_way(branch->getSuccessor(1), branch->getSuccessor(0))))
        continue;
      // A gate: terms of an `&&` whose false way (or of an `||` whose true
      // way) reaches no update; every term steady or `g != 0` (`g == 0`).
      auto try_gate = [&](bool conjunction) {
        if (reaches_update(branch->getSuccessor(conjunction ? 1 : 0))) return false;
        SmallVector<Value*, 4> terms{condition};
        SmallVector<uint64_t, 2> found;
        while (!terms.empty()) {
          Value* term_value = terms.pop_back_val();
          Value *a = nullptr, *b = nullptr;
          if (conjunction ? match(term_value, PatternMatch::m_LogicalAnd(PatternMatch::m_Value(a), PatternMatch::m_Value(b)))
                          : match(term_value, PatternMatch::m_LogicalOr(PatternMatch::m_Value(a), PatternMatch::m_Value(b)))) {
            terms.push_back(a);
            terms.push_back(b);
            continue;
          }
          if (is_steady(term_value)) continue;
          // (g may come through demote()'s slots: any load of g in this
          // region reads the same, nothing in it writes group memory.)
          ICmpInst::Predicate predicate;
          Value* g = nullptr;
          if (!match(term_value, PatternMatch::m_c_ICmp(predicate, PatternMatch::m_Value(g), PatternMatch::m_Zero())) ||
              predicate != (conjunction ? ICmpInst::ICMP_NE : ICmpInst::ICMP_EQ))
            return false;
          std::optional<uint64_t> offset = constant_slot_of(g);
          if (!offset) return false;
          found.push_back(*offset);
        }
        if (found.empty()) return false;
        gates.insert(found.begin(), found.end());
        return true;
      };
      // Around an update of v when v is zero: `if (v != 0) total += v;`.
      // The block it skips then would store the total it loaded (plus
      // zero), compute, and store into demote()'s slots only values of one
      // constant slot (which region 2 cannot change: the same either way).
      auto zero_skip = [&]() {
        ICmpInst::Predicate predicate;
        Value* v = nullptr;
        if (!match(condition, PatternMatch::m_c_ICmp(predicate, PatternMatch::m_Value(v), PatternMatch::m_Zero())) ||
            !ICmpInst::isEquality(predicate))
          return false;
        SmallVector<Value*, 8> values;
        if (!sources(v, values)) return false;
        for (Value* each : values)
          if (!slot_loads.count(each)) return false;
        BasicBlock* skipped = branch->getSuccessor(predicate == ICmpInst::ICMP_EQ ? 1 : 0);
        BasicBlock* after = branch->getSuccessor(predicate == ICmpInst::ICMP_EQ ? 0 : 1);
        if (skipped->getSingleSuccessor() != after || skipped->getSinglePredecessor() != block ||
            isa<PHINode>(after->front()))
          return false;
        for (Instruction& inst : *skipped) {
          if (inst.isTerminator() || isa<LoadInst>(inst)) continue;
          auto* store = dyn_cast<StoreInst>(&inst);
          if (!store) {
            if (inst.mayHaveSideEffects() || inst.mayReadOrWriteMemory()) return false;
            continue;
          }
          if (demoted_slot(store->getPointerOperand())) {
            for (User* user : store->getPointerOperand()->users())
              if (auto* other = dyn_cast<StoreInst>(user); other && !constant_slot_of(other->getValueOperand()))
                return false;
            continue;
          }
          // An update (checked above to add a slot's value): of v itself.
          auto* add = dyn_cast<BinaryOperator>(store->getValueOperand());
          if (!add) return false;
          bool of_v = false;
          for (unsigned i = 0; i < 2 && !of_v; ++i) {
            SmallVector<Value*, 8> added;
            Value* operand = add->getOperand(i);
            Value* inner = nullptr;
            if (match(operand, PatternMatch::m_Trunc(PatternMatch::m_Value(inner)))) operand = inner;
            of_v = sources(operand, added) && added == values;
          }
          if (!of_v) return false;
        }
        return true;
      };
      const bool gate = r == 2 && (try_gate(true) || try_gate(false) || zero_skip());
      if (!gate)
        return no(r == 0 ? "the zeroing region branches on a value that may differ between the workgroups of a run"
                         : "the flushing region branches on a value that may differ between the workgroups of a run "
                           "(not a gate on a count of every add, not `v != 0` around an update of v)");
    }
  uint64_t limit = UINT64_MAX;
  for (uint64_t offset : gates) {
    uint64_t most = 0;
    if (!witnessed_gate(offset, type, zeroes, &most, why)) return false;
    limit = std::min(limit, most);
  }
  accumulate_items_limit_ = limit;
  for (uint64_t offset : gates)
    if (scope_gate_count(offset, type))
      take("kept-bins-count", "the count at group offset " + Twine(offset) +
                                  " is apart from every other access of the adding region");
  return true;
}

// A gate's count apart from everything else the adding region touches: its
// loads and stores (the lowered adds, at the one constant offset) get an
// alias scope of their own, every other access of the region the promise
// that it touches none of it (!noalias), so that LLVM keeps the count in a
// register across the item loop instead of storing it for every item. The
// promise holds when every other access is either to group memory at
// offsets that LLVM's value ranges keep off the count's bytes, or to memory
// that is not group memory (no group pointer escapes: plan_accumulation),
// and the region calls nothing that touches memory; otherwise nothing is
// marked. Returns whether it marked.
bool WorkItemLoops::scope_gate_count(uint64_t offset, Type* type) {
  const uint64_t size = dl_.getTypeStoreSize(type).getFixedValue();
  const ConstantRange slot(APInt(64, offset), APInt(64, offset + size));
  std::vector<Instruction*> count_accesses, others;
  for (BasicBlock* block : regions_[1])
    for (Instruction& inst : *block) {
      if (!inst.mayReadOrWriteMemory() || is_call_to(inst, kLocalIdMarker)) continue;
      Value* ptr = nullptr;
      if (auto* load = dyn_cast<LoadInst>(&inst))
        ptr = load->getPointerOperand();
      else if (auto* store = dyn_cast<StoreInst>(&inst))
        ptr = store->getPointerOperand();
      else if (auto* rmw = dyn_cast<AtomicRMWInst>(&inst))
        ptr = rmw->getPointerOperand();
      else if (auto* cmpxchg = dyn_cast<AtomicCmpXchgInst>(&inst))
        ptr = cmpxchg->getPointerOperand();
      else
        return false;  // a call or fence that touches memory
      const Touch touch = pointer_touch(ptr, /*escapes=*/false);
      if (touch == Touch::kOther) {
        others.push_back(&inst);
        continue;
      }
      if (touch != Touch::kGroup) return false;
      uint64_t at = 0;
      if (group_constant_slot(ptr, &at) && at == offset && (isa<LoadInst>(inst) || isa<StoreInst>(inst)) &&
          dl_.getTypeStoreSize(getLoadStoreType(&inst)).getFixedValue() == size) {
        count_accesses.push_back(&inst);
        continue;
      }
      std::optional<ConstantRange> range = group_offset_range(ptr, &inst);
      if (!range) return false;
      // The bytes it touches: from its offsets to their end.
      Type* accessed = isa<LoadInst>(inst) || isa<StoreInst>(inst) ? getLoadStoreType(&inst)
                       : isa<AtomicRMWInst>(inst) ? cast<AtomicRMWInst>(inst).getValOperand()->getType()
                                                  : cast<AtomicCmpXchgInst>(inst).getNewValOperand()->getType();
      const uint64_t bytes = dl_.getTypeStoreSize(accessed).getFixedValue();
      if (range->isFullSet() || range->isWrappedSet() || range->getUnsignedMax().ugt(UINT32_MAX)) return false;
      const ConstantRange touched(range->getUnsignedMin(), range->getUnsignedMax() + bytes);
      if (!touched.intersectWith(slot).isEmptySet()) return false;
      others.push_back(&inst);
    }
  if (count_accesses.empty()) return false;
  MDBuilder mdb(ctx_);
  MDNode* domain = mdb.createAnonymousAliasScopeDomain("xgpu.kept_bins");
  MDNode* scope = mdb.createAnonymousAliasScope(domain, "xgpu.kept_bins.count");
  MDNode* list = MDNode::get(ctx_, {scope});
  for (Instruction* inst : count_accesses)
    inst->setMetadata(LLVMContext::MD_alias_scope,
                      MDNode::concatenate(inst->getMetadata(LLVMContext::MD_alias_scope), list));
  for (Instruction* inst : others)
    inst->setMetadata(LLVMContext::MD_noalias, MDNode::concatenate(inst->getMetadata(LLVMContext::MD_noalias), list));
  return true;
}

}  // namespace xgpu_wiloop
