// xgpu-wiloop: The general path: the workgroup function as loops over the work items, one
// loop nest per region.
#include "wiloop.h"

namespace xgpu_wiloop {

void WorkItemLoops::build() {
  Type* i32 = Type::getInt32Ty(ctx_);
  Type* i64 = Type::getInt64Ty(ctx_);
  BasicBlock* old_entry = &f_.getEntryBlock();
  std::vector<BasicBlock*> old_blocks;
  for (BasicBlock& block : f_) old_blocks.push_back(&block);

  BasicBlock* entry = BasicBlock::Create(ctx_, "xgpu.entry", &f_, old_entry);
  IRBuilder<> b(entry);
  for (AllocaInst* alloca : allocas_) alloca->moveBefore(*entry, entry->end());
  b.SetInsertPoint(entry);
  Value* counts[3];
  for (unsigned d = 0; d < 3; ++d)
    counts[d] = sized_x_ ? static_cast<Value*>(b.getInt32(d == 0 ? sized_x_ : 1))
                         : b.CreateAlignedLoad(i32,
                                               b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), workgroup(),
                                                                            kWorkgroupItemCountOffset + 4 * d),
                                               Align(4), "xgpu.items");
  Value* items = b.CreateNUWMul(b.CreateNUWMul(counts[0], counts[1]), counts[2]);
  Value* items64 = b.CreateZExt(items, i64);

  // Per-item slots: one array of the alloca's type per work item (of a
  // constant size on the sized path, where SROA can split it).
  MapVector<AllocaInst*, AllocaInst*> arrays;  // in allocas_ order: the code built is the same every time
  DenseMap<AllocaInst*, Type*> item_types;
  for (AllocaInst* alloca : allocas_) {
    if (!per_item_.count(alloca)) continue;
    Type* element = alloca->getAllocatedType();
    if (auto* size = dyn_cast<ConstantInt>(alloca->getArraySize()); size && !size->isOne())
      element = ArrayType::get(element, size->getZExtValue());
    AllocaInst* array = sized_x_ ? b.CreateAlloca(ArrayType::get(element, sized_x_), nullptr, alloca->getName() + ".items")
                                 : b.CreateAlloca(element, items64, alloca->getName() + ".items");
    array->setAlignment(alloca->getAlign());
    arrays[alloca] = array;
    item_types[alloca] = element;
    item_arrays_.push_back(array);
  }
  const unsigned barrier_count = unsigned(barrier_blocks_.size());
  const bool dispatched = needs_dispatch();
  // (The recount leaves every item at its one pseudo-barrier.)
  if (recount_runs_ && (dispatched || barrier_count != 1 || regions_.size() != 2 || !sized_paths_.empty()))
    report_fatal_error("xgpu-wiloop: recounted adds across a run need two regions without a dispatcher");
  AllocaInst* state = dispatched ? b.CreateAlloca(i32, items64, "xgpu.state") : nullptr;

  // Where the workgroup ends: return, or the next workgroup of the run.
  BasicBlock* exit = BasicBlock::Create(ctx_, "xgpu.exit", &f_);
  if (!runs()) ReturnInst::Create(ctx_, exit);
  BasicBlock* dispatch = dispatched ? BasicBlock::Create(ctx_, "xgpu.dispatch", &f_) : exit;

  // Set by the dispatcher: every item waits at the barrier being resumed, so
  // its region's loop needs no per-item test (the loop is unswitched on it).
  AllocaInst* uniform_slot = dispatched ? b.CreateAlloca(b.getInt1Ty(), nullptr, "xgpu.uniform") : nullptr;

  std::vector<BasicBlock*> region_entries(regions_.size());
  for (unsigned r = 0; r < regions_.size(); ++r)
    region_entries[r] = BasicBlock::Create(ctx_, "xgpu.region" + Twine(r), &f_);
  b.SetInsertPoint(entry);
  for (Aggregate& a : aggregates_) b.CreateStore(Constant::getNullValue(a.type), a.running);
  // A run of workgroups along x (combined tail atomics): the regions run
  // once per workgroup; before each, `wg` names it (workgroup_id[0],
  // item_count[0], workgroup_run 1: volatile, so that a fault finds them
  // stored), and the per-item state is sized for the run's first, its
  // widest. Its local ids' totals start at zero.
  Value* run_first = nullptr;
  Value* run_length = nullptr;
  Value* slot_count = nullptr;
  Value* group_width = nullptr;
  PHINode* run_index = nullptr;
  BasicBlock* run_head = nullptr;
  // Recounted adds across the run (recount_runs_): the run goes in chunks
  // of `chunk` workgroups from `chunk_first`; each chunk's workgroups run
  // region 0 (the count), then the adds are made, then they run region 1
  // (`phase`).
  Value* chunk = nullptr;
  PHINode* chunk_first = nullptr;
  PHINode* phase = nullptr;
  Value* accumulating = nullptr;  // plan_accumulation's runs: this call's is one
  if (runs()) {
    auto field = [&](uint64_t offset) { return b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), workgroup(), offset); };
    run_first = b.CreateAlignedLoad(i32, field(kWorkgroupIdOffset), Align(4), "xgpu.run.first");
    Value* length = b.CreateAlignedLoad(i32, field(kWorkgroupRunOffset), Align(4));
    run_length = b.CreateBinaryIntrinsic(Intrinsic::umax, length, b.getInt32(1), nullptr, "xgpu.run.length");
    group_width = b.CreateAlignedLoad(i32, field(kWorkgroupSizeOffset), Align(4), "xgpu.run.width");
    Value* grid_width = b.CreateAlignedLoad(i32, field(kWorkgroupGridSizeOffset), Align(4));
    if (accumulate_) {
      // Every workgroup of the run full along x, one row each.
      Value* end = b.CreateNUWMul(b.CreateNUWAdd(b.CreateZExt(run_first, i64), b.CreateZExt(run_length, i64)),
                                  b.CreateZExt(group_width, i64));
      accumulating = b.CreateAnd(b.CreateICmpULE(end, b.CreateZExt(grid_width, i64)),
                                 b.CreateICmpEQ(b.CreateOr(counts[1], counts[2]), b.getInt32(1)), "xgpu.accumulate");
      // A gate's count must not wrap over the run (plan_accumulation).
      if (accumulate_items_limit_ < uint64_t(UINT32_MAX))
        accumulating = b.CreateAnd(
            accumulating,
            b.CreateICmpULE(b.CreateNUWMul(b.CreateZExt(run_length, i64), b.CreateZExt(group_width, i64)),
                            b.getInt64(accumulate_items_limit_)));
    }
    slot_count = b.CreateNUWMul(b.CreateNUWMul(group_width, counts[1]), counts[2], "xgpu.combine.slots");
    if (recount_runs_)
      chunk = b.CreateBinaryIntrinsic(
          Intrinsic::umax,
          b.CreateUDiv(b.getInt32(uint32_t(kRecountChunkItems)),
                       b.CreateBinaryIntrinsic(Intrinsic::umax, slot_count, b.getInt32(1))),
          b.getInt32(1), nullptr, "xgpu.recount.chunk");
    b.CreateAlignedStore(b.getInt32(1), field(kWorkgroupRunOffset), Align(4), /*isVolatile=*/true);
    BasicBlock* before_run = entry;
    if (combining()) {
      // Totals by element: their fixed count (a loop: host code objects
      // have no memset to call).
      for (Combine& c : combines_) {
        if (!c.indexed) continue;
        BasicBlock* head = b.GetInsertBlock();
        BasicBlock* zero_elements = BasicBlock::Create(ctx_, "xgpu.combine.zero.elements", &f_);
        BasicBlock* after = BasicBlock::Create(ctx_, "xgpu.combine.zero.elements.done", &f_);
        b.CreateBr(zero_elements);
        b.SetInsertPoint(zero_elements);
        PHINode* element = b.CreatePHI(i32, 2, "xgpu.combine.zero.element");
        element->addIncoming(b.getInt32(0), head);
        b.CreateStore(Constant::getNullValue(c.type),
                      b.CreateInBoundsGEP(c.type, c.totals, b.CreateZExt(element, i64)));
        Value* following = b.CreateNUWAdd(element, b.getInt32(1));
        element->addIncoming(following, zero_elements);
        b.CreateCondBr(b.CreateICmpULT(following, b.getInt32(c.indexed)), zero_elements, after);
        b.SetInsertPoint(after);
      }
      BasicBlock* zeroed = b.GetInsertBlock();
      // No workgroup has more items than the totals by local id hold (the
      // runtime's limit); a runtime that broke it would get a trap, not a
      // stack smash.
      BasicBlock* too_big = BasicBlock::Create(ctx_, "xgpu.combine.too_big", &f_);
      BasicBlock* zero = BasicBlock::Create(ctx_, "xgpu.combine.zero", &f_);
      b.CreateCondBr(b.CreateICmpUGT(slot_count, b.getInt32(uint32_t(kMaxWorkgroupItems))), too_big, zero);
      IRBuilder<> tb(too_big);
      tb.CreateIntrinsic(Intrinsic::trap, {}, {});
      tb.CreateUnreachable();
      b.SetInsertPoint(zero);
      PHINode* slot = b.CreatePHI(i32, 2, "xgpu.combine.zero.slot");
      slot->addIncoming(b.getInt32(0), zeroed);
      for (Combine& c : combines_)
        if (!c.indexed)
          b.CreateStore(Constant::getNullValue(c.type), b.CreateInBoundsGEP(c.type, c.totals, b.CreateZExt(slot, i64)));
      Value* next_slot = b.CreateNUWAdd(slot, b.getInt32(1));
      slot->addIncoming(next_slot, zero);
      before_run = zero;
      run_head = BasicBlock::Create(ctx_, "xgpu.run", &f_);
      b.CreateCondBr(b.CreateICmpULT(next_slot, slot_count), zero, run_head);
    } else {
      run_head = BasicBlock::Create(ctx_, "xgpu.run", &f_);
      b.CreateBr(run_head);
    }
    b.SetInsertPoint(run_head);
    run_index = b.CreatePHI(i32, 2, "xgpu.run.index");
    run_index->addIncoming(b.getInt32(0), before_run);
    if (recount_runs_) {
      chunk_first = b.CreatePHI(i32, 3, "xgpu.recount.first");
      chunk_first->addIncoming(b.getInt32(0), before_run);
      phase = b.CreatePHI(b.getInt1Ty(), 3, "xgpu.recount.phase");
      phase->addIncoming(b.getFalse(), before_run);
    }
    Value* group = b.CreateNUWAdd(run_first, run_index, "xgpu.run.group");
    Value* left = b.CreateSub(b.CreateZExt(grid_width, i64),
                              b.CreateNUWMul(b.CreateZExt(group, i64), b.CreateZExt(group_width, i64)));
    Value* width = b.CreateTrunc(
        b.CreateBinaryIntrinsic(Intrinsic::umin, left, b.CreateZExt(group_width, i64)), i32, "xgpu.run.items");
    b.CreateAlignedStore(group, field(kWorkgroupIdOffset), Align(4), /*isVolatile=*/true);
    b.CreateAlignedStore(width, field(kWorkgroupItemCountOffset), Align(4), /*isVolatile=*/true);
    counts[0] = width;
    items64 = b.CreateZExt(b.CreateNUWMul(b.CreateNUWMul(width, counts[1]), counts[2]), i64);
  }
  if (!sized_paths_.empty()) {
    // A workgroup of one of the sized copies' sizes, in full (not at the
    // grid's edge), without dynamic group memory runs that copy.
    auto field = [&](uint64_t offset) {
      return b.CreateAlignedLoad(i32, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), workgroup(), offset), Align(4));
    };
    Value* sized = b.CreateICmpEQ(counts[0], field(kWorkgroupSizeOffset));
    sized = b.CreateAnd(sized, b.CreateICmpEQ(b.CreateOr(counts[1], counts[2]), b.getInt32(1)));
    sized = b.CreateAnd(sized, b.CreateICmpEQ(b.CreateOr(field(kWorkgroupSizeOffset + 4), field(kWorkgroupSizeOffset + 8)),
                                              b.getInt32(1)));
    sized = b.CreateAnd(sized, b.CreateICmpEQ(field(kWorkgroupGroupSegmentSizeOffset),
                                              b.getInt32(sized_path_group_bytes_)), "xgpu.sized");
    BasicBlock* choose = BasicBlock::Create(ctx_, "xgpu.sized.choose", &f_);
    b.CreateCondBr(sized, choose, region_entries[0]);
    IRBuilder<> sb(choose);
    SwitchInst* by_size = sb.CreateSwitch(counts[0], region_entries[0], unsigned(sized_paths_.size()));
    for (auto& [copy, x] : sized_paths_) {
      BasicBlock* call = BasicBlock::Create(ctx_, "xgpu.sized.call" + Twine(x), &f_);
      by_size->addCase(sb.getInt32(x), call);
      IRBuilder<> cb(call);
      CallInst* sized_call = cb.CreateCall(copy, {kernarg(), workgroup()});
      // With debug information, a call that is inlined needs a location in
      // this function, to which the inlined code's locations are chained.
      if (DISubprogram* subprogram = f_.getSubprogram())
        sized_call->setDebugLoc(DILocation::get(ctx_, subprogram->getScopeLine(), 0, subprogram));
      cb.CreateBr(exit);
    }
  } else if (accumulating) {
    // Group memory keeps the run's counts: only its first workgroup zeroes.
    Value* later = b.CreateICmpNE(run_index, b.getInt32(0));
    b.CreateCondBr(b.CreateAnd(accumulating, later), region_entries[1], region_entries[0]);
  } else if (phase) {
    b.CreateCondBr(phase, region_entries[1], region_entries[0]);
  } else {
    b.CreateBr(region_entries[0]);
  }

  // Pairs of regions that one-row workgroups run as one loop (fusion_order),
  // taken from the first region on; a region fused with the one before it
  // starts no pair. The slots that only carry a value into the second
  // region are one scalar each there (mem2reg makes them registers).
  // The fused loop counts its items in i64 and indexes group memory with
  // that counter (widen_group_indices), and a descending one is split at
  // its distance (fold_x_compares), so the vectoriser sees the constant
  // distance between the elements read and written and widens it without
  // run-time overlap checks or masked loads: on scan256 half the time of
  // the two loops it replaces.
  std::vector<unsigned> fusions(regions_.size(), kNoFusion);
  std::vector<uint32_t> splits(regions_.size(), 0);
  std::vector<MapVector<AllocaInst*, AllocaInst*>> fused_scalars(regions_.size());
  // (The sized path's unrolled loops need no fusion; a run that accumulates
  // group memory skips regions 0 and 2 on its own.)
  if (!dispatched && !sized_x_ && !accumulate_)
    for (unsigned r = 0; r + 1 < regions_.size(); ++r) {
      SmallSetVector<AllocaInst*, 4> scalars;
      std::string why;
      fusions[r] = fusion_order(r, &scalars, &splits[r], &why);
      if (fusions[r] == kNoFusion) {
        // (Reported for pairs that could be fused but for what `why` says.)
        if (!why.empty())
          refuse("fused-regions", "regions " + Twine(r) + " and " + Twine(r + 1) + ": " + why);
        continue;
      }
      take("fused-regions", "regions " + Twine(r) + " and " + Twine(r + 1) + " as one loop over the items in " +
                                (fusions[r] == kFuseDescending ? "descending" : "ascending") + " order" +
                                (splits[r] ? ", split at item " + Twine(splits[r]) : ""));
      IRBuilder<> sb(entry, entry->getFirstInsertionPt());
      for (AllocaInst* alloca : scalars)
        fused_scalars[r][alloca] = sb.CreateAlloca(alloca->getAllocatedType(), nullptr, alloca->getName() + ".fused");
      ++r;
    }

  for (unsigned r = 0; r < regions_.size(); ++r) {
    const std::string region_tag = "r" + std::to_string(r);
    // Without state words, items that would only pass through to the
    // barrier need not run at all: the x loop stops at x_bound.
    const uint64_t bound = dispatched ? 0 : x_bound(r);
    if (bound) take("narrowed-region", "region " + Twine(r) + " runs the items x < " + Twine(bound) + " only");
    // Replaced by the branch into the region's loop nest once it is built.
    Instruction* placeholder = new UnreachableInst(ctx_, region_entries[r]);
    Value* uniform = nullptr;
    if (r == 0 || !dispatched) {
      uniform = ConstantInt::getTrue(ctx_);
    } else {
      IRBuilder<> rb(placeholder);
      uniform = rb.CreateLoad(rb.getInt1Ty(), uniform_slot, "xgpu.uniform");
    }

    // Resuming the items that wait at an aggregated add: the one atomic add
    // of their total, whose old value they all add their offset to.
    for (Aggregate& a : aggregates_) {
      if (a.barrier != r || phase) continue;  // (across a run: between the chunk's phases)
      IRBuilder<> ab(placeholder);
      Value* total = ab.CreateLoad(a.type, a.running, "xgpu.aggregate.total");
      Value* pointer = rematerialize(a.pointer, placeholder);
      AtomicRMWInst* add = ab.CreateAtomicRMW(AtomicRMWInst::Add, pointer, total, a.align, a.ordering, a.scope);
      ab.CreateStore(add, a.base);
      ab.CreateStore(Constant::getNullValue(a.type), a.running);
    }

    // A region run by every item whose only way out is one barrier (or
    // return) leaves every item there: the next region follows without the
    // dispatcher's scan.
    BasicBlock* done = dispatch;
    if (barrier_count && region_exits_[r] != kExitsMixed) {
      done = BasicBlock::Create(ctx_, region_tag + ".done", &f_);
      IRBuilder<> db(done);
      BasicBlock* next = region_exits_[r] == kExitsReturn ? exit : region_entries[region_exits_[r]];
      if (!dispatched && accumulating && r == 1) {
        // ... and only its last reads the slots into the totals.
        Value* more = db.CreateICmpNE(db.CreateNUWAdd(run_index, db.getInt32(1)), run_length);
        db.CreateCondBr(db.CreateAnd(accumulating, more), exit, next);
      } else if (phase && r == 0) {
        db.CreateBr(exit);  // the chunk's next workgroup, or its adds
      } else if (!dispatched) {
        db.CreateBr(next);
      } else if (r == 0) {
        if (next != exit) db.CreateStore(db.getTrue(), uniform_slot);
        db.CreateBr(next);
      } else {
        db.CreateCondBr(uniform, next, dispatch);  // the uniform slot stays true
      }
    }

    // Emits the region's loop nest z { y { x { item } } }, bottom-tested
    // (every count is >= 1), with `x_count` items along x; returns its
    // first block. Its last z iteration goes to `done`.
    // With `fused` (a one-row nest only), the nest runs region r + 1 after
    // region r in each item's iteration, in that order of the items, and
    // its last iteration goes to `fused_done`; it runs the items low ..
    // x_count - 1 (descending: low is where it stops), of which high is
    // the largest there can be, and folds the compares of x that range
    // decides (fold_x_compares).
    auto emit_nest = [&](Value* x_count, Value* y_count, Value* z_count, const std::string& tag,
                         unsigned fused = kNoFusion, BasicBlock* fused_done = nullptr, uint32_t low = 0,
                         uint32_t high = kMaxWorkgroupItems - 1) -> BasicBlock* {
      const bool descending = fused == kFuseDescending;
      BasicBlock* zh = BasicBlock::Create(ctx_, tag + ".z", &f_);
      BasicBlock* yh = BasicBlock::Create(ctx_, tag + ".y", &f_);
      BasicBlock* xh = BasicBlock::Create(ctx_, tag + ".x", &f_);
      BasicBlock* xl = BasicBlock::Create(ctx_, tag + ".x.next", &f_);
      BasicBlock* yl = BasicBlock::Create(ctx_, tag + ".y.next", &f_);
      BasicBlock* zl = BasicBlock::Create(ctx_, tag + ".z.next", &f_);
      nest_headers_.insert({zh, yh, xh});
      b.SetInsertPoint(zh);
      PHINode* z = b.CreatePHI(i32, 2, "xgpu.z");
      b.CreateBr(yh);
      b.SetInsertPoint(yh);
      PHINode* y = b.CreatePHI(i32, 2, "xgpu.y");
      y->addIncoming(b.getInt32(0), zh);
      Value* first_x = descending ? b.CreateSub(x_count, b.getInt32(1)) : b.getInt32(0);
      // A fused nest counts its items in i64 (widen_group_indices); x is
      // its truncation, exact (x < kMaxWorkgroupItems).
      Value* first_x64 = fused ? b.CreateZExt(first_x, i64) : nullptr;
      b.CreateBr(xh);  // x_count >= 1, as x_bound and the item counts are
      b.SetInsertPoint(xh);
      PHINode* x_phi = b.CreatePHI(fused ? i64 : i32, 2, fused ? "xgpu.x64" : "xgpu.x");
      x_phi->addIncoming(fused ? first_x64 : first_x, yh);
      Value* x = fused ? b.CreateTrunc(x_phi, i32, "xgpu.x", /*IsNUW=*/true, /*IsNSW=*/true) : x_phi;
      Value* row = b.CreateNUWAdd(b.CreateNUWMul(z, counts[1]), y);
      Value* linear = b.CreateZExt(b.CreateNUWAdd(b.CreateNUWMul(row, counts[0]), x), i64, "xgpu.item");

      ValueToValueMapTy map;
      for (auto& [alloca, array] : arrays)
        if (!fused || !fused_scalars[r].count(alloca))
          map[alloca] = b.CreateInBoundsGEP(item_types[alloca], array, linear, alloca->getName() + ".item");
      if (fused)
        for (auto& [alloca, scalar] : fused_scalars[r]) map[alloca] = scalar;
      Value* state_slot = state ? b.CreateInBoundsGEP(i32, state, linear, "xgpu.state.item") : nullptr;

      // Exits: to barrier k records k; a return records kStateReturned.
      for (BasicBlock* barrier : barrier_blocks_) {
        if (fused && barrier == barrier_blocks_[r]) continue;  // into region r + 1
        BasicBlock* leave = BasicBlock::Create(ctx_, tag + ".to.barrier" + Twine(barrier_index_[barrier]), &f_);
        if (state_slot) new StoreInst(ConstantInt::get(i32, barrier_index_[barrier]), state_slot, leave);
        BranchInst::Create(xl, leave);
        map[barrier] = leave;
      }
      std::vector<BasicBlock*> clones;
      for (unsigned part = r; part <= (fused ? r + 1 : r); ++part)
        for (BasicBlock* block : regions_[part]) {
          BasicBlock* clone = CloneBasicBlock(block, map, "." + tag, &f_);
          map[block] = clone;
          clones.push_back(clone);
        }
      if (fused) map[barrier_blocks_[r]] = map[region_starts_[r + 1]];
      if (r == 0 || !dispatched) {
        b.CreateBr(cast<BasicBlock>(map[region_starts_[r]]));
      } else {
        // Only the items waiting at this region's barrier run it.
        BasicBlock* test = BasicBlock::Create(ctx_, tag + ".x.test", &f_);
        b.CreateCondBr(uniform, cast<BasicBlock>(map[region_starts_[r]]), test);
        IRBuilder<> tb(test);
        Value* here = tb.CreateICmpEQ(tb.CreateAlignedLoad(i32, state_slot, Align(4)), tb.getInt32(r));
        tb.CreateCondBr(here, cast<BasicBlock>(map[region_starts_[r]]), xl);
      }
      for (BasicBlock* clone : clones)
        for (Instruction& inst : *clone) RemapInstruction(&inst, map, RF_NoModuleLevelChanges | RF_IgnoreMissingLocals);
      if (fused)
        for (BasicBlock* clone : clones) {
          widen_group_indices(clone, x_phi);
          fold_x_compares(clone, low, high);
        }
      for (BasicBlock* clone : clones) {
        for (auto it = clone->begin(); it != clone->end();) {
          Instruction& inst = *it++;
          if (is_call_to(inst, kLocalIdMarker)) {
            Value* d = cast<CallInst>(inst).getArgOperand(0);
            IRBuilder<> ib(&inst);
            Value* id = ib.CreateSelect(ib.CreateICmpEQ(d, ib.getInt32(0)), x,
                                        ib.CreateSelect(ib.CreateICmpEQ(d, ib.getInt32(1)), y,
                                                        ib.CreateSelect(ib.CreateICmpEQ(d, ib.getInt32(2)), z,
                                                                        ib.getInt32(0))));
            inst.replaceAllUsesWith(id);
            inst.eraseFromParent();
          } else if (isa<ReturnInst>(inst)) {
            IRBuilder<> ib(&inst);
            if (state_slot) ib.CreateAlignedStore(ib.getInt32(kStateReturned), state_slot, Align(4));
            ib.CreateBr(xl);
            inst.eraseFromParent();
          }
        }
      }

      b.SetInsertPoint(xl);
      if (descending) {
        Value* x1 = b.CreateSub(x_phi, b.getInt64(1));
        x_phi->addIncoming(x1, xl);
        b.CreateCondBr(b.CreateICmpNE(x_phi, b.getInt64(low)), xh, yl);
      } else if (fused) {
        Value* x1 = b.CreateNUWAdd(x_phi, b.getInt64(1));
        x_phi->addIncoming(x1, xl);
        b.CreateCondBr(b.CreateICmpULT(x1, b.CreateZExt(x_count, i64)), xh, yl);
      } else {
        Value* x1 = b.CreateNUWAdd(x_phi, b.getInt32(1));
        x_phi->addIncoming(x1, xl);
        b.CreateCondBr(b.CreateICmpULT(x1, x_count), xh, yl);
      }
      b.SetInsertPoint(yl);
      Value* y1 = b.CreateNUWAdd(y, b.getInt32(1));
      y->addIncoming(y1, yl);
      b.CreateCondBr(b.CreateICmpULT(y1, y_count), yh, zl);
      b.SetInsertPoint(zl);
      Value* z1 = b.CreateNUWAdd(z, b.getInt32(1));
      z->addIncoming(z1, zl);
      b.CreateCondBr(b.CreateICmpULT(z1, z_count), zh, fused ? fused_done : done);
      return zh;
    };

    IRBuilder<> rb(placeholder);
    // A one-row workgroup (1-D, the common case) runs a copy without the y
    // and z loops, whose latches and spilled counters cost each region a
    // few instructions more (measured on scan256: about 5 %).
    Value* one_row = rb.CreateICmpEQ(rb.CreateOr(counts[1], counts[2]), rb.getInt32(1), "xgpu.one_row");  // counts >= 1
    if (!bound) {
      // A fused pair (one-row workgroups only: items of other rows share
      // x) goes on to the region after region r + 1.
      BasicBlock* fused_done = nullptr;
      if (fusions[r] != kNoFusion) {
        fused_done = BasicBlock::Create(ctx_, region_tag + ".fused.done", &f_);
        const unsigned after = region_exits_[r + 1];
        BranchInst::Create(after == kExitsReturn ? exit : region_entries[after], fused_done);
      }
      BasicBlock* row_nest = nullptr;
      if (const uint32_t split = splits[r]) {
        // A descending fused pair split at its distance d: the items d ..
        // x_count - 1 (when there are such), then 0 .. min(x_count, d) - 1,
        // each copy with the compares of x its range decides folded.
        Value* low_count = rb.CreateBinaryIntrinsic(Intrinsic::umin, counts[0], rb.getInt32(split));
        BasicBlock* low_nest = emit_nest(low_count, rb.getInt32(1), rb.getInt32(1), region_tag + ".row.low",
                                         fusions[r], fused_done, 0, split - 1);
        BasicBlock* high_nest = emit_nest(counts[0], rb.getInt32(1), rb.getInt32(1), region_tag + ".row.high",
                                          fusions[r], low_nest, split);
        row_nest = BasicBlock::Create(ctx_, region_tag + ".row.split", &f_);
        IRBuilder<> sb(row_nest);
        sb.CreateCondBr(sb.CreateICmpUGT(counts[0], sb.getInt32(split)), high_nest, low_nest);
        cast<PHINode>(&high_nest->front())->addIncoming(sb.getInt32(0), row_nest);
        auto* low_z = cast<PHINode>(&low_nest->front());
        for (BasicBlock* pred : predecessors(low_nest))
          if (low_z->getBasicBlockIndex(pred) < 0) low_z->addIncoming(sb.getInt32(0), pred);
      } else {
        row_nest = emit_nest(counts[0], rb.getInt32(1), rb.getInt32(1), region_tag + ".row", fusions[r], fused_done);
        cast<PHINode>(&row_nest->front())->addIncoming(rb.getInt32(0), region_entries[r]);
      }
      BasicBlock* nest = emit_nest(counts[0], counts[1], counts[2], region_tag);
      cast<PHINode>(&nest->front())->addIncoming(rb.getInt32(0), region_entries[r]);
      rb.CreateCondBr(one_row, row_nest, nest);
      placeholder->eraseFromParent();
      continue;
    }
    // A region that only the items below the bound run: when the workgroup
    // is one row (1-D) of at least `bound` items (every full workgroup of a
    // kernel written for its size), the region is one x loop whose trip
    // count is the constant `bound`, so the optimiser unrolls a short loop
    // into straight-line code and vectorises a long one without a remainder
    // or runtime checks. Other workgroups (the grid's edge, a narrower
    // dispatch, several rows, where a constant x loop inside the y loop
    // invites the optimiser to keep group memory in registers across rows)
    // run the copy that stops at the item count.
    BasicBlock* wide = emit_nest(rb.getInt32(uint32_t(bound)), rb.getInt32(1), rb.getInt32(1), region_tag + ".const");
    BasicBlock* narrow = emit_nest(counts[0], counts[1], counts[2], region_tag);
    cast<PHINode>(&wide->front())->addIncoming(rb.getInt32(0), region_entries[r]);
    cast<PHINode>(&narrow->front())->addIncoming(rb.getInt32(0), region_entries[r]);
    Value* full = rb.CreateICmpUGE(counts[0], rb.getInt32(uint32_t(bound)));
    rb.CreateCondBr(rb.CreateAnd(one_row, full, "xgpu.x.full"), wide, narrow);
    placeholder->eraseFromParent();
  }

  if (dispatched) {
    // The next region is that of the lowest-numbered barrier an item waits
    // at (all items that have not returned wait at the same barrier in a
    // kernel that follows the language rules; others wait for a later
    // round). One pass over the state words, two reductions (vectorised):
    // the lowest and the highest state; every item waits at the same barrier
    // (none returned, none elsewhere) when they are equal.
    BasicBlock* scan = BasicBlock::Create(ctx_, "xgpu.dispatch.scan", &f_);
    BasicBlock* chosen = BasicBlock::Create(ctx_, "xgpu.dispatch.chosen", &f_);
    BasicBlock* resume = BasicBlock::Create(ctx_, "xgpu.dispatch.resume", &f_);
    b.SetInsertPoint(dispatch);
    b.CreateBr(scan);
    b.SetInsertPoint(scan);
    PHINode* i = b.CreatePHI(i64, 2, "xgpu.scan");
    PHINode* lowest = b.CreatePHI(i32, 2, "xgpu.scan.lowest");
    PHINode* highest = b.CreatePHI(i32, 2, "xgpu.scan.highest");
    i->addIncoming(b.getInt64(0), dispatch);
    lowest->addIncoming(b.getInt32(kStateReturned), dispatch);
    highest->addIncoming(b.getInt32(0), dispatch);
    Value* s = b.CreateAlignedLoad(i32, b.CreateInBoundsGEP(i32, state, i), Align(4));
    Value* lowest1 = b.CreateBinaryIntrinsic(Intrinsic::umin, lowest, s);
    Value* highest1 = b.CreateBinaryIntrinsic(Intrinsic::umax, highest, s);
    Value* i1 = b.CreateNUWAdd(i, b.getInt64(1));
    i->addIncoming(i1, scan);
    lowest->addIncoming(lowest1, scan);
    highest->addIncoming(highest1, scan);
    b.CreateCondBr(b.CreateICmpULT(i1, items64), scan, chosen);
    b.SetInsertPoint(chosen);
    b.CreateCondBr(b.CreateICmpEQ(lowest1, b.getInt32(kStateReturned)), exit, resume);
    b.SetInsertPoint(resume);
    b.CreateStore(b.CreateICmpEQ(lowest1, highest1), uniform_slot);
    SwitchInst* sw = b.CreateSwitch(lowest1, exit, barrier_count);
    for (unsigned k = 1; k <= barrier_count; ++k) sw->addCase(b.getInt32(k), region_entries[k]);
  }

  if (runs()) {
    // The run's end: the next workgroup, or the combined atomics.
    IRBuilder<> eb(exit);
    Value* next = eb.CreateNUWAdd(run_index, eb.getInt32(1));
    run_index->addIncoming(next, exit);
    BasicBlock* flush = BasicBlock::Create(ctx_, "xgpu.combine.flush", &f_);
    if (phase) {
      // exit: the chunk's next workgroup in this phase; after its last, the
      // adds (then the chunk again, in region 1), or the next chunk.
      Value* chunk_end = eb.CreateBinaryIntrinsic(Intrinsic::umin, eb.CreateNUWAdd(chunk_first, chunk), run_length,
                                                  nullptr, "xgpu.recount.end");
      chunk_first->addIncoming(chunk_first, exit);
      phase->addIncoming(phase, exit);
      BasicBlock* phase_done = BasicBlock::Create(ctx_, "xgpu.recount.phase.done", &f_);
      BasicBlock* adds = BasicBlock::Create(ctx_, "xgpu.recount.adds", &f_);
      BasicBlock* chunk_done = BasicBlock::Create(ctx_, "xgpu.recount.chunk.done", &f_);
      eb.CreateCondBr(eb.CreateICmpULT(next, chunk_end), run_head, phase_done);
      IRBuilder<> pb(phase_done);
      pb.CreateCondBr(phase, chunk_done, adds);
      // The adds: one atomic add of each total, whose old value region 1's
      // items add their offsets to (counted again from zero).
      IRBuilder<> ab(adds);
      Instruction* at = ab.CreateBr(run_head);
      ab.SetInsertPoint(at);
      for (Aggregate& a : aggregates_) {
        Value* total = ab.CreateLoad(a.type, a.running, "xgpu.aggregate.total");
        Value* pointer = rematerialize(a.pointer, at);
        ab.SetInsertPoint(at);
        AtomicRMWInst* add = ab.CreateAtomicRMW(AtomicRMWInst::Add, pointer, total, a.align, a.ordering, a.scope);
        ab.CreateStore(add, a.base);
        ab.CreateStore(Constant::getNullValue(a.type), a.running);
      }
      run_index->addIncoming(chunk_first, adds);
      chunk_first->addIncoming(chunk_first, adds);
      phase->addIncoming(ab.getTrue(), adds);
      // The chunk done: the next one counts from zero.
      IRBuilder<> cb(chunk_done);
      for (Aggregate& a : aggregates_) cb.CreateStore(Constant::getNullValue(a.type), a.running);
      cb.CreateCondBr(cb.CreateICmpULT(chunk_end, run_length), run_head, flush);
      run_index->addIncoming(chunk_end, chunk_done);
      chunk_first->addIncoming(chunk_end, chunk_done);
      phase->addIncoming(cb.getFalse(), chunk_done);
    } else {
      eb.CreateCondBr(eb.CreateICmpULT(next, run_length), run_head, flush);
    }
    IRBuilder<> fb(flush);
    if (combining()) {
      std::vector<Value*> arguments{kernarg(), workgroup(), run_first, run_length, slot_count, group_width, counts[1]};
      for (Combine& c : combines_) arguments.push_back(c.totals);
      fb.CreateCall(combine_function(), arguments);
    }
    fb.CreateRetVoid();
  }

  for (BasicBlock* block : old_blocks) block->dropAllReferences();
  for (BasicBlock* block : old_blocks) block->eraseFromParent();
  for (auto& [alloca, array] : arrays) {
    alloca->replaceAllUsesWith(array);  // none left but dead ones
    demoted_.erase(alloca);
    alloca->eraseFromParent();
  }
}

}  // namespace xgpu_wiloop
