// xgpu-wiloop: Aggregated atomic adds of kernels without barriers, and the recount.
//
// Legality (spec/kernels.md, "Work-item loops" step 4):
// - aggregated adds: a relaxed, non-volatile atomic add whose address every
//   item of the workgroup computes alike is made once for the items'
//   total, each item's result the old value plus its offset in item order:
//   the items' adds one after another, an order the language allows;
// - the recount (recount_aggregates): every path to the adds only loads
//   and computes, no add can follow an add, no private memory; the items
//   run that code twice, and in a kernel without data races both runs see
//   the same values (no item can order another's stores before its loads);
// - across a run (recount-runs, build_loops.cpp's phases): when every
//   recounted add's address is the same in every workgroup of a run,
//   the adds are made once per chunk of the run's workgroups: workgroups
//   have no forward-progress guarantee towards each other, so the chunk's
//   items may all reach their adds before any goes on, in item order,
//   workgroup by workgroup.
#include "wiloop.h"

namespace xgpu_wiloop {

// A value every item of a workgroup computes alike: made only of the
// kernarg, the workgroup record and constants (no local id).
bool WorkItemLoops::uniform(Value* value, unsigned depth) {
  if (isa<Constant>(value) || isa<Argument>(value)) return true;
  auto* inst = dyn_cast<Instruction>(value);
  if (!inst || depth == 0 || is_call_to(*inst, kLocalIdMarker) || !rematerializable(inst, depth)) return false;
  if (isa<LoadInst>(inst)) return true;  // a field of the kernarg or the record
  for (Value* operand : inst->operands())
    if (!uniform(operand, depth - 1)) return false;
  return true;
}

bool WorkItemLoops::find_aggregates() {
  for (BasicBlock& block : f_)
    for (Instruction& inst : block) {
      auto* rmw = dyn_cast<AtomicRMWInst>(&inst);
      // (Atomics on group memory become plain operations instead.)
      if (!rmw || rmw->getOperation() != AtomicRMWInst::Add || rmw->isVolatile() ||
          rmw->getOrdering() != AtomicOrdering::Monotonic || on_group_segment(rmw->getPointerOperand()) ||
          !uniform(rmw->getPointerOperand(), kRematerializeDepth))
        continue;
      aggregates_.push_back({rmw, rmw->getPointerOperand(), rmw->getOrdering(), rmw->getSyncScopeID(),
                             rmw->getAlign(), rmw->getType()});
    }
  return !aggregates_.empty();
}

// Each aggregated add: the item adds its operand to the running total and
// keeps the total before it (its offset), then waits at a pseudo-barrier;
// after it, the add's result is the one add's old value plus the offset.
void WorkItemLoops::split_aggregates() {
  BasicBlock& entry = f_.getEntryBlock();
  IRBuilder<> eb(&entry, entry.getFirstInsertionPt());
  for (Aggregate& a : aggregates_) {
    a.running = eb.CreateAlloca(a.type, nullptr, "xgpu.aggregate.running");
    a.base = eb.CreateAlloca(a.type, nullptr, "xgpu.aggregate.base");
    shared_slots_.insert(a.running);
    shared_slots_.insert(a.base);
    IRBuilder<> b(a.rmw);
    Value* offset = b.CreateLoad(a.type, a.running, "xgpu.aggregate.offset");
    b.CreateStore(b.CreateAdd(offset, a.rmw->getValOperand()), a.running);
    BasicBlock* marker = a.rmw->getParent()->splitBasicBlock(a.rmw, "xgpu.aggregate");
    marker->splitBasicBlock(a.rmw, "xgpu.aggregate.resume");
    IRBuilder<> rb(a.rmw);
    Value* result = rb.CreateAdd(rb.CreateLoad(a.type, a.base, "xgpu.aggregate.old"), offset);
    a.rmw->replaceAllUsesWith(result);
    a.rmw->eraseFromParent();
    a.rmw = nullptr;
    a.barrier = unsigned(barrier_blocks_.size()) + 1;
    barrier_index_[marker] = a.barrier;
    barrier_blocks_.push_back(marker);
  }
}

// Aggregated adds that every item reaches through code without effects
// (it loads from memory and computes, but stores nothing and makes no
// other atomic or call), at most one of them per item: instead of waiting
// at the add with its values kept per item, each item runs that code twice.
// Region 0, a copy of every block that can reach an add, only counts: at
// its add the item adds its operand to the running total and stops, and any
// other way out of those blocks (a return, a block that reaches no add)
// stops it too; region 1, the kernel's own code, runs after the one atomic
// add with the add's result computed from the old value and the running
// offset, as in split_aggregates. Both regions have one way out, so no item
// keeps a state word or a value across the pseudo-barrier and no dispatcher
// scans them; region 0 is a plain reduction over the items (it vectorises),
// and region 1 is the kernel's loop with the running offset as in a C loop.
// The copy reads what the kernel reads before the add, twice; between the
// two reads only other items' stores run, which a kernel without barriers
// cannot order before its own loads (no item can wait for another), so both
// reads see the same values in a kernel without data races and each item
// takes the same path to the same add both times.
bool WorkItemLoops::recount_aggregates(std::string* why) {
  auto no = [&](const char* reason) {
    *why = reason;
    return false;
  };
  if (!barrier_blocks_.empty() || aggregates_.empty()) return no("no aggregated adds");
  SmallPtrSet<BasicBlock*, 8> add_blocks;
  DenseMap<BasicBlock*, AtomicRMWInst*> add_of;
  for (Aggregate& a : aggregates_) {
    if (!add_blocks.insert(a.rmw->getParent()).second) return no("two adds in one block");
    add_of[a.rmw->getParent()] = a.rmw;
  }
  for (BasicBlock& block : f_)
    for (Instruction& inst : block)
      if (auto* alloca = dyn_cast<AllocaInst>(&inst); alloca && !shared_slots_.count(alloca))
        return no("the kernel has private memory, which the copy would share");
  // The blocks that can reach an add (its predecessors are all in it too).
  SmallPtrSet<BasicBlock*, 32> prefix(add_blocks.begin(), add_blocks.end());
  std::vector<BasicBlock*> work(add_blocks.begin(), add_blocks.end());
  while (!work.empty()) {
    BasicBlock* block = work.back();
    work.pop_back();
    for (BasicBlock* pred : predecessors(block))
      if (prefix.insert(pred).second) work.push_back(pred);
  }
  // No add can follow an add (nor itself, in a loop): an item counts one.
  for (BasicBlock* block : add_blocks)
    for (BasicBlock* next : successors(block))
      if (prefix.count(next)) return no("an add can follow an add");
  for (BasicBlock* block : prefix)
    for (Instruction& inst : *block) {
      if (add_of.lookup(block) == &inst) break;  // what follows the add is not counted
      if (is_call_to(inst, kLocalIdMarker)) continue;
      if (auto* load = dyn_cast<LoadInst>(&inst)) {
        if (!load->isSimple()) return no("an atomic or volatile load on the way to an add");
        continue;
      }
      if (inst.mayHaveSideEffects() || inst.mayReadOrWriteMemory()) return no("a store, call or other effect on the way to an add");
    }

  BasicBlock* entry = &f_.getEntryBlock();
  // (The pass's own slots, combined tails' totals, stay in the entry.)
  BasicBlock::iterator split_at = entry->begin();
  while (isa<AllocaInst>(*split_at)) ++split_at;
  BasicBlock* body = entry->splitBasicBlock(split_at, "xgpu.recount.body");
  if (prefix.erase(entry)) prefix.insert(body);
  BasicBlock* marker = BasicBlock::Create(ctx_, "xgpu.aggregate", &f_);
  BranchInst::Create(body, marker);
  IRBuilder<> eb(entry, entry->getFirstInsertionPt());
  for (Aggregate& a : aggregates_) {
    a.running = eb.CreateAlloca(a.type, nullptr, "xgpu.aggregate.running");
    a.base = eb.CreateAlloca(a.type, nullptr, "xgpu.aggregate.base");
    shared_slots_.insert(a.running);
    shared_slots_.insert(a.base);
  }

  // Region 0: the counting copy.
  ValueToValueMapTy map;
  for (BasicBlock& block : f_)
    if (&block != entry && &block != marker && !prefix.count(&block)) map[&block] = marker;
  std::vector<BasicBlock*> blocks;
  for (BasicBlock& block : f_)
    if (prefix.count(&block)) blocks.push_back(&block);
  std::vector<BasicBlock*> clones;
  for (BasicBlock* block : blocks) {
    BasicBlock* clone = CloneBasicBlock(block, map, ".count", &f_);
    map[block] = clone;
    clones.push_back(clone);
  }
  for (BasicBlock* clone : clones)
    for (Instruction& inst : *clone) RemapInstruction(&inst, map, RF_NoModuleLevelChanges | RF_IgnoreMissingLocals);
  entry->getTerminator()->setSuccessor(0, cast<BasicBlock>(map[body]));
  for (Aggregate& a : aggregates_) {
    auto* copy = cast<AtomicRMWInst>(map[a.rmw]);
    IRBuilder<> b(copy);
    b.CreateStore(b.CreateAdd(b.CreateLoad(a.type, a.running, "xgpu.aggregate.offset"), copy->getValOperand()),
                  a.running);
    b.CreateBr(marker);
    std::vector<Instruction*> rest;
    for (auto it = copy->getIterator(); it != copy->getParent()->end(); ++it) rest.push_back(&*it);
    for (auto it = rest.rbegin(); it != rest.rend(); ++it) {
      (*it)->replaceAllUsesWith(PoisonValue::get((*it)->getType()));
      (*it)->eraseFromParent();
    }
  }
  for (BasicBlock* clone : clones)
    if (auto* ret = dyn_cast<ReturnInst>(clone->getTerminator())) {
      BranchInst::Create(marker, ret);
      ret->eraseFromParent();
    }

  // Region 1: the kernel's code, each add's result from the one add's old
  // value and the item's offset in the running total.
  for (Aggregate& a : aggregates_) {
    IRBuilder<> b(a.rmw);
    Value* offset = b.CreateLoad(a.type, a.running, "xgpu.aggregate.offset");
    b.CreateStore(b.CreateAdd(offset, a.rmw->getValOperand()), a.running);
    Value* result = b.CreateAdd(b.CreateLoad(a.type, a.base, "xgpu.aggregate.old"), offset);
    a.rmw->replaceAllUsesWith(result);
    a.rmw->eraseFromParent();
    a.rmw = nullptr;
    a.barrier = unsigned(barrier_blocks_.size()) + 1;
    barrier_index_[marker] = a.barrier;
  }
  barrier_blocks_.push_back(marker);
  return true;
}

}  // namespace xgpu_wiloop
