// xgpu-wiloop: which kernels may print (spec/kernels.md, "Printing and
// asserts"), recorded in the code object for the driver, which gives a print
// buffer only to such kernels (<xgpu/kernel_print.h>).
//
// An analysis, then one transform that only adds data:
// - A function may print when it calls xgpu_print_emit_ (<xgpu/kernel.h>'s
//   one writer of print records, or an LLVM copy of it), makes a call whose
//   callee it cannot see (through a pointer), calls a function declared but
//   not defined in the module (another source's helper: it may print), or
//   calls a defined function that may print. LLVM intrinsics, inline
//   assembly, the plugin's own markers (xgpu_wiloop_*) and, on the host,
//   the runtime's barrier (`wg->barrier(wg)` in fiber mode, the one call
//   through a pointer <xgpu/host_kernel.h> makes) do not print.
//   Conservative: a kernel that may print and never does only costs the
//   driver a slot write; one that prints and is not recorded would write
//   through whatever lies before its kernarg segment.
// - A kernel is an entry point of its target: AMDGPU functions of calling
//   convention amdgpu_kernel; NVPTX functions of calling convention
//   ptx_kernel or listed as kernels in !nvvm.annotations; on the host the
//   functions the initializer of each `K.kd` descriptor refers to (run_workgroup,
//   run_workitem), the kernel being K. It may print when one of them may.
// - For each kernel that may print, the transform adds one kernel flags
//   record (<xgpu/executable_format.h>, xgpu_kernel_flags_record_t with
//   XGPU_KERNEL_FLAG_PRINTS, then the NUL-padded name): a constant in the
//   layout records' section on ELF targets, an array named
//   K_xgpu_flags_xgpu_layout_ on nvptx; in llvm.used either way, as nothing
//   refers to it. A kernel that already has one keeps it (the pass may run
//   twice on one module).
// It runs at the end of the optimisation pipeline (after inlining, and on
// the host after the work-item loop steps wrote the descriptors), on every
// target: the records of one kernel must agree across targets, which
// `xgpu-kernels check` verifies. Remarks (-Rpass=xgpu-printing) name each
// kernel recorded and why.
#include "wiloop.h"

namespace xgpu_wiloop {
namespace {

constexpr const char* kPrintingRemarkPass = "xgpu-printing";
// How many calls a remark follows from a kernel's entry to what may print.
constexpr unsigned kMaxReasonDepth = 6;

bool is_print_emit(const Function& function) {
  const StringRef name = function.getName();
  return name == kPrintEmitFunction || name.starts_with((kPrintEmitFunction + ".").str());
}

// Why a function may print: a fact about one of its calls, or a callee that may.
struct PrintReason {
  std::string what;            // "calls xgpu_print_emit_", "makes an indirect call", ...
  const Function* via = nullptr;  // the callee that may print (what is then about it)
};

// Why `function` may print through a call of its own (the first such call),
// or nothing. Adds the defined functions it calls directly to *out_callees.
std::optional<std::string> direct_reason(const Function& function, bool host,
                                         SetVector<const Function*>* out_callees) {
  std::optional<std::string> reason;
  for (const Instruction& inst : instructions(function)) {
    const auto* call = dyn_cast<CallBase>(&inst);
    if (!call || call->isInlineAsm()) continue;
    const auto* callee = dyn_cast<Function>(call->getCalledOperand()->stripPointerCasts());
    if (!callee) {
      // Host kernel code calls through pointers only into the runtime (the
      // fiber barrier, in whatever shape the build left it): not a print.
      if (!reason && !host) reason = "makes an indirect call";
      continue;
    }
    if (is_print_emit(*callee)) {
      if (!reason) reason = ("calls " + kPrintEmitFunction).str();
      continue;
    }
    if (callee->isIntrinsic() || callee->getName().starts_with(kMarkerPrefix)) continue;
    if (callee->isDeclaration()) {
      if (!reason) reason = "calls '" + callee->getName().str() + "', which is not defined in this source";
      continue;
    }
    out_callees->insert(callee);
  }
  return reason;
}

}  // namespace

// The kernels of `module` and their entry functions, by kernel name.
MapVector<StringRef, SmallVector<const Function*, 2>> find_kernel_entries(const Module& module) {
  MapVector<StringRef, SmallVector<const Function*, 2>> kernels;
  const Triple triple(module.getTargetTriple());
  if (triple.isAMDGPU() || triple.isNVPTX()) {
    const CallingConv::ID kernel_cc = triple.isAMDGPU() ? CallingConv::AMDGPU_KERNEL : CallingConv::PTX_Kernel;
    for (const Function& function : module)
      if (!function.isDeclaration() && function.getCallingConv() == kernel_cc)
        kernels[function.getName()].push_back(&function);
    // clang 19 marks nvptx kernels in !nvvm.annotations: {ptr @K, !"kernel", i32 1}.
    if (const NamedMDNode* annotations = triple.isNVPTX() ? module.getNamedMetadata("nvvm.annotations") : nullptr) {
      for (const MDNode* node : annotations->operands()) {
        if (node->getNumOperands() < 3) continue;
        const auto* kind = dyn_cast<MDString>(node->getOperand(1));
        const auto* value = mdconst::dyn_extract_or_null<ConstantInt>(node->getOperand(2));
        const auto* function = mdconst::dyn_extract_or_null<Function>(node->getOperand(0));
        if (!kind || kind->getString() != "kernel" || !value || value->isZero() || !function ||
            function->isDeclaration())
          continue;
        auto& entries = kernels[function->getName()];
        if (!is_contained(entries, function)) entries.push_back(function);
      }
    }
  } else if (triple.getArch() == Triple::x86_64) {
    for (const GlobalVariable& global : module.globals()) {
      StringRef name = global.getName();
      name.consume_front("\01");
      if (!name.ends_with(kDescriptorSuffix) || name.size() == kDescriptorSuffix.size() || !global.hasInitializer())
        continue;
      auto& entries = kernels[name.drop_back(kDescriptorSuffix.size())];
      SmallVector<const Constant*, 8> work = {global.getInitializer()};
      SmallPtrSet<const Constant*, 8> seen;
      while (!work.empty()) {
        const Constant* c = work.pop_back_val();
        if (!seen.insert(c).second) continue;
        if (const auto* function = dyn_cast<Function>(c)) {
          if (!function->isDeclaration() && !is_contained(entries, function)) entries.push_back(function);
          continue;
        }
        if (isa<GlobalValue>(c)) continue;
        // Reversed: taken off the stack in field order (run_workgroup first).
        for (const Use& operand : reverse(c->operands()))
          if (const auto* inner = dyn_cast<Constant>(operand.get())) work.push_back(inner);
      }
    }
  }
  return kernels;
}

namespace {

// The record's bytes: header (little-endian words), name, NUL padding to 8.
std::string flags_record(StringRef kernel, uint32_t flags) {
  const uint64_t name_field = alignTo(kernel.size() + 1, kFlagsRecordAlignment);
  const uint32_t size = uint32_t(kFlagsRecordHeaderBytes + name_field);
  std::string bytes;
  for (uint32_t word : {kFlagsRecordMagic, size, flags, 0u})
    for (unsigned b = 0; b < 4; ++b) bytes.push_back(char((word >> (8 * b)) & 0xff));
  bytes += kernel.str();
  bytes.resize(size, '\0');
  return bytes;
}

}  // namespace

PreservedAnalyses PrintingKernelsPass::run(Module& module, ModuleAnalysisManager&) {
  const auto kernels = find_kernel_entries(module);
  if (kernels.empty()) return PreservedAnalyses::all();

  // The analysis: each function that may print, and why (fixpoint over the
  // callers of those that may).
  DenseMap<const Function*, PrintReason> reasons;
  MapVector<const Function*, SetVector<const Function*>> callees;  // in module order: remarks are stable
  const bool host = is_host_module(module);
  for (const Function& function : module) {
    if (function.isDeclaration()) continue;
    if (std::optional<std::string> why = direct_reason(function, host, &callees[&function]))
      reasons[&function] = {*why};
  }
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [function, called] : callees) {
      if (reasons.count(function)) continue;
      for (const Function* callee : called) {
        if (!reasons.count(callee)) continue;
        reasons[function] = {"calls '" + callee->getName().str() + "'", callee};
        grew = true;
        break;
      }
    }
  }

  // The transform: one record per kernel that may print.
  const Triple triple(module.getTargetTriple());
  const bool ptx = triple.isNVPTX();
  const unsigned address_space = triple.isAMDGPU() ? 4 : 0;  // AMDGPU's constant memory
  bool changed = false;
  for (const auto& [kernel, entries] : kernels) {
    const Function* printing = nullptr;
    for (const Function* entry : entries)
      if (!printing && reasons.count(entry)) printing = entry;
    if (!printing) continue;
    if (kernel.size() + 1 > kFlagsRecordMaxNameBytes) {
      report_fatal_error("xgpu-printing: kernel '" + kernel + "': the name is too long for a kernel flags record");
    }
    const std::string name = (kernel + (ptx ? kFlagsRecordPtxSuffix : kFlagsRecordSuffix)).str();
    if (module.getNamedGlobal(name)) continue;
    Constant* bytes = ConstantDataArray::getString(module.getContext(), flags_record(kernel, kKernelFlagPrints),
                                                   /*AddNull=*/false);
    auto* record = new GlobalVariable(module, bytes->getType(), /*isConstant=*/true, GlobalValue::InternalLinkage,
                                      bytes, name, nullptr, GlobalValue::NotThreadLocal, address_space);
    if (!ptx) record->setSection(kLayoutSection);
    record->setAlignment(Align(kFlagsRecordAlignment));
    appendToUsed(module, {record});
    changed = true;

    std::string why;
    const Function* at = printing;
    for (unsigned depth = 0; at && depth < kMaxReasonDepth; ++depth) {
      const PrintReason& reason = reasons.find(at)->second;
      why += (depth ? ", which " : "'" + at->getName().str() + "' ") + reason.what;
      at = reason.via;
    }
    if (at) why += ", ...";
    OptimizationRemarkEmitter ore(const_cast<Function*>(printing));
    ore.emit(OptimizationRemark(kPrintingRemarkPass, "prints", printing)
             << "kernel '" << kernel << "' may print: " << why);
  }
  return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

}  // namespace xgpu_wiloop
