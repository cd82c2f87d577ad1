// xgpu-wiloop: Combined tail atomics across the workgroups of a run.
#include "wiloop.h"

namespace xgpu_wiloop {

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
// Legality of combining one atomic read-modify-write: nullptr when it may
// be combined, else what stops it.
const char* WorkItemLoops::why_not_combined(AtomicRMWInst* rmw, bool escapes) {
  if (rmw->getOperation() != AtomicRMWInst::Add) return "not an add";
  if (rmw->isVolatile()) return "volatile";
  if (rmw->getOrdering() != AtomicOrdering::Monotonic) return "not relaxed";
  if (pointer_touch(rmw->getPointerOperand(), escapes) != Touch::kOther) return "it may touch group memory";
  if (!run_invariant(rmw->getPointerOperand(), kRematerializeDepth))
    return "its address may differ between the workgroups of a run (it depends on the workgroup's x id, its width "
           "or memory other than the kernarg)";
  if (!rmw->use_empty()) return "its result is used";
  if (!tail(rmw)) return "the item does more after it than compute and return";
  return nullptr;
}

void WorkItemLoops::combine_tails() {
  if (barrier_blocks_.empty() || !aggregates_.empty()) return;
  std::vector<AtomicRMWInst*> found;
  const bool escapes = group_escapes();
  std::string refused;
  for (BasicBlock& block : f_)
    for (Instruction& inst : block) {
      auto* rmw = dyn_cast<AtomicRMWInst>(&inst);
      if (!rmw || pointer_touch(rmw->getPointerOperand(), /*escapes=*/true) == Touch::kGroup) continue;
      if (const char* why = why_not_combined(rmw, escapes)) {
        if (refused.empty()) refused = std::string("an atomic ") + AtomicRMWInst::getOperationName(rmw->getOperation()).str() + ": " + why;
      } else if (found.size() < kMaxCombinedAtomics) {
        found.push_back(rmw);
      } else if (refused.empty()) {
        refused = "more than " + std::to_string(kMaxCombinedAtomics) + " tail adds";
      }
    }
  if (!found.empty())
    take("combined-tails", Twine(found.size()) + " tail atomic add(s) combined across the run's workgroups" +
                               (refused.empty() ? "" : "; not " + refused));
  else if (!refused.empty())
    refuse("combined-tails", refused);
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
  // Its code was copied from the work-item function, whose debug
  // locations name that function's subprogram: this one has none.
  for (Instruction& inst : instructions(*function)) inst.setDebugLoc(DebugLoc());
  return function;
}

}  // namespace xgpu_wiloop
