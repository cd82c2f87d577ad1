// xgpu-wiloop: the plugin: the module pass that runs the per-kernel transform on
// every work-item function, and its registration with clang's pipeline.
#include "wiloop.h"

namespace xgpu_wiloop {
namespace {

// Recursion cannot be inlined away; such a kernel keeps fiber mode.
bool calls_itself(const Function& function) {
  for (const Instruction& inst : instructions(function))
    if (const auto* call = dyn_cast<CallBase>(&inst); call && call->getCalledFunction() == &function) return true;
  return false;
}

// Reports `plan` as remarks on `function` (kernel `kernel`).
void emit_remarks(Function& function, StringRef kernel, const Plan& plan) {
  OptimizationRemarkEmitter ore(&function);
  for (const Plan::Decision& d : plan.decisions) {
    if (d.taken)
      ore.emit(OptimizationRemark(kRemarkPass, d.path, &function) << "kernel '" << kernel << "': " << d.path << ": "
                                                                   << d.why);
    else
      ore.emit(OptimizationRemarkMissed(kRemarkPass, d.path, &function)
               << "kernel '" << kernel << "': not " << d.path << ": " << d.why);
  }
}

// Records the paths `plan` took for `kernel` in the code object
// (XGPU_HOST_WILOOP_PATHS_SECTION).
void record_paths(Module& module, StringRef kernel, const Plan& plan) {
  const std::string record = kernel.str() + '\0' + plan.taken() + '\0';
  Constant* bytes = ConstantDataArray::getString(module.getContext(), record, /*AddNull=*/false);
  auto* global = new GlobalVariable(module, bytes->getType(), /*isConstant=*/true, GlobalValue::InternalLinkage,
                                    bytes, kernel + ".xgpu_wiloop_paths");
  global->setSection(kPathsSection);
  global->setAlignment(Align(1));
  appendToCompilerUsed(module, {global});
}

GlobalVariable* find_descriptor(Module& module, StringRef kernel) {
  const std::string name = (kernel + kDescriptorSuffix).str();
  if (GlobalVariable* gv = module.getGlobalVariable(name)) return gv;
  return module.getGlobalVariable(("\01" + name));
}

struct WorkItemLoopPass : PassInfoMixin<WorkItemLoopPass> {
  explicit WorkItemLoopPass(PassBuilder* builder) : builder_(builder) {}

  PreservedAnalyses run(Module& module, ModuleAnalysisManager& mam) {
    if (!is_host_module(module)) return PreservedAnalyses::all();
    std::vector<Function*> items;
    for (Function& function : module)
      if (!function.isDeclaration() && function.getName().ends_with(kItemFunctionSuffix)) items.push_back(&function);
    if (items.empty()) return PreservedAnalyses::all();
    FunctionAnalysisManager& fam = mam.getResult<FunctionAnalysisManagerModuleProxy>(module).getManager();
    FunctionPassManager cleanup =
        builder_->buildFunctionSimplificationPipeline(OptimizationLevel::O3, ThinOrFullLTOPhase::None);

    // Helpers that call xgpu_barrier() and were not inlined (their code is
    // shared with the fiber entry) are inlined into the work-item function.
    SmallPtrSet<Function*, 8> reaches_barrier;
    for (bool grew = true; grew;) {
      grew = false;
      for (Function& function : module) {
        if (function.isDeclaration() || reaches_barrier.count(&function)) continue;
        for (Instruction& inst : instructions(function)) {
          auto* call = dyn_cast<CallBase>(&inst);
          Function* callee = call ? call->getCalledFunction() : nullptr;
          if (callee && (callee->getName() == kBarrierMarker || reaches_barrier.count(callee))) {
            reaches_barrier.insert(&function);
            grew = true;
            break;
          }
        }
      }
    }

    for (Function* function : items) {
      StringRef kernel = function->getName().drop_back(kItemFunctionSuffix.size());
      std::string reason;
      GlobalVariable* descriptor = find_descriptor(module, kernel);
      auto* init = descriptor && descriptor->hasInitializer()
                       ? dyn_cast<ConstantStruct>(descriptor->getInitializer())
                       : nullptr;
      const bool barriers = !init || init->getNumOperands() <= kDescriptorFlagsField ||
                            (cast<ConstantInt>(init->getOperand(kDescriptorFlagsField))->getZExtValue() &
                             kFlagUsesBarriers);
      // A kernel without barriers keeps <xgpu/kernel.h>'s item loop unless it
      // has an atomic add the workgroup function aggregates.
      if (!barriers && !WorkItemLoops(*function, module.getDataLayout(), reaches_barrier).find_aggregates()) {
        removeFromUsedLists(module, [&](Constant* c) { return c->stripPointerCasts() == function; });
        function->replaceAllUsesWith(PoisonValue::get(function->getType()));
        function->eraseFromParent();
        continue;
      }
      for (unsigned round = 0; round < kInlineRounds; ++round) {
        std::vector<CallBase*> calls;
        for (Instruction& inst : instructions(*function))
          if (auto* call = dyn_cast<CallBase>(&inst))
            if (Function* callee = call->getCalledFunction();
                callee && reaches_barrier.count(callee) && !calls_itself(*callee))
              calls.push_back(call);
        if (calls.empty()) break;
        for (CallBase* call : calls) {
          InlineFunctionInfo info;
          InlineFunction(*call, info);
        }
      }
      fam.invalidate(*function, PreservedAnalyses::none());
      cleanup.run(*function, fam);
      bool done = false;
      bool runs = false;  // the function runs runs of workgroups
      Plan plan;
      if (!init || init->getNumOperands() <= kDescriptorFlagsField) {
        reason = "its host descriptor was not found";
      } else {
        // A barrier kernel of a required workgroup size (x, 1, 1) gets the
        // sized path too: a copy of the work-item function transformed for
        // exactly that workgroup (WorkItemLoops::set_sized), which the
        // workgroup function calls for full workgroups. A kernel without a
        // required size whose barriers sit in loops gets copies for the
        // workgroup sizes kSizedVersions, when the first of them shows that
        // the size decides those loops (they unroll once it is a constant).
        // A kernel neither fits runs without them.
        std::vector<std::pair<Function*, uint32_t>> sized;  // each copy and its x
        Plan sized_plan;  // the sized transform's own decisions (the last copy's)
        uint32_t group_bytes = 0;
        bool declared = false;
        // Whether a barrier sits in a loop (one the size may decide).
        bool barrier_loop = false;
        {
          DominatorTree dt(*function);
          LoopInfo li(dt);
          for (const Loop* loop : li.getLoopsInPreorder())
            for (const BasicBlock* block : loop->blocks())
              for (const Instruction& inst : *block) barrier_loop = barrier_loop || is_call_to(inst, kBarrierMarker);
        }
        // The copy for (x, 1, 1): the record's sizes folded to constants,
        // simplified again (uniform loops whose trip count the size decides
        // unroll, barriers and all), then transformed; null if it fails.
        auto make_sized = [&](uint32_t x, std::string* why) -> Function* {
          ValueToValueMapTy map;
          Function* copy = CloneFunction(function, map);
          copy->setName(function->getName() + ".sized" + Twine(x));
          copy->setLinkage(GlobalValue::InternalLinkage);
          WorkItemLoops::fold_sizes(*copy, x);
          if (barrier_loop) {
            // (A kernel without barrier loops has nothing to unroll: its
            // copy is left as it was simplified.)
            fam.invalidate(*copy, PreservedAnalyses::none());
            cleanup.run(*copy, fam);
            fam.clear(*copy, copy->getName());
          }
          Plan copy_plan;
          WorkItemLoops sized_transform(*copy, module.getDataLayout(), reaches_barrier);
          sized_transform.set_sized(x, group_bytes);
          sized_transform.set_sizes_folded();
          sized_transform.set_plan(&copy_plan);
          if (!sized_transform.run(why)) {
            copy->eraseFromParent();
            return nullptr;
          }
          sized_plan = std::move(copy_plan);
          return copy;
        };
        if (barriers && init->getNumOperands() > kDescriptorRequiredSizeField) {
          Constant* required = init->getOperand(kDescriptorRequiredSizeField);
          auto element = [&](unsigned i) {
            auto* value = dyn_cast_or_null<ConstantInt>(required->getAggregateElement(i));
            return value ? value->getZExtValue() : 0;
          };
          const auto* group = dyn_cast<ConstantInt>(init->getOperand(kDescriptorGroupSegmentSizeField));
          declared = element(0) != 0;
          if (!declared) {
            // No required size: copies by the dispatch's size, when its
            // barriers sit in loops (said only when one is made).
            if (barrier_loop && group && group->getZExtValue() <= kMaxSizedGroupBytes) {
              group_bytes = uint32_t(group->getZExtValue());
              for (uint32_t x : kSizedVersions) {
                std::string why;
                Function* copy = make_sized(x, &why);
                if (!copy) {
                  // The first size shows whether the size decides the loops;
                  // a larger one refused after smaller ones were made says
                  // why (the larger sizes are not tried).
                  if (sized.empty())
                    plan.refuse("sized-path", "a copy for workgroups of (" + Twine(x) + ", 1, 1) items (the kernel "
                                              "declares no size): " + why);
                  else
                    plan.refuse("sized-path", "no copy for workgroups of (" + Twine(x) + ", 1, 1) items or more (the "
                                              "smaller sizes have one): " + why);
                  break;
                }
                sized.emplace_back(copy, x);
              }
            }
          } else if (element(1) != 1 || element(2) != 1) {
            plan.refuse("sized-path", "its required workgroup size is not (x, 1, 1)");
          } else if (element(0) > kMaxSizedItems) {
            plan.refuse("sized-path", "its required workgroup size is over " + Twine(kMaxSizedItems) + " items");
          } else if (!group || group->getZExtValue() > kMaxSizedGroupBytes) {
            plan.refuse("sized-path", "its static group memory is over " + Twine(kMaxSizedGroupBytes) + " bytes");
          } else {
            group_bytes = uint32_t(group->getZExtValue());
            std::string why;
            if (Function* copy = make_sized(uint32_t(element(0)), &why))
              sized.emplace_back(copy, uint32_t(element(0)));
            else
              plan.refuse("sized-path", why);
          }
        }
        WorkItemLoops transform(*function, module.getDataLayout(), reaches_barrier);
        transform.set_runs(barriers);
        transform.set_plan(&plan);
        if (!sized.empty()) transform.set_sized_paths(sized, group_bytes);
        done = (barriers || transform.find_aggregates()) && transform.run(&reason);
        runs = done && transform.runs();
        bool used = false;
        for (auto& [copy, x] : sized) used = used || !copy->use_empty();
        if (done && used) {
          std::string scopes;
          for (const Plan::Decision& d : sized_plan.decisions)
            if (d.path == "sized-path-scopes" || d.path == "sized-path-unroll") scopes += "; " + d.why;
          std::string sizes;
          for (size_t i = 0; i < sized.size(); ++i)
            sizes += (i == 0 ? "" : i + 1 == sized.size() ? " or " : ", ") + ("(" + std::to_string(sized[i].second) + ", 1, 1)");
          plan.take("sized-path", "full workgroups of " + sizes + " items" +
                                      (declared ? "" : ", by the dispatch's workgroup size (the kernel declares none),") +
                                      " run with group memory and per-item slots on the stack" +
                                      (sized.size() > 1 ? " (" + std::to_string(sized.back().second) + "'s copy: " : "") +
                                      scopes.substr(sized.size() > 1 ? 2 : 0) + (sized.size() > 1 ? ")" : ""));
        }
        for (auto& [copy, x] : sized) {
          // Into the workgroup function (its one call), where the sized
          // path's stack arrays become the caller's.
          std::vector<CallBase*> calls;
          for (User* user : copy->users())
            if (auto* call = dyn_cast<CallBase>(user)) calls.push_back(call);
          for (CallBase* call : calls) {
            InlineFunctionInfo info;
            InlineFunction(*call, info);
          }
          if (copy->use_empty()) copy->eraseFromParent();
        }
      }
      removeFromUsedLists(module, [&](Constant* c) { return c->stripPointerCasts() == function; });
      if (!done) {
        if (barriers) {
          errs() << "xgpu-wiloop: note: kernel '" << kernel << "' runs its work items as fibers on the host: "
                 << reason << "\n";
          plan.refuse("work-item-loops", "runs its work items as fibers: " + reason);
        }
        emit_remarks(*function, kernel, plan);
        function->replaceAllUsesWith(PoisonValue::get(function->getType()));
        function->eraseFromParent();
        continue;
      }
      if (barriers)
        plan.take("work-item-loops", "the regions between its barriers run as loops over the work items");
      emit_remarks(*function, kernel, plan);
      record_paths(module, kernel, plan);
      if (verifyFunction(*function, &errs())) {
        if (getenv("XGPU_WILOOP_DUMP")) function->print(errs());
        report_fatal_error("xgpu-wiloop: kernel '" + kernel + "': the transformed function is invalid");
      }
      // The kernarg segment and the workgroup record are readable for the
      // whole dispatch and written by nobody while it runs: loads from them
      // may move out of the item loops.
      const auto* kernarg_size = dyn_cast<ConstantInt>(init->getOperand(kDescriptorKernargSizeField));
      if (kernarg_size && kernarg_size->getZExtValue() != 0)
        function->addDereferenceableParamAttr(0, kernarg_size->getZExtValue());
      function->addDereferenceableParamAttr(1, kWorkgroupRecordBytes);
      // Aligned as the descriptor says (the kernarg, spec/kernels.md) and
      // as the record's type is: such loads may be speculated.
      const auto* kernarg_alignment = dyn_cast<ConstantInt>(init->getOperand(kDescriptorKernargAlignmentField));
      if (kernarg_alignment && isPowerOf2_64(kernarg_alignment->getZExtValue()))
        function->addParamAttr(0, Attribute::getWithAlignment(function->getContext(),
                                                              Align(kernarg_alignment->getZExtValue())));
      function->addParamAttr(
          1, Attribute::getWithAlignment(function->getContext(), Align(kWorkgroupRecordAlignment)));
      // A function that runs runs of workgroups writes `wg` (the
      // workgroup it is running), which nothing else reads while it runs.
      for (unsigned arg = 0; arg < 2; ++arg) {
        function->addParamAttr(arg, Attribute::NoAlias);
        if (arg == 0 || !runs) function->addParamAttr(arg, Attribute::ReadOnly);
      }
      fam.invalidate(*function, PreservedAnalyses::none());
      cleanup.run(*function, fam);
      std::vector<Constant*> fields;
      for (unsigned i = 0; i < init->getNumOperands(); ++i) fields.push_back(init->getOperand(i));
      fields[kDescriptorRunWorkgroupField] = function;
      auto* flags = cast<ConstantInt>(fields[kDescriptorFlagsField]);
      if (barriers)
        fields[kDescriptorFlagsField] = ConstantInt::get(
            flags->getType(), flags->getZExtValue() | kFlagWorkitemLoops | (runs ? kFlagWorkgroupRuns : 0));
      else  // the function written here runs one workgroup per call, or a run when it says so
        fields[kDescriptorFlagsField] = ConstantInt::get(
            flags->getType(), runs ? flags->getZExtValue() | kFlagWorkgroupRuns : flags->getZExtValue() & ~kFlagWorkgroupRuns);
      descriptor->setInitializer(ConstantStruct::get(init->getType(), fields));
    }
    // Guard-free copies of the item loops of every workgroup function.
    for (GlobalVariable& global : module.globals()) {
      if (!global.getName().ends_with(kDescriptorSuffix) || !global.hasInitializer()) continue;
      auto* fields = dyn_cast<ConstantStruct>(global.getInitializer());
      if (!fields || fields->getNumOperands() <= kDescriptorRunWorkgroupField) continue;
      auto* run = dyn_cast<Function>(fields->getOperand(kDescriptorRunWorkgroupField)->stripPointerCasts());
      if (run && !run->isDeclaration()) split_bound_checks(*run, fam);
    }
    drop_loop_marks(module);
    // What is left of the markers sits in helpers on paths only the
    // work-item functions take (workitem_loops == 1): never reached.
    for (StringRef marker : {kLocalIdMarker, kBarrierMarker}) {
      Function* decl = module.getFunction(marker);
      if (!decl) continue;
      std::vector<CallInst*> calls;
      for (User* user : decl->users())
        if (auto* call = dyn_cast<CallInst>(user)) calls.push_back(call);
      for (CallInst* call : calls) {
        IRBuilder<> b(call);
        b.CreateIntrinsic(Intrinsic::trap, {}, {});
        if (!call->getType()->isVoidTy()) call->replaceAllUsesWith(PoisonValue::get(call->getType()));
        call->eraseFromParent();
      }
      if (decl->use_empty()) decl->eraseFromParent();
    }
    return PreservedAnalyses::none();
  }

  PassBuilder* builder_;
};

}  // namespace
}  // namespace xgpu_wiloop

using namespace llvm;
using xgpu_wiloop::BindingAccessPass;
using xgpu_wiloop::BoundsChecksPass;
using xgpu_wiloop::LateUnrollPass;
using xgpu_wiloop::PrintingKernelsPass;
using xgpu_wiloop::WorkItemLoopPass;

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "xgpu-wiloop", "1", [](PassBuilder& builder) {
            builder.registerOptimizerEarlyEPCallback([&builder](ModulePassManager& mpm, OptimizationLevel) {
              mpm.addPass(WorkItemLoopPass(&builder));
            });
            // Last, on every target: which kernels may print, once inlining
            // and the steps above have settled what each one calls.
            builder.registerOptimizerLastEPCallback([](ModulePassManager& mpm, OptimizationLevel) {
              mpm.addPass(LateUnrollPass());
              mpm.addPass(PrintingKernelsPass());
              mpm.addPass(BindingAccessPass());
              mpm.addPass(BoundsChecksPass());
            });
            builder.registerPipelineParsingCallback(
                [&builder](StringRef name, ModulePassManager& mpm, ArrayRef<PassBuilder::PipelineElement>) {
                  if (name == "xgpu-wiloop") {
                    mpm.addPass(WorkItemLoopPass(&builder));
                    return true;
                  }
                  if (name == "xgpu-wiloop-late") {
                    mpm.addPass(LateUnrollPass());
                    return true;
                  }
                  if (name == "xgpu-printing-kernels") {
                    mpm.addPass(PrintingKernelsPass());
                    return true;
                  }
                  if (name == "xgpu-binding-access") {
                    mpm.addPass(BindingAccessPass());
                    return true;
                  }
                  if (name == "xgpu-bounds-checks") {
                    mpm.addPass(BoundsChecksPass());
                    return true;
                  }
                  return false;
                });
          }};
}
