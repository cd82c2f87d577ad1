// xgpu-wiloop: Combined tail atomics across the workgroups of a run.
#include "wiloop.h"

namespace xgpu_wiloop {

// Combined tail atomics. An atomic add that its work item is done with
// (result unused, relaxed, not to the kernarg or the record) may be
// performed at any later point before the kernel completes, when all the
// item does after it, on every path, is compute, read group memory, the
// kernarg or the record (which the add cannot have changed: its address
// is none of them), make other such adds, and return: that is what would
// happen if the item's adds simply took effect later, and nothing the item
// does afterwards can order anything after them or see them. The deferred
// adds keep their order among themselves where it could show (all of an
// item's adds that follow a deferred one are deferred too: the set is a
// fixpoint), and two deferred adds to one address equal one add of their
// sum (integer adds wrap: associative and commutative). The language
// gives workgroups no forward-progress guarantee towards each other, so
// "later" may be the end of the run of workgroups the call runs. Three ways
// to key the totals:
//  - one total, when the address has no local id in it either
//    (`&args->count`): every item adds its operand to it;
//  - by local id, when the address is the same for the items of one local
//    id in every workgroup of a run (`&args->bins[lid]`: built from the
//    kernarg, the local ids and the record fields a run shares): each item
//    adds its operand to its local id's total;
//  - by element, when the address is `base + offset`, base an array the
//    run shares (a pointer loaded from the kernarg, or a global) and the
//    offset, by LLVM's value ranges (LazyValueInfo, at the add), a whole
//    number of the add's elements below kMaxIndexedTotals
//    (`for (b = lid; b < 256; b += size) atomic_add(&args->bins[b], ...)`):
//    each item adds to its element's total. A range that LLVM cannot bound
//    refuses it; nothing is checked at run time.
// The run's end makes one atomic add per non-zero total, with the add's
// ordering and scope: one atomic per bin per run instead of one per bin
// per workgroup (or per item). Kernels with barriers and kernels without
// them alike (in the latter, a combined add is no longer aggregated:
// find_aggregates' adds whose results are unused).
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
    return is_argument_field(load->getPointerOperand(), workgroup(), dl_, &offset) &&
           run_shared_field(offset, dl_.getTypeStoreSize(load->getType()).getFixedValue());
  }
  for (Value* operand : inst->operands())
    if (!run_invariant(operand, depth - 1)) return false;
  return true;
}

// After `rmw`, on every path of its item: instructions without memory
// access or other effect, loads of group memory, the kernarg and the
// record, adds of `deferred`, branches and return (a barrier, a store, any
// other atomic or call fails the test).
bool WorkItemLoops::tail(AtomicRMWInst* rmw, const SmallPtrSetImpl<AtomicRMWInst*>& deferred, bool escapes) {
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
      if (auto* other = dyn_cast<AtomicRMWInst>(&inst); other && deferred.count(other)) continue;
      if (auto* load = dyn_cast<LoadInst>(&inst); load && load->isSimple()) {
        uint64_t offset = 0;
        Value* ptr = load->getPointerOperand();
        if (pointer_touch(ptr, escapes) == Touch::kGroup || is_argument_field(ptr, kernarg(), dl_, &offset) ||
            is_argument_field(ptr, workgroup(), dl_, &offset))
          continue;
        return false;
      }
      if (is_call_to(inst, kLocalIdMarker)) continue;
      if (inst.isTerminator() || inst.mayReadOrWriteMemory() || inst.mayHaveSideEffects()) return false;
    }
  }
  return true;
}

// Whether `ptr` is `*base + offset`: *base a pointer the run shares (loaded
// from the kernarg, or a global) and offset (through GEPs, the variables'
// ranges from LazyValueInfo at `context`) a whole number of `size`-byte
// elements, all below kMaxIndexedTotals; *end: one past the largest.
bool WorkItemLoops::indexed_address(Value* ptr, uint64_t size, Instruction* context, LazyValueInfo& lvi,
                                    Value** base, uint64_t* end) {
  if (size == 0 || !isPowerOf2_64(size)) return false;
  const unsigned bits = dl_.getIndexTypeSizeInBits(ptr->getType());
  const APInt element(bits, size);
  ConstantRange offset(APInt(bits, 0));
  for (unsigned depth = 0; depth < 16; ++depth) {
    auto* gep = dyn_cast<GEPOperator>(ptr);
    if (!gep) break;
    MapVector<Value*, APInt> variables;
    APInt constant(bits, 0);
    if (!gep->collectOffset(dl_, bits, variables, constant) || constant.urem(element) != 0) return false;
    offset = offset.add(ConstantRange(constant));
    for (auto& [variable, stride] : variables) {
      if (!variable->getType()->isIntegerTy() || stride.urem(element) != 0) return false;
      // A GEP sign-extends (or truncates) its indices to the index width.
      // A variable computed after `context` (in the add's own block, when
      // asked at the branch before it) gets the range that holds wherever
      // it is computed (ValueTracking's, without conditions).
      auto* defined = dyn_cast<Instruction>(variable);
      const bool later = defined && defined->getParent() != context->getParent() &&
                         defined->getParent()->getSinglePredecessor() == context->getParent();
      const ConstantRange range =
          (later ? computeConstantRange(variable, /*ForSigned=*/false)
                 : lvi.getConstantRange(variable, context, /*UndefAllowed=*/false))
              .sextOrTrunc(bits);
      offset = offset.add(range.multiply(ConstantRange(stride)));
    }
    ptr = gep->getPointerOperand();
  }
  if (!(from_kernarg(ptr) || isa<GlobalVariable>(ptr)) || offset.isEmptySet()) return false;
  const APInt last = offset.getUnsignedMax();  // a range that may wrap below zero has the largest
  if (last.uge(APInt(bits, kMaxIndexedTotals * size))) return false;
  *base = ptr;
  *end = last.getZExtValue() / size + 1;
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

// Where an add keyed by element adds (see combine_tails).
static_assert(kMaxIndexedTotals == 1024, "why_not_combined's message names the limit");
struct WorkItemLoops::IndexedAddress {
  Value* base = nullptr;
  uint64_t end = 0;         // by the value ranges at the add
  uint64_t hoisted_end = 0; // at the branch its block hangs from, 0: none
};

// Legality of combining one atomic read-modify-write, all but its tail:
// nullptr when it may be combined, else what stops it. `indexed->base` is
// set when it is keyed by element.
const char* WorkItemLoops::why_not_combined(AtomicRMWInst* rmw, bool escapes, LazyValueInfo& lvi,
                                            IndexedAddress* indexed) {
  if (rmw->getOperation() != AtomicRMWInst::Add) return "not an add";
  if (rmw->isVolatile()) return "volatile";
  if (rmw->getOrdering() != AtomicOrdering::Monotonic) return "not relaxed";
  if (pointer_touch(rmw->getPointerOperand(), escapes) != Touch::kOther) return "it may touch group memory";
  if (!rmw->use_empty()) return "its result is used";
  SmallVector<const Value*, 4> objects;
  getUnderlyingObjects(rmw->getPointerOperand(), objects, nullptr, /*MaxLookup=*/0);
  for (const Value* object : objects)
    if (isa<Argument>(object)) return "it adds to the kernarg segment or the workgroup record";
  if (run_invariant(rmw->getPointerOperand(), kRematerializeDepth)) return nullptr;
  const uint64_t size = dl_.getTypeStoreSize(rmw->getType()).getFixedValue();
  if (!indexed_address(rmw->getPointerOperand(), size, rmw, lvi, &indexed->base, &indexed->end))
    return "its address may differ between the workgroups of a run (it depends on the workgroup's x id, its width "
           "or memory other than the kernarg) and is not an element below 1024 of an array the run shares "
           "whose index LLVM's value ranges bound";
  // Where the add's block hangs from a conditional branch, the total may be
  // updated before it (see combine_tails): the range must hold there too.
  BasicBlock* from = rmw->getParent()->getSinglePredecessor();
  Value* base = nullptr;
  uint64_t end = 0;
  if (from && isa<BranchInst>(from->getTerminator()) &&
      indexed_address(rmw->getPointerOperand(), size, from->getTerminator(), lvi, &base, &end) &&
      base == indexed->base)
    indexed->hoisted_end = end;
  return nullptr;
}

void WorkItemLoops::combine_tails() {
  // Barrier kernels, and kernels without barriers whose adds the pass
  // aggregates (find_aggregates: those combined here are aggregated no
  // more).
  if (barrier_blocks_.empty() && aggregates_.empty()) return;
  const bool escapes = group_escapes();
  // The analysis, before anything changes: the adds that may be combined
  // but for their tails, and where each adds.
  AssumptionCache assumptions(f_);
  LazyValueInfo lvi(&assumptions, &dl_);
  std::vector<AtomicRMWInst*> candidates;
  DenseMap<AtomicRMWInst*, IndexedAddress> indexed;
  std::string refused;
  auto refuse_one = [&](AtomicRMWInst* rmw, const Twine& why) {
    if (refused.empty())
      refused = (Twine("an atomic ") + AtomicRMWInst::getOperationName(rmw->getOperation()) + ": " + why).str();
  };
  for (BasicBlock& block : f_)
    for (Instruction& inst : block) {
      auto* rmw = dyn_cast<AtomicRMWInst>(&inst);
      if (!rmw || pointer_touch(rmw->getPointerOperand(), /*escapes=*/true) == Touch::kGroup) continue;
      IndexedAddress where;
      if (const char* why = why_not_combined(rmw, escapes, lvi, &where)) {
        // (Without barriers, only adds whose results are unused are
        // candidates: the others are aggregated, and say so.)
        if (barrier_blocks_.empty() && !rmw->use_empty()) continue;
        refuse_one(rmw, why);
        continue;
      }
      candidates.push_back(rmw);
      if (where.base) indexed[rmw] = where;
    }
  // The tails: every add after a deferred one is deferred too. Drop those
  // whose tails hold anything else until none does; at most
  // kMaxCombinedAtomics (dropping one may drop those before it).
  SmallPtrSet<AtomicRMWInst*, 8> deferred(candidates.begin(), candidates.end());
  for (bool changed = true; changed;) {
    changed = false;
    for (AtomicRMWInst* rmw : candidates)
      if (deferred.count(rmw) && !tail(rmw, deferred, escapes)) {
        deferred.erase(rmw);
        refuse_one(rmw, "the item does more after it than compute, read group memory, the kernarg or the record, "
                        "make other combined adds and return");
        changed = true;
      }
    if (!changed && deferred.size() > kMaxCombinedAtomics) {
      for (auto it = candidates.rbegin(); it != candidates.rend(); ++it)
        if (deferred.erase(*it)) break;
      if (refused.empty()) refused = "more than " + std::to_string(kMaxCombinedAtomics) + " tail adds";
      changed = true;
    }
  }
  std::vector<AtomicRMWInst*> found;
  for (AtomicRMWInst* rmw : candidates)
    if (deferred.count(rmw)) found.push_back(rmw);
  if (!found.empty())
    take("combined-tails", Twine(found.size()) + " tail atomic add(s) combined across the run's workgroups" +
                               (indexed.empty() ? "" : " (" + Twine(indexed.size()) + " by element)") +
                               (refused.empty() ? "" : "; not " + refused));
  else if (!refused.empty())
    refuse("combined-tails", refused);
  if (found.empty()) return;
  aggregates_.erase(std::remove_if(aggregates_.begin(), aggregates_.end(),
                                   [&](const Aggregate& a) { return deferred.count(a.rmw) != 0; }),
                    aggregates_.end());
  Type* i32 = Type::getInt32Ty(ctx_);
  FunctionCallee local_id =
      f_.getParent()->getOrInsertFunction(kLocalIdMarker, FunctionType::get(i32, {i32}, false));
  BasicBlock& entry = f_.getEntryBlock();
  IRBuilder<> eb(&entry, entry.getFirstInsertionPt());
  for (AtomicRMWInst* rmw : found) {
    auto where = indexed.find(rmw);
    const bool by_element = where != indexed.end();
    // An address without local ids (`&args->count`): one total.
    const bool single = !by_element && uniform(rmw->getPointerOperand(), kRematerializeDepth);
    Combine c{nullptr, rmw->getOrdering(), rmw->getSyncScopeID(), rmw->getAlign(), rmw->getType()};
    // Whether the add's block may be hoisted (below): by element, only
    // where the index's range holds at the branch.
    bool may_hoist = !by_element || where->second.hoisted_end != 0;
    uint64_t count = kMaxWorkgroupItems;
    if (single) {
      count = 1;
      c.pointer = detach(rmw->getPointerOperand());
      c.indexed = 1;
    } else if (by_element) {
      count = std::max(where->second.end, where->second.hoisted_end);
      c.pointer = detach(where->second.base);
      c.indexed = uint32_t(count);
    } else {
      c.pointer = detach(rmw->getPointerOperand());
    }
    c.totals = eb.CreateAlloca(c.type, eb.getInt32(uint32_t(count)), "xgpu.combine.totals");
    shared_slots_.insert(c.totals);
    IRBuilder<> b(rmw);
    Value* index = nullptr;
    if (single) {
      index = b.getInt32(0);
    } else if (by_element) {
      // The element: (address - base) / size, below `count` (the ranges).
      const uint64_t size = dl_.getTypeStoreSize(c.type).getFixedValue();
      Type* intptr = dl_.getIntPtrType(rmw->getPointerOperand()->getType());
      Value* offset = b.CreateSub(b.CreatePtrToInt(rmw->getPointerOperand(), intptr),
                                  b.CreatePtrToInt(where->second.base, intptr));
      index = b.CreateTrunc(b.CreateLShr(offset, Log2_64(size)), i32);
    } else {
      // The local id's slot: (z * item_count[1] + y) * workgroup_size[0] + x,
      // the same in every workgroup of the run (only the last may be
      // narrower along x).
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
      index = b.CreateNUWAdd(b.CreateNUWMul(b.CreateNUWAdd(b.CreateNUWMul(id[2], rows), id[1]), width), id[0]);
    }
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
    bool hoist = may_hoist && branch && branch->isConditional() &&
                 branch->getSuccessor(0) != branch->getSuccessor(1) &&
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
  // Totals by element: one add to base + element per non-zero total.
  for (size_t k = 0; k < combines_.size(); ++k) {
    Combine& c = combines_[k];
    if (!c.indexed) continue;
    BasicBlock* head = b.GetInsertBlock();
    BasicBlock* element_loop = BasicBlock::Create(ctx_, "element", function);
    BasicBlock* add = BasicBlock::Create(ctx_, "element.add", function);
    BasicBlock* next = BasicBlock::Create(ctx_, "element.next", function);
    BasicBlock* done = BasicBlock::Create(ctx_, "element.done", function);
    b.CreateBr(element_loop);
    b.SetInsertPoint(element_loop);
    PHINode* element = b.CreatePHI(i32, 2, "element");
    element->addIncoming(b.getInt32(0), head);
    Value* element64 = b.CreateZExt(element, b.getInt64Ty());
    Value* total = b.CreateLoad(c.type, b.CreateInBoundsGEP(c.type, function->getArg(7 + unsigned(k)), element64));
    b.CreateCondBr(b.CreateICmpNE(total, Constant::getNullValue(c.type)), add, next);
    IRBuilder<> ab(add);
    Instruction* at = ab.CreateBr(next);
    Value* base = rematerialize(c.pointer, at);
    for (Instruction& inst : *add) {
      inst.replaceUsesOfWith(f_.getArg(0), kernarg);
      inst.replaceUsesOfWith(f_.getArg(1), wg);
    }
    if (base == f_.getArg(0)) base = kernarg;
    ab.SetInsertPoint(at);
    // The same address the items added to: base + element * size bytes.
    Value* pointer = ab.CreateGEP(c.type, base, element64);
    ab.CreateAtomicRMW(AtomicRMWInst::Add, pointer, total, c.align, c.ordering, c.scope);
    b.SetInsertPoint(next);
    Value* following = b.CreateNUWAdd(element, b.getInt32(1));
    element->addIncoming(following, next);
    b.CreateCondBr(b.CreateICmpULT(following, b.getInt32(c.indexed)), element_loop, done);
    b.SetInsertPoint(done);
  }
  BasicBlock* before_slots = b.GetInsertBlock();
  BasicBlock* loop = BasicBlock::Create(ctx_, "slot", function);
  b.CreateBr(loop);
  b.SetInsertPoint(loop);
  PHINode* slot = b.CreatePHI(i32, 2, "slot");
  slot->addIncoming(b.getInt32(0), before_slots);
  BasicBlock* current = loop;
  for (size_t k = 0; k < combines_.size(); ++k) {
    Combine& c = combines_[k];
    if (c.indexed) continue;
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
  // Its code was copied from the work-item function, whose debug
  // locations name that function's subprogram: this one has none.
  for (Instruction& inst : instructions(*function)) inst.setDebugLoc(DebugLoc());
  return function;
}

}  // namespace xgpu_wiloop
