// xgpu-wiloop: Group memory: which group-memory objects an access may touch (an analysis),
// and lowering the atomics that can only touch group memory.
#include "wiloop.h"

namespace xgpu_wiloop {

// Group memory: which objects an access may touch. The roots are the
// group segment's pointer (a load of the workgroup record's
// group_segment) and, on the sized path, the array that replaces it. A
// pointer's underlying objects are found through GEPs, casts, selects and
// phis (LLVM's getUnderlyingObjects, without a depth limit); an object
// that is neither a root nor an identified object (a stack slot, a global,
// an argument: the kernarg or the record) is a pointer loaded from memory,
// returned by a call or made from an integer. Such a pointer can point into
// group memory only when a group pointer escaped (was stored, passed to a
// call that may keep it, converted to an integer or returned: LLVM's
// capture tracking); when none did, it points elsewhere.
bool WorkItemLoops::group_root(const Value* value) const {
  if (group_alloca_ && value == group_alloca_) return true;
  const auto* load = dyn_cast<LoadInst>(value);
  uint64_t offset = 0;
  return load && load->getType()->isPointerTy() &&
         is_argument_field(load->getPointerOperand(), const_cast<WorkItemLoops*>(this)->workgroup(), dl_, &offset) &&
         offset == kWorkgroupGroupSegmentOffset;
}

// A pointer loaded from the kernarg segment, which the host wrote before
// the dispatch and nothing writes while it runs: never a group address,
// whatever escaped.
bool WorkItemLoops::from_kernarg(const Value* object) const {
  const auto* load = dyn_cast<LoadInst>(object);
  uint64_t offset = 0;
  return load && load->isSimple() &&
         is_argument_field(load->getPointerOperand(), const_cast<WorkItemLoops*>(this)->kernarg(), dl_, &offset);
}

// Whether `ptr` is one of demote()'s slots (only the pass stores to and
// loads from them, each the one SSA value it replaced).
bool WorkItemLoops::demoted_slot(const Value* ptr) const {
  const auto* slot = dyn_cast<AllocaInst>(ptr);
  return slot && demoted_.count(const_cast<AllocaInst*>(slot));
}

// A group pointer escapes when anything but demote()'s own slots captures
// it; what such a slot holds is followed to the slot's loads.
bool WorkItemLoops::group_escapes() {
  struct Tracker : CaptureTracker {
    const WorkItemLoops* self;
    std::vector<const Value*>* more;  // loads of demoted slots a group pointer went into
    bool escaped = false;
    void tooManyUses() override { escaped = true; }
    bool captured(const Use* use) override {
      const auto* store = dyn_cast<StoreInst>(use->getUser());
      if (store && use->getOperandNo() == 0 && store->isSimple() && self->demoted_slot(store->getPointerOperand())) {
        for (const User* user : store->getPointerOperand()->users())
          if (isa<LoadInst>(user)) more->push_back(user);
        return false;
      }
      escaped = true;
      return true;
    }
  };
  std::vector<const Value*> work;
  for (BasicBlock& block : f_)
    for (Instruction& inst : block)
      if (group_root(&inst)) work.push_back(&inst);
  SmallPtrSet<const Value*, 16> seen;
  while (!work.empty()) {
    const Value* pointer = work.back();
    work.pop_back();
    if (!seen.insert(pointer).second) continue;
    Tracker tracker;
    tracker.self = this;
    tracker.more = &work;
    PointerMayBeCaptured(pointer, &tracker, kMaxCaptureUses);
    if (tracker.escaped) return true;
  }
  return false;
}

// kGroup: every object `ptr` may point into is group memory; kOther: none
// is; kUnknown: either may be, or the objects cannot be told (`escapes`:
// whether a group pointer escaped, group_escapes()).
WorkItemLoops::Touch WorkItemLoops::pointer_touch(const Value* ptr, bool escapes) const {
  SmallPtrSet<const Value*, 8> seen;
  const Touch touch = pointer_touch(ptr, escapes, seen);
  return touch == Touch::kNone ? Touch::kUnknown : touch;
}

// (A load of one of demote()'s slots is whatever was stored into it.)
WorkItemLoops::Touch WorkItemLoops::pointer_touch(const Value* ptr, bool escapes,
                                                  SmallPtrSetImpl<const Value*>& seen) const {
  SmallVector<const Value*, 8> objects;
  getUnderlyingObjects(ptr, objects, nullptr, /*MaxLookup=*/0);
  bool group = false, other = false, unknown = objects.empty();
  for (const Value* object : objects) {
    const auto* load = dyn_cast<LoadInst>(object);
    if (load && load->isSimple() && demoted_slot(load->getPointerOperand())) {
      if (!seen.insert(load->getPointerOperand()).second) continue;  // a cycle through phis: nothing new
      for (const User* user : load->getPointerOperand()->users()) {
        const auto* store = dyn_cast<StoreInst>(user);
        if (!store) continue;
        if (!store->isSimple() || store->getPointerOperand() != load->getPointerOperand()) {
          unknown = true;
          continue;
        }
        switch (pointer_touch(store->getValueOperand(), escapes, seen)) {
          case Touch::kGroup: group = true; break;
          case Touch::kOther: other = true; break;
          case Touch::kUnknown: unknown = true; break;
          case Touch::kNone: break;
        }
      }
      continue;
    }
    if (group_root(object))
      group = true;
    else if (isa<AllocaInst>(object) || isa<GlobalValue>(object) || isa<Argument>(object) ||
             isa<ConstantPointerNull>(object) || isa<UndefValue>(object) || from_kernarg(object))
      other = true;
    else if (escapes)
      unknown = true;
    else
      other = true;
  }
  if (unknown || (group && other)) return Touch::kUnknown;
  if (!group && !other) return Touch::kNone;  // only slots already being followed
  return group ? Touch::kGroup : Touch::kOther;
}

// The memory `inst` may touch: kNone for an instruction that touches none
// (and the local id marker), a call's through its pointer arguments and,
// unless it only accesses their pointees, any other memory.
WorkItemLoops::Touch WorkItemLoops::access_touch(Instruction& inst, bool escapes) const {
  auto join = [](Touch a, Touch b) { return a == Touch::kNone ? b : b == Touch::kNone || a == b ? a : Touch::kUnknown; };
  if (!inst.mayReadOrWriteMemory() || isa<FenceInst>(inst) || is_call_to(inst, kLocalIdMarker)) return Touch::kNone;
  if (auto* load = dyn_cast<LoadInst>(&inst)) return pointer_touch(load->getPointerOperand(), escapes);
  if (auto* store = dyn_cast<StoreInst>(&inst)) return pointer_touch(store->getPointerOperand(), escapes);
  if (auto* rmw = dyn_cast<AtomicRMWInst>(&inst)) return pointer_touch(rmw->getPointerOperand(), escapes);
  if (auto* cmpxchg = dyn_cast<AtomicCmpXchgInst>(&inst)) return pointer_touch(cmpxchg->getPointerOperand(), escapes);
  auto* call = dyn_cast<CallBase>(&inst);
  if (!call) return Touch::kUnknown;
  const MemoryEffects effects = call->getMemoryEffects();
  if (effects.doesNotAccessMemory()) return Touch::kNone;
  Touch touch = Touch::kNone;
  for (Value* argument : call->args())
    if (argument->getType()->isPointerTy()) touch = join(touch, pointer_touch(argument, escapes));
  if (!effects.onlyAccessesArgPointees()) touch = join(touch, escapes ? Touch::kUnknown : Touch::kOther);
  return touch;
}

// In loop mode one thread runs every work item of a workgroup, so atomics on
// the group segment (which no other workgroup can see) are plain memory
// operations. Done while SSA still shows where each pointer comes from; an
// atomic that may touch group memory or other memory stays atomic.
void WorkItemLoops::lower_group_segment_atomics() {
  std::vector<Instruction*> worklist;
  for (BasicBlock& block : f_)
    for (Instruction& inst : block) worklist.push_back(&inst);
  for (Instruction* inst : worklist) {
    if (auto* load = dyn_cast<LoadInst>(inst)) {
      if (load->isAtomic() && on_group_segment(load->getPointerOperand())) load->setAtomic(AtomicOrdering::NotAtomic);
    } else if (auto* store = dyn_cast<StoreInst>(inst)) {
      if (store->isAtomic() && on_group_segment(store->getPointerOperand())) store->setAtomic(AtomicOrdering::NotAtomic);
    } else if (auto* rmw = dyn_cast<AtomicRMWInst>(inst)) {
      if (!on_group_segment(rmw->getPointerOperand())) continue;
      IRBuilder<> b(rmw);
      Value* ptr = rmw->getPointerOperand();
      Value* value = rmw->getValOperand();
      Type* type = value->getType();
      LoadInst* old = b.CreateAlignedLoad(type, ptr, rmw->getAlign());
      Value* result = nullptr;
      switch (rmw->getOperation()) {
        case AtomicRMWInst::Xchg: result = value; break;
        case AtomicRMWInst::Add: result = b.CreateAdd(old, value); break;
        case AtomicRMWInst::Sub: result = b.CreateSub(old, value); break;
        case AtomicRMWInst::And: result = b.CreateAnd(old, value); break;
        case AtomicRMWInst::Or: result = b.CreateOr(old, value); break;
        case AtomicRMWInst::Xor: result = b.CreateXor(old, value); break;
        case AtomicRMWInst::Max: result = b.CreateSelect(b.CreateICmpSGT(old, value), old, value); break;
        case AtomicRMWInst::Min: result = b.CreateSelect(b.CreateICmpSLT(old, value), old, value); break;
        case AtomicRMWInst::UMax: result = b.CreateSelect(b.CreateICmpUGT(old, value), old, value); break;
        case AtomicRMWInst::UMin: result = b.CreateSelect(b.CreateICmpULT(old, value), old, value); break;
        case AtomicRMWInst::FAdd: result = b.CreateFAdd(old, value); break;
        case AtomicRMWInst::FSub: result = b.CreateFSub(old, value); break;
        default: break;
      }
      if (!result) {
        old->eraseFromParent();
        continue;
      }
      StoreInst* store = b.CreateAlignedStore(result, ptr, rmw->getAlign());
      // An integer add whose old value nobody uses only accumulates
      // (plan_accumulation).
      if (rmw->getOperation() == AtomicRMWInst::Add && rmw->use_empty() && type->isIntegerTy()) {
        group_adds_.insert(old);
        group_adds_.insert(store);
      }
      rmw->replaceAllUsesWith(old);
      rmw->eraseFromParent();
    }
  }
}

}  // namespace xgpu_wiloop
