// xgpu-wiloop: Regions and barriers: the legality check of a work-item function, barriers
// split into blocks of their own, values recomputed or demoted across
// barriers, the regions between barriers, per-item slots, narrowed item ranges
// and whether a dispatcher is needed (analyses, and the preparation every path
// shares).
#include "wiloop.h"

namespace xgpu_wiloop {

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

// A global id, workgroup id * workgroup size + local id, is below the grid
// size, a uint32_t: neither step wraps. Said in the IR (nuw), a global id
// used as an index is an affine function of the item loop's induction
// variable, which the loop vectoriser needs to check its accesses' bounds.
void WorkItemLoops::mark_global_ids(Function& function) {
  Argument* record = function.getArg(1);
  const DataLayout& dl = function.getParent()->getDataLayout();
  auto record_field = [&](Value* value, uint64_t base, unsigned* dimension) {
    auto* load = dyn_cast<LoadInst>(value);
    uint64_t offset = 0;
    if (!load || !load->isSimple() || !load->getType()->isIntegerTy(32) ||
        !is_argument_field(load->getPointerOperand(), record, dl, &offset) || offset < base ||
        offset >= base + 12 || (offset - base) % 4 != 0)
      return false;
    *dimension = unsigned((offset - base) / 4);
    return true;
  };
  for (BasicBlock& block : function)
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
  // Integer minimum and maximum (xgpu_workgroup_item_count's umin) compute
  // like the instructions above: no memory, no trap.
  bool min_max = false;
  if (auto* intrinsic = dyn_cast<IntrinsicInst>(inst)) {
    switch (intrinsic->getIntrinsicID()) {
      case Intrinsic::umin: case Intrinsic::umax: case Intrinsic::smin: case Intrinsic::smax: min_max = true; break;
      default: return false;
    }
  }
  if (!min_max && !isa<BinaryOperator>(inst) && !isa<CastInst>(inst) && !isa<GetElementPtrInst>(inst) &&
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
  for (Instruction* inst : escaping)
    if (AllocaInst* slot = DemoteRegToStack(*inst, false, entry.getFirstInsertionPt())) demoted_.insert(slot);
  std::vector<PHINode*> phis;
  for (BasicBlock& block : f_)
    for (PHINode& phi : block.phis()) phis.push_back(&phi);
  for (PHINode* phi : phis)
    if (AllocaInst* slot = DemotePHIToStack(phi, entry.getFirstInsertionPt())) demoted_.insert(slot);
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

}  // namespace xgpu_wiloop
