// xgpu-wiloop: Groupshared bins kept across the workgroups of a run.
#include "wiloop.h"

namespace xgpu_wiloop {

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
  if (regions_[0].size() != 1) return no("its first region is more than one block");
  SmallPtrSet<const Value*, 4> totals;
  for (const Combine& c : combines_) totals.insert(c.totals);
  auto on_totals = [&](Value* ptr) { return totals.count(getUnderlyingObject(ptr, 0)) != 0; };
  // A group pointer kept in memory, passed to a call or made into an
  // integer could reach the bins where no analysis sees it.
  if (group_escapes()) return no("a group pointer escapes (stored, passed to a call or made into an integer)");
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
        if (r == 1) {
          // Group memory only through the lowered adds whose result nobody reads.
          if (touch != Touch::kGroup) continue;
          if (!group_adds_.count(&inst)) return no("the adding region touches group memory other than through adds whose result is unused");
          // Each add is to one whole slot of the zeroed slots' type and
          // stride: the sum of a slot's per-workgroup counts is then the
          // count of the run's adds (a narrower add would wrap sooner, a
          // wider one carry into the next slot).
          Type* added = isa<LoadInst>(inst) ? inst.getType() : cast<StoreInst>(inst).getValueOperand()->getType();
          if (!zeroed || added != type) return no("an add to the bins is of another type than the zeroed slots");
          if (!whole_slot(ptr, scale, /*depth=*/4)) return no("an add to the bins may not be to one whole slot");
          continue;
        }
        if (r == 2 && inst.mayWriteToMemory()) {
          auto* store = dyn_cast<StoreInst>(&inst);
          if (!store || !store->isSimple() || !on_totals(ptr) || block != region_starts_[2]) return no("the flushing region writes memory other than the combined totals");
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
        int64_t e = 0;
        uint64_t k = 0;
        if (r == 0) {
          auto* store = dyn_cast<StoreInst>(&inst);
          auto* zero = store ? dyn_cast<Constant>(store->getValueOperand()) : nullptr;
          if (zeroed || !store || !store->isSimple() || !zero || !zero->isNullValue() ||
              !zero->getType()->isIntegerTy() ||
              !group_element(ptr, zero->getType(), &element, &scale))
            return no("the zeroing region stores something other than one zero to the item's own element");
          zeroed = true;
          type = zero->getType();
          continue;
        }
        auto* load = dyn_cast<LoadInst>(&inst);
        if (!load || !load->isSimple() || !zeroed || load->getType() != type || !group_element(ptr, type, &e, &k) ||
            e != element || k != scale)
          return no("the flushing region reads group memory other than the element the item zeroed");
        slot_loads.insert(load);
      }
  if (!zeroed || updates.empty()) return no("no zeroed element or no update of the totals");
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
    if (!add || add->getOpcode() != Instruction::Add) return no("an update of the totals is not an add");
    bool ok = false;
    for (unsigned i = 0; i < 2 && !ok; ++i) {
      auto* previous = dyn_cast<LoadInst>(add->getOperand(i));
      ok = previous && previous->getPointerOperand() == update->getPointerOperand() &&
           slot_value(add->getOperand(1 - i));
    }
    if (!ok) return no("an update of the totals adds something other than the element the item zeroed");
  }
  return true;
}

}  // namespace xgpu_wiloop
