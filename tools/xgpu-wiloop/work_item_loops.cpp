// xgpu-wiloop: The per-kernel transform's order of steps.
#include "wiloop.h"

namespace xgpu_wiloop {

bool WorkItemLoops::run(std::string* reason) {
  if (!check(reason)) return false;
  // Lifetime markers would land on per-item slots; they are only hints.
  // Scoped no-alias declarations (from inlining the kernel body into the
  // work-item function) would sit inside the item loops, where they keep
  // loads of the kernarg (a no-alias, read-only parameter once transformed)
  // from moving out of them; dropped with the metadata that names them.
  std::vector<Instruction*> hints;
  for (BasicBlock& block : f_)
    for (Instruction& inst : block) {
      auto* intrinsic = dyn_cast<IntrinsicInst>(&inst);
      if (intrinsic && (intrinsic->isLifetimeStartOrEnd() ||
                        intrinsic->getIntrinsicID() == Intrinsic::experimental_noalias_scope_decl)) {
        hints.push_back(intrinsic);
        continue;
      }
      inst.setMetadata(LLVMContext::MD_alias_scope, nullptr);
      inst.setMetadata(LLVMContext::MD_noalias, nullptr);
    }
  for (Instruction* inst : hints) inst->eraseFromParent();

  lower_group_segment_atomics();
  mark_global_ids(f_);
  if (sized_x_) specialize_sized();
  // Barriers split blocks first, so that a value used on both sides of a
  // barrier in one original block is recomputed after it too.
  split_barriers();
  const bool barrier_kernel = !barrier_blocks_.empty();
  if (!sized_x_) combine_tails();  // the sized path runs one workgroup per call
  // Tail atomics combined across a run save more than the sized path's
  // registers (a histogram's bins are indexed by data: they stay in memory
  // on the sized path too): a kernel with them keeps the general loops.
  if (combining() && !sized_paths_.empty()) {
    sized_paths_.clear();
    refuse("sized-path", "its tail adds are combined across runs of workgroups, which saves more");
  }
  if (!aggregates_.empty()) {
    std::string why;
    const size_t adds = aggregates_.size();
    // (Their addresses, checked before the recount replaces the adds.)
    bool invariant = true;
    for (Aggregate& a : aggregates_) invariant = invariant && run_invariant(a.pointer, kRematerializeDepth);
    if (recount_aggregates(&why)) {
      take("recount", "the items run their code up to the adds twice instead of waiting at them");
      recount_runs_ = invariant;
      if (invariant)
        take("recount-runs", "the adds' addresses are the same in every workgroup of a run: the adds are made once "
                             "per chunk of its workgroups");
      else
        refuse("recount-runs", "an add's address may differ between the workgroups of a run");
    } else {
      refuse("recount", why);
      split_aggregates();
    }
    if (recount_runs_)
      take("aggregated-adds", Twine(adds) + " atomic add(s) to one address made once per " +
                                  Twine(kRecountChunkItems) + " items of a run of workgroups");
    else
      take("aggregated-adds", Twine(adds) + " atomic add(s) to one address made once per workgroup");
  }
  rematerialize_uses();
  demote();
  find_regions();
  classify_allocas();
  // Per-item slots live on the stack of the thread that runs the workgroup
  // (worker threads: 8 MiB): bounded for the largest workgroup.
  uint64_t per_item_bytes = sizeof(uint32_t);  // the item's state word
  for (AllocaInst* alloca : per_item_)
    if (std::optional<TypeSize> size = alloca->getAllocationSize(dl_)) per_item_bytes += size->getFixedValue();
  if (per_item_bytes * kMaxWorkgroupItems > kMaxPerItemStackBytes) {
    *reason = "keeps " + std::to_string(per_item_bytes) + " bytes per work item across barriers, more than " +
              std::to_string(kMaxPerItemStackBytes / kMaxWorkgroupItems) + " (stack of a " +
              std::to_string(kMaxWorkgroupItems) + "-item workgroup)";
    return false;
  }
  accumulate_ = false;
  if (!sized_x_ && runs() && combining() && barrier_kernel) {
    std::string why;
    accumulate_ = plan_accumulation(&why);
    if (accumulate_)
      take("kept-bins", "group memory kept across the workgroups of a run of full one-row workgroups");
    else
      refuse("kept-bins", why);
  }
  if (sized_x_ && (needs_dispatch() || !aggregates_.empty())) {
    *reason = "its regions need a dispatcher";
    return false;
  }
  build();
  if (sized_x_) {
    mark_sized_loops();
    SmallPtrSet<Value*, 8> arrays;
    if (group_alloca_) arrays.insert(group_alloca_);
    for (AllocaInst* array : item_arrays_) arrays.insert(array);
    scope_sized_arrays(arrays);
  }
  f_.removeFnAttr(Attribute::Convergent);
  return true;
}

}  // namespace xgpu_wiloop
