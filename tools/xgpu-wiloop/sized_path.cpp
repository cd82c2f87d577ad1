// xgpu-wiloop: The sized path: one full workgroup of a kernel's required size, group memory
// on the stack, unrolled after vectorisation.
#include <map>

#include "wiloop.h"

namespace xgpu_wiloop {

// The sized path (set_sized): the workgroup record's sizes and item counts
// are the required size's, and group memory is an array of the function,
// aligned as the runtime aligns the group segment; a shared slot, not a
// per-item one.
void WorkItemLoops::specialize_sized() {
  if (!sizes_folded_) fold_sizes(f_, sized_x_);
  AllocaInst* group = nullptr;
  if (sized_group_bytes_) {
    IRBuilder<> b(&*f_.getEntryBlock().getFirstInsertionPt());
    group = b.CreateAlloca(ArrayType::get(b.getInt8Ty(), sized_group_bytes_), nullptr, "xgpu.group");
    group->setAlignment(Align(kGroupSegmentAlignment));
    shared_slots_.insert(group);
    group_alloca_ = group;
  }
  if (!group) return;  // no static group memory: the record's pointer stays
  std::vector<LoadInst*> loads;
  for (BasicBlock& block : f_)
    for (Instruction& inst : block)
      if (auto* load = dyn_cast<LoadInst>(&inst)) loads.push_back(load);
  const DataLayout& dl = f_.getParent()->getDataLayout();
  for (LoadInst* load : loads) {
    uint64_t offset = 0;
    if (!load->isSimple() || !is_argument_field(load->getPointerOperand(), workgroup(), dl, &offset)) continue;
    if (offset != kWorkgroupGroupSegmentOffset || !load->getType()->isPointerTy()) continue;
    load->replaceAllUsesWith(group);
    load->eraseFromParent();
  }
}

// The first step of the sized path, which may run before the copy is
// simplified again (plugin.cpp): the workgroup record's sizes and item
// counts in `function` become those of one full workgroup of (x, 1, 1)
// items. A uniform loop whose trip count they decide (a tree's `s <
// xgpu_workgroup_size(0)`), barriers and all, then has a constant trip
// count, and the simplification unrolls it: the copy's regions follow each
// other with one way out each, as the sized path needs.
void WorkItemLoops::fold_sizes(Function& function, uint32_t x) {
  // Global ids are marked as not wrapping while the size is still a field
  // of the record, which is what the marking recognises.
  mark_global_ids(function);
  Argument* record = function.getArg(1);
  const DataLayout& dl = function.getParent()->getDataLayout();
  // The workgroup is full: its x range lies inside the grid. Said so that
  // the kernel's own item count (<xgpu/kernel.h>: the grid size less the
  // workgroup's first x id, at most the workgroup size) folds to the size.
  {
    IRBuilder<> b(&*function.getEntryBlock().getFirstInsertionPt());
    Type* i32 = b.getInt32Ty();
    auto field = [&](uint64_t offset) {
      return b.CreateAlignedLoad(i32, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), record, offset), Align(4));
    };
    Value* left = b.CreateSub(field(kWorkgroupGridSizeOffset), b.CreateMul(field(kWorkgroupIdOffset), b.getInt32(x)));
    b.CreateAssumption(b.CreateICmpUGE(left, b.getInt32(x)));
  }
  std::vector<LoadInst*> loads;
  for (BasicBlock& block : function)
    for (Instruction& inst : block)
      if (auto* load = dyn_cast<LoadInst>(&inst)) loads.push_back(load);
  for (LoadInst* load : loads) {
    uint64_t offset = 0;
    if (!load->isSimple() || !load->getType()->isIntegerTy(32) ||
        !is_argument_field(load->getPointerOperand(), record, dl, &offset))
      continue;
    Value* value = nullptr;
    for (uint64_t base : {kWorkgroupSizeOffset, kWorkgroupItemCountOffset})
      if (offset >= base && offset < base + 12 && (offset - base) % 4 == 0)
        value = ConstantInt::get(load->getType(), offset == base ? x : 1);
    if (!value) continue;
    load->replaceAllUsesWith(value);
    load->eraseFromParent();
  }
}

// The sized path's arrays (group memory, the per-item slots) are its own:
// no kernel buffer can alias them. Said with scoped no-alias metadata, so
// that the vectoriser adds no run-time overlap checks between them and the
// kernel's buffers (such a check compares their addresses as integers,
// after which no alias analysis can tell them apart, nor can SROA take the
// arrays into registers). An access whose every underlying object (through
// GEPs, casts, selects and phis) is one of the arrays gets the scope; one
// none of whose objects can be one gets the no-alias list: each object is
// another stack slot, a global, an argument or a pointer loaded from the
// kernarg (written by the host before the dispatch), or — only when no array's
// address escapes (stored, passed to a call that may keep it, made into an
// integer: LLVM's capture tracking) — a pointer loaded from memory,
// returned by a call or made from an integer. Any other access (a group
// pointer read from a private table, one kept in a per-item slot across a
// barrier, one built from an integer) gets neither.
void WorkItemLoops::scope_sized_arrays(const SmallPtrSetImpl<Value*>& arrays) {
  bool escapes = false;
  for (Value* array : arrays)
    escapes = escapes || PointerMayBeCaptured(array, /*ReturnCaptures=*/true, /*StoreCaptures=*/true, kMaxCaptureUses);
  MDBuilder mdb(ctx_);
  MDNode* domain = mdb.createAnonymousAliasScopeDomain("xgpu.sized");
  MDNode* scope = mdb.createAnonymousAliasScope(domain, "xgpu.sized.arrays");
  MDNode* list = MDNode::get(ctx_, {scope});
  unsigned scoped = 0, apart_count = 0, left = 0;
  for (BasicBlock& block : f_)
    for (Instruction& inst : block) {
      Value* ptr = nullptr;
      if (auto* load = dyn_cast<LoadInst>(&inst)) ptr = load->getPointerOperand();
      else if (auto* store = dyn_cast<StoreInst>(&inst)) ptr = store->getPointerOperand();
      else if (auto* rmw = dyn_cast<AtomicRMWInst>(&inst)) ptr = rmw->getPointerOperand();
      else if (auto* cmpxchg = dyn_cast<AtomicCmpXchgInst>(&inst)) ptr = cmpxchg->getPointerOperand();
      if (!ptr) continue;
      SmallVector<const Value*, 4> objects;
      getUnderlyingObjects(ptr, objects, nullptr, /*MaxLookup=*/0);
      unsigned own = 0, apart = 0;
      for (const Value* object : objects) {
        if (arrays.count(const_cast<Value*>(object)))
          ++own;
        else if (isa<AllocaInst>(object) || isa<GlobalValue>(object) || isa<Argument>(object) ||
                 isa<ConstantPointerNull>(object) || from_kernarg(object) || !escapes)
          ++apart;
      }
      if (!objects.empty() && own == objects.size()) {
        inst.setMetadata(LLVMContext::MD_alias_scope, list);
        ++scoped;
      } else if (!objects.empty() && apart == objects.size()) {
        inst.setMetadata(LLVMContext::MD_noalias, list);
        ++apart_count;
      } else {
        ++left;
      }
    }
  take("sized-path-scopes", Twine(scoped) + " accesses to its arrays, " + Twine(apart_count) + " apart from them, " +
                                Twine(left) + " that may touch them unscoped" + (escapes ? " (an array's address escapes)" : ""));
}

// Whether the innermost item loop `loop` of a sized copy branches on a
// condition computed from its counter and constants alone, through an
// operation that is not a line in the counter (`x % m == 0`, `(x & 3) ==
// 0`, ...; a compare of the counter itself, `x < stride`, is what the
// vectoriser masks well). Unrolled in full, such a branch folds in each
// item's copy.
bool WorkItemLoops::item_decided_branch(const Loop& loop) {
  PHINode* counter = loop.getCanonicalInductionVariable();
  if (!counter) return false;
  // Whether `value` is a function of the counter and constants only, and
  // whether the way there holds an operation other than +, -, *, casts.
  std::function<bool(const Value*, bool&, unsigned)> of_counter = [&](const Value* value, bool& bent,
                                                                     unsigned depth) {
    if (value == counter) return true;
    if (isa<Constant>(value)) return true;
    const auto* inst = dyn_cast<Instruction>(value);
    if (!inst || depth > 8 || !loop.contains(inst) || inst->mayReadOrWriteMemory() || isa<PHINode>(inst))
      return false;
    if (const auto* select = dyn_cast<SelectInst>(inst)) {  // (a dimension's id, picked by a constant)
      const auto* pick = dyn_cast<ConstantInt>(select->getCondition());
      return pick && of_counter(pick->isOne() ? select->getTrueValue() : select->getFalseValue(), bent, depth + 1);
    }
    if (!isa<BinaryOperator>(inst) && !isa<CastInst>(inst) && !isa<CmpInst>(inst)) return false;
    switch (inst->getOpcode()) {
      case Instruction::Add: case Instruction::Sub: case Instruction::Mul: case Instruction::ICmp:
      case Instruction::ZExt: case Instruction::SExt: case Instruction::Trunc:
        break;
      default:
        bent = true;
    }
    for (const Value* operand : inst->operands())
      if (!of_counter(operand, bent, depth + 1)) return false;
    return true;
  };
  for (const BasicBlock* block : loop.blocks()) {
    const auto* branch = dyn_cast<BranchInst>(block->getTerminator());
    if (!branch || !branch->isConditional() || loop.isLoopExiting(block)) continue;
    bool bent = false;
    const auto* compare = dyn_cast<ICmpInst>(branch->getCondition());
    if (compare && of_counter(compare, bent, 0) && bent) return true;
  }
  return false;
}

// Marks the sized path's item loops (the nests build() made) and the
// kernel's loops around them (a uniform loop with a barrier in it): no
// unrolling until the pass's last step (LateUnrollPass), which unrolls them
// in full. The kernel's own loops inside a region keep their IDs: marked,
// each item's copy of such a loop would be unrolled in full too (a
// 256-iteration loop in a 64-item kernel: 16,384 bodies, a build of tens
// of seconds; tests/fuzz-kernels/found/sized_inner_loop_unroll.c), and SROA gains
// nothing from it, as their accesses are the items' own.
void WorkItemLoops::mark_sized_loops() {
  DominatorTree dt(f_);
  LoopInfo li(dt);
  auto holds_nest = [&](const Loop* loop) {
    for (const BasicBlock* block : loop->blocks())
      if (nest_headers_.count(block)) return true;
    return false;
  };
  unsigned marked = 0, kept = 0, scalar = 0;
  for (Loop* loop : li.getLoopsInPreorder()) {
    if (!holds_nest(loop)) {
      ++kept;
      continue;
    }
    SmallVector<Metadata*, 4> operands{nullptr};
    if (MDNode* id = loop->getLoopID())
      for (unsigned i = 1; i < id->getNumOperands(); ++i) operands.push_back(id->getOperand(i));
    operands.push_back(MDNode::get(ctx_, {MDString::get(ctx_, kUnrollDisable)}));
    if (loop->isInnermost() && item_decided_branch(*loop)) {
      // Left scalar: unrolled in full, each item's copy of the branch
      // folds, the items it skips vanish, and the SLP vectoriser of the
      // last step widens what is left (an interleaved tree reduction's
      // `lid % (2 * s) == 0` becomes the sum of vectors). Widened first,
      // the branch would be a mask over every item.
      operands.push_back(MDNode::get(ctx_, {MDString::get(ctx_, kVectorizeWidth),
                                            ConstantAsMetadata::get(ConstantInt::get(Type::getInt32Ty(ctx_), 1))}));
      ++scalar;
    }
    // The mark names the copy (its x): LateUnrollPass holds each copy to
    // its own budget once the copies are inlined into one function.
    operands.push_back(MDNode::get(ctx_, {MDString::get(ctx_, kLateUnrollMarker),
                                          ConstantAsMetadata::get(ConstantInt::get(Type::getInt32Ty(ctx_), sized_x_))}));
    MDNode* id = MDNode::getDistinct(ctx_, operands);
    id->replaceOperandWith(0, id);
    loop->setLoopID(id);
    ++marked;
  }
  std::string why = std::to_string(marked) + " loop(s) to unroll after vectorisation";
  if (kept) why += ", " + std::to_string(kept) + " of the kernel's own left to LLVM's unroller";
  if (scalar) why += ", " + std::to_string(scalar) + " of them scalar (a branch the item decides, not in a line)";
  take("sized-path-unroll", why);
}

// Whether `array` is used only as the address of loads, stores, masked
// loads and stores and lifetime markers, directly or through GEPs: its
// address goes nowhere (LLVM's capture tracking gives up past 100 uses,
// which an unrolled sized copy's arrays have by the thousand).
static bool only_addressed(const AllocaInst* array) {
  SmallVector<const Value*, 16> work{array};
  SmallPtrSet<const Value*, 16> seen;
  while (!work.empty()) {
    const Value* pointer = work.pop_back_val();
    if (!seen.insert(pointer).second) continue;
    for (const Use& use : pointer->uses()) {
      const User* user = use.getUser();
      if (isa<GetElementPtrInst>(user)) {
        work.push_back(user);
      } else if (isa<LoadInst>(user)) {
      } else if (const auto* store = dyn_cast<StoreInst>(user)) {
        if (use.getOperandNo() != store->getPointerOperandIndex()) return false;
      } else if (const auto* intrinsic = dyn_cast<IntrinsicInst>(user)) {
        const Intrinsic::ID id = intrinsic->getIntrinsicID();
        if (id == Intrinsic::lifetime_start || id == Intrinsic::lifetime_end) continue;
        if (id == Intrinsic::masked_load && use.getOperandNo() == 0) continue;
        if (id == Intrinsic::masked_store && use.getOperandNo() == 1) continue;
        return false;
      } else {
        return false;
      }
    }
  }
  return true;
}

// A masked load or store of a stack array at a constant offset whose mask
// is a constant run of lanes (a tree or scan step's first vector, whose
// first lanes read before the array: `x >= off ? v[x - off] : 0`) becomes a
// load or store of just those lanes, which lie inside the array, and a
// shuffle: accesses SROA can take into registers, where the masked
// intrinsic kept the whole array in memory. One whose constant mask is no
// run becomes a whole-vector access and a blend (below, where legal).
// Returns whether it changed any.
bool narrow_masked_array_accesses(Function& function) {
  const DataLayout& dl = function.getParent()->getDataLayout();
  std::vector<IntrinsicInst*> calls;
  for (Instruction& inst : instructions(function))
    if (auto* intrinsic = dyn_cast<IntrinsicInst>(&inst);
        intrinsic && (intrinsic->getIntrinsicID() == Intrinsic::masked_load ||
                      intrinsic->getIntrinsicID() == Intrinsic::masked_store))
      calls.push_back(intrinsic);
  bool changed = false;
  DenseMap<const AllocaInst*, bool> addressed;  // only_addressed, by array
  for (IntrinsicInst* call : calls) {
    const bool load = call->getIntrinsicID() == Intrinsic::masked_load;
    Value* ptr = call->getArgOperand(load ? 0 : 1);
    auto* mask = dyn_cast<Constant>(call->getArgOperand(load ? 2 : 3));
    auto* type = cast<FixedVectorType>(load ? call->getType() : call->getArgOperand(0)->getType());
    if (!mask) continue;
    const unsigned lanes = type->getNumElements();
    int first = -1, last = -1;
    bool run = true;
    for (unsigned i = 0; i < lanes; ++i) {
      Constant* bit = mask->getAggregateElement(i);
      if (!bit || isa<UndefValue>(bit)) {
        run = false;
        break;
      }
      if (bit->isOneValue()) {
        if (last >= 0 && last != int(i) - 1) run = false;
        if (first < 0) first = int(i);
        last = int(i);
      }
    }
    if (first < 0) continue;
    APInt offset(dl.getIndexTypeSizeInBits(ptr->getType()), 0);
    auto* array = dyn_cast<AllocaInst>(ptr->stripAndAccumulateConstantOffsets(dl, offset, /*AllowNonInbounds=*/true));
    std::optional<TypeSize> size = array ? array->getAllocationSize(dl) : std::nullopt;
    const uint64_t element = dl.getTypeStoreSize(type->getElementType());
    if (!size || size->isScalable() || dl.getTypeAllocSize(type->getElementType()) != element) continue;
    if (!run) {
      // Lanes that are no run (a tree step's every other item: `lid % 2 ==
      // 0`): the whole vector, when it lies inside the array, is loaded and
      // blended, and a store becomes a load, a blend and a store of the
      // whole vector. The lanes the mask leaves out are written back with
      // the values they hold, which is right as long as no other thread
      // can write them meanwhile: the array is this call's own (an alloca
      // whose address is not captured; the sized path's group memory and
      // per-item slots are such arrays).
      const int64_t begin = offset.getSExtValue();
      const int64_t end = begin + int64_t(lanes) * int64_t(element);
      if (begin < 0 || uint64_t(end) > size->getFixedValue() ||
          !addressed.try_emplace(array, [&] { return only_addressed(array); }()).first->second)
        continue;
      IRBuilder<> b(call);
      const Align align = cast<ConstantInt>(call->getArgOperand(load ? 1 : 2))->getAlignValue();
      Value* whole = b.CreateAlignedLoad(type, ptr, align);
      if (load) {
        call->replaceAllUsesWith(b.CreateSelect(mask, whole, call->getArgOperand(3)));
      } else {
        b.CreateAlignedStore(b.CreateSelect(mask, call->getArgOperand(0), whole), ptr, align);
      }
      call->eraseFromParent();
      changed = true;
      continue;
    }
    const int64_t begin = offset.getSExtValue() + int64_t(first) * int64_t(element);
    const int64_t end = offset.getSExtValue() + int64_t(last + 1) * int64_t(element);
    if (begin < 0 || uint64_t(end) > size->getFixedValue()) continue;
    const unsigned count = unsigned(last - first + 1);
    IRBuilder<> b(call);
    Type* part_type = count == 1 ? type->getElementType() : static_cast<Type*>(FixedVectorType::get(type->getElementType(), count));
    Value* at = b.CreateConstGEP1_64(b.getInt8Ty(), ptr, uint64_t(first) * element);
    const Align align = commonAlignment(cast<ConstantInt>(call->getArgOperand(load ? 1 : 2))->getAlignValue(),
                                        uint64_t(first) * element);
    if (load) {
      Value* part = b.CreateAlignedLoad(part_type, at, align);
      Value* result = call->getArgOperand(3);  // the passthru lanes
      for (unsigned i = 0; i < count; ++i)
        result = b.CreateInsertElement(result, count == 1 ? part : b.CreateExtractElement(part, uint64_t(i)),
                                       uint64_t(first) + i);
      call->replaceAllUsesWith(result);
    } else {
      Value* value = call->getArgOperand(0);
      Value* part = nullptr;
      if (count == 1) {
        part = b.CreateExtractElement(value, uint64_t(first));
      } else {
        SmallVector<int, 16> indices;
        for (unsigned i = 0; i < count; ++i) indices.push_back(int(first + i));
        part = b.CreateShuffleVector(value, indices);
      }
      b.CreateAlignedStore(part, at, align);
    }
    call->eraseFromParent();
    changed = true;
  }
  return changed;
}

namespace {
struct NarrowMaskedArrayAccessesPass : PassInfoMixin<NarrowMaskedArrayAccessesPass> {
  PreservedAnalyses run(Function& function, FunctionAnalysisManager&) {
    return narrow_masked_array_accesses(function) ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
};
}  // namespace

// The copy (its workgroup's x) a late-unroll mark names; 0 for a mark
// without one.
static uint64_t late_unroll_copy(const MDNode* mark) {
  if (mark->getNumOperands() < 2) return 0;
  const auto* value = mdconst::dyn_extract_or_null<ConstantInt>(mark->getOperand(1));
  return value ? value->getZExtValue() : 0;
}

// The pass's last step, after vectorisation: unrolls the sized path's loops
// (WorkItemLoops::set_sized) in full, then lets SROA take group memory and
// the per-item slots, now at constant offsets, into registers. Vectorised
// first, the loops unroll into vector code (a tree reduction's steps into
// vector adds of registers and, for the last steps, shuffles); unrolled
// before, they would be scalar code the SLP vectoriser gathers badly.
// How large the innermost loop `loop` is, unrolled in full (`trips`
// iterations): its blocks' sizes times the trips, but a block only one side
// of a branch on the counter reaches (a scalar loop's `x % 4 == 0`) counts
// for the iterations that take that side, found by folding the branch's
// condition with the counter at each iteration; those of the other
// iterations fold away once unrolled. (An estimate for a budget: the
// unroller's own cleanup decides the final code.)
static uint64_t unrolled_size(const Loop& loop, unsigned trips, const DominatorTree& dt) {
  std::map<const BasicBlock*, uint64_t> times;  // per block, where fewer than trips
  PHINode* counter = const_cast<Loop&>(loop).getCanonicalInductionVariable();
  const DataLayout& dl = loop.getHeader()->getDataLayout();
  // `value` at counter value k, folded; nullptr where it does not fold.
  std::function<Constant*(Value*, uint64_t, unsigned)> fold = [&](Value* value, uint64_t k,
                                                                  unsigned depth) -> Constant* {
    if (counter && value == counter) return ConstantInt::get(counter->getType(), k);
    if (auto* constant = dyn_cast<Constant>(value)) return constant;
    auto* inst = dyn_cast<Instruction>(value);
    if (!counter || !inst || depth > 8 || !loop.contains(inst) || isa<PHINode>(inst) || inst->isTerminator() ||
        inst->mayReadOrWriteMemory())
      return nullptr;
    SmallVector<Constant*, 4> operands;
    for (Value* operand : inst->operands()) {
      Constant* folded = fold(operand, k, depth + 1);
      if (!folded) return nullptr;
      operands.push_back(folded);
    }
    return ConstantFoldInstOperands(inst, operands, dl);
  };
  for (const BasicBlock* block : loop.blocks()) {
    const auto* branch = dyn_cast<BranchInst>(block->getTerminator());
    if (!branch || !branch->isConditional() || loop.isLoopExiting(block)) continue;
    uint64_t taken[2] = {0, 0};  // iterations that go to successor 0, 1
    bool folds = true;
    for (uint64_t k = 0; k < trips && folds; ++k) {
      auto* condition = dyn_cast_or_null<ConstantInt>(fold(branch->getCondition(), k, 0));
      if (!condition) folds = false;
      else ++taken[condition->isOne() ? 0 : 1];
    }
    if (!folds) continue;
    for (unsigned side = 0; side < 2; ++side) {
      const BasicBlockEdge edge(block, branch->getSuccessor(side));
      for (const BasicBlock* reached : loop.blocks())
        if (dt.dominates(edge, reached)) {
          auto [at, fresh] = times.emplace(reached, taken[side]);
          if (!fresh) at->second = std::min(at->second, taken[side]);
        }
    }
  }
  // (The counter's own arithmetic, and what is computed from it and
  // constants alone, folds in each copy: it is not counted, nor is a
  // branch on it.)
  uint64_t total = 0;
  for (const BasicBlock* block : loop.blocks()) {
    uint64_t kept = 0;
    for (const Instruction& inst : *block) {
      const auto* branch = dyn_cast<BranchInst>(&inst);
      Value* decided = branch && branch->isConditional() ? branch->getCondition() : const_cast<Instruction*>(&inst);
      if (&inst == counter || !fold(decided, 0, 0)) ++kept;
    }
    const auto at = times.find(block);
    total = SaturatingAdd(total, SaturatingMultiply(kept, at == times.end() ? trips : at->second));
  }
  return total;
}

PreservedAnalyses LateUnrollPass::run(Module& module, ModuleAnalysisManager& mam) {
  if (!is_host_module(module)) return PreservedAnalyses::all();
  FunctionAnalysisManager& fam = mam.getResult<FunctionAnalysisManagerModuleProxy>(module).getManager();
  bool changed = false;
  for (Function& function : module) {
    if (function.isDeclaration()) continue;
    // Unrolled in full, how large each sized copy's marked loops would be
    // (the copies of one kernel are inlined into its workgroup function;
    // the mark names its copy): a loop's size times its trip count, a
    // marked inner loop counted unrolled. Over kMaxLateUnrolledSize a
    // copy's loops stay loops (still right, and still sized: constant
    // counts, group memory on the stack), as the straight-line code would
    // cost more to compile than it saves; each copy is held to the budget
    // on its own.
    std::map<uint64_t, uint64_t> unrolled;  // by copy
    {
      DominatorTree dt(function);
      LoopInfo li(dt);
      const bool has_marks = any_of(li.getLoopsInPreorder(), [](const Loop* loop) {
        return findOptionMDForLoopID(loop->getLoopID(), kLateUnrollMarker) != nullptr;
      });
      if (has_marks) {
        TargetLibraryInfoImpl tlii;
        TargetLibraryInfo tli(tlii, &function);
        AssumptionCache ac(function);
        ScalarEvolution se(function, tli, ac, dt, li);
        std::function<uint64_t(const Loop*)> size = [&](const Loop* loop) -> uint64_t {
          const bool late = findOptionMDForLoopID(loop->getLoopID(), kLateUnrollMarker) != nullptr;
          const unsigned trips = late ? se.getSmallConstantTripCount(const_cast<Loop*>(loop)) : 0;
          if (trips && loop->isInnermost()) return unrolled_size(*loop, trips, dt);
          uint64_t body = 0;
          for (const BasicBlock* block : loop->blocks())
            if (li.getLoopFor(block) == loop) body += block->size();
          for (const Loop* inner : *loop) body = SaturatingAdd(body, size(inner));
          return trips ? SaturatingMultiply(body, uint64_t(trips)) : body;
        };
        // Each outermost marked loop counts for the copy its mark names
        // (the loops around it, such as the run of workgroups, stay loops).
        for (const Loop* loop : li.getLoopsInPreorder()) {
          const MDNode* mark = findOptionMDForLoopID(loop->getLoopID(), kLateUnrollMarker);
          if (!mark) continue;
          bool outermost = true;
          for (const Loop* outer = loop->getParentLoop(); outer && outermost; outer = outer->getParentLoop())
            outermost = findOptionMDForLoopID(outer->getLoopID(), kLateUnrollMarker) == nullptr;
          if (!outermost) continue;
          const uint64_t copy = late_unroll_copy(mark);
          unrolled[copy] = SaturatingAdd(unrolled[copy], size(loop));
        }
      }
    }
    if (unrolled.empty()) continue;
    std::map<uint64_t, bool> unroll;
    bool any_unrolled = false;
    for (const auto& entry : unrolled) {
      const uint64_t copy = entry.first, instructions = entry.second;
      unroll[copy] = instructions <= kMaxLateUnrolledSize;
      any_unrolled |= unroll[copy];
      if (unroll[copy]) continue;
      OptimizationRemarkEmitter ore(&function);
      ore.emit([&] {
        StringRef kernel = function.getName();
        kernel.consume_back(kItemFunctionSuffix);
        return OptimizationRemarkMissed(kRemarkPass, "sized-path-unroll", &function)
               << "kernel '" << kernel << "': sized-path: the loops of its copy for (" << ore::NV("Items", copy)
               << ", 1, 1) items stay loops: unrolled in full they would be about "
               << ore::NV("Size", instructions) << " instructions, over " << ore::NV("Limit", kMaxLateUnrolledSize);
      });
    }
    // The marked loop IDs, each replaced by one that asks for a full
    // unroll instead (or, over its copy's budget, by one without the marks).
    LLVMContext& context = function.getContext();
    const bool marked = rewrite_loop_ids(function, [&](MDNode* id) -> std::optional<SmallVector<Metadata*, 4>> {
      SmallVector<Metadata*, 4> options;
      std::optional<uint64_t> copy;
      for (unsigned i = 1; i < id->getNumOperands(); ++i) {
        const StringRef name = option_name(id->getOperand(i));
        if (name == kLateUnrollMarker) copy = late_unroll_copy(cast<MDNode>(id->getOperand(i)));
        if (name != kLateUnrollMarker && !name.starts_with("llvm.loop.unroll.")) options.push_back(id->getOperand(i));
      }
      if (!copy) return std::nullopt;
      const auto decided = unroll.find(*copy);
      if (decided != unroll.end() && decided->second)
        options.push_back(MDNode::get(context, {MDString::get(context, kUnrollFull)}));
      return options;
    });
    if (!marked || !any_unrolled) {
      changed |= marked;
      continue;
    }
    changed = true;
    FunctionPassManager fpm;
    fpm.addPass(LoopUnrollPass(LoopUnrollOptions(3, /*OnlyWhenForced=*/true, /*ForgetSCEV=*/false)));
    // A masked load of an array element, now at a constant offset, is a
    // load and a select (the array is dereferenceable): what SROA takes.
    fpm.addPass(InstCombinePass());
    fpm.addPass(NarrowMaskedArrayAccessesPass());
    // (Branches of scalar loops that folded per item: their dead items go.)
    fpm.addPass(SimplifyCFGPass());
    fpm.addPass(SROAPass(SROAOptions::ModifyCFG));
    fpm.addPass(EarlyCSEPass(/*UseMemorySSA=*/true));
    fpm.addPass(InstCombinePass());
    // What scalar loops left, unrolled and in registers (a sum over the
    // items' values), widened.
    fpm.addPass(SLPVectorizerPass());
    fpm.addPass(InstCombinePass());
    fpm.addPass(DSEPass());
    fpm.addPass(SimplifyCFGPass());
    fam.invalidate(function, PreservedAnalyses::none());
    fam.invalidate(function, fpm.run(function, fam));
  }
  return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

}  // namespace xgpu_wiloop
