// xgpu-wiloop: how each kernel accesses memory through each binding
// (spec/kernels.md, "Binding access"), recorded in the code object for the
// driver (XgpuPipelineProperties::bindingAccess) and the validation layer,
// which finds dispatch-to-dispatch hazards with it.
//
// An analysis, then one transform that only adds data:
// - The kernels: as printing_kernels.cpp finds them (entry functions per
//   target). Each entry's first parameter points at the kernel's argument
//   struct on every target (host run_workgroup / run_workitem: the kernarg
//   pointer; AMDGPU: the byref kernarg; nvptx: the byval struct). The
//   binding count comes from the kernel's layout record in the module
//   (XGPU_KERNEL_BINDINGS); a kernel without one, or with more than
//   kAccessRecordMaxBindings bindings, gets no record.
// - Binding i is the pointer loaded from the argument struct at byte 8 * i.
//   Every use of the struct pointer is followed through constant offsets
//   (GEPs, casts, a memcpy of the struct into a local copy); a use the
//   analysis cannot place (a variable offset, a phi or select of struct
//   pointers, the pointer passed to a call, stored, turned into an integer,
//   a binding slot loaded as something other than one pointer) makes every
//   binding it may reach UNKNOWN.
// - Every use of a binding pointer is followed through GEPs, casts, phis,
//   selects, vector element operations and calls into functions of the
//   module (their parameter): a load reads, a store writes, memset / memcpy
//   write their destination and read their source, an atomic operation (an
//   atomic load, store, read-modify-write or compare-exchange) is ATOMIC,
//   masked loads / gathers read and masked stores / scatters write, other
//   intrinsics by their memory attributes, a comparison accesses nothing,
//   nor does an integer made of the address that only feeds arithmetic and
//   comparisons (the vectoriser's overlap checks).
//   Anything else - the pointer stored to memory (not through it), passed to
//   a function this module does not define, converted to an integer,
//   returned - is UNKNOWN: the plugin cannot see what happens to it, and
//   READ, WRITE and ATOMIC are set with it.
// Legality: the record only describes; nothing is rewritten. It is sound
// when every access through a binding is one of the uses followed above,
// which holds because every other use makes the binding UNKNOWN.
// - The transform adds one binding access record per kernel
//   (<xgpu/executable_format.h>, xgpu_kernel_access_record_t): a constant in
//   the layout records' section on ELF targets, an array named
//   K_xgpu_access_xgpu_layout_ on nvptx; in llvm.used. A kernel that already
//   has one keeps it.
// - A declaration (<xgpu/kernel.h>'s XGPU_KERNEL_BINDING_ACCESS, a byte
//   array K_xgpu_access_decl_) is checked against the analysis and then
//   recorded instead: a binding whose followed accesses it does not allow
//   (or a declaration of another count, other bits, or for a kernel
//   without a layout) is a build error; for an UNKNOWN binding the
//   declaration is the author's contract. The array is then removed.
// It runs at the end of the optimisation pipeline, after inlining, on every
// target. Remarks (-Rpass=xgpu-binding-access) give each kernel's accesses
// and, for an UNKNOWN binding, why.
#include <set>

#include "llvm/ADT/StringSet.h"

#include "wiloop.h"

namespace xgpu_wiloop {
namespace {

constexpr const char* kAccessRemarkPass = "xgpu-binding-access";
// How deep the analysis follows a binding into functions of the module.
constexpr unsigned kMaxCallDepth = 8;

enum AccessBit : uint8_t { kRead = 1, kWrite = 2, kAtomic = 4, kUnknown = 8, kAll = 15 };

}  // namespace

StringMap<uint32_t> find_layouts(const Module& module) {
  StringMap<uint32_t> layouts;
  for (const GlobalVariable& global : module.globals()) {
    if (!global.hasInitializer()) continue;
    if (global.getSection() != kLayoutSection && !global.getName().ends_with("_xgpu_layout_")) continue;
    const auto* record = dyn_cast<ConstantStruct>(global.getInitializer());
    if (!record || record->getNumOperands() != 2) continue;
    const auto* header = dyn_cast<ConstantStruct>(record->getOperand(0));
    if (!header || header->getNumOperands() != 4) continue;
    const auto* magic = dyn_cast<ConstantInt>(header->getOperand(0));
    const auto* count = dyn_cast<ConstantInt>(header->getOperand(2));
    const auto* name = dyn_cast<ConstantDataSequential>(record->getOperand(1));
    if (!magic || !count || !name || !name->isString() || magic->getZExtValue() != kLayoutRecordMagic) continue;
    StringRef text = name->getAsString();
    text = text.substr(0, text.find('\0'));
    if (!text.empty()) layouts[text] = uint32_t(count->getZExtValue());
  }
  return layouts;
}

namespace {

// One kernel's analysis: per binding, its AccessBits and why it is UNKNOWN.
class BindingAnalysis {
 public:
  BindingAnalysis(const DataLayout& layout, uint32_t binding_count)
      : layout_(layout), bits_(binding_count, 0), why_(binding_count) {}

  // Follows the uses of `args`, a pointer to the argument struct.
  void run(const Value* args) { struct_pointer(args, 0, 0); }

  const std::vector<uint8_t>& bits() const { return bits_; }
  const std::vector<std::string>& why() const { return why_; }
  // Every access found, with its binding (an instruction reached from two
  // bindings is listed once per binding).
  const std::vector<BindingAccessSite>& sites() const { return sites_; }
  // The binding pointers loaded from the argument struct.
  const SmallPtrSet<const Value*, 8>& roots() const { return roots_; }

 private:
  uint32_t count() const { return uint32_t(bits_.size()); }
  uint64_t binding_bytes() const { return uint64_t(count()) * kBindingBytes; }

  void site(const Instruction* inst, uint32_t binding, unsigned operand = ~0u) {
    sites_.push_back({const_cast<Instruction*>(inst), binding, operand});
  }

  void unknown(uint32_t binding, const Twine& why) {
    if ((bits_[binding] & kUnknown) == 0) why_[binding] = why.str();
    bits_[binding] = kAll;
  }
  void all_unknown(const Twine& why) {
    for (uint32_t i = 0; i < count(); ++i) unknown(i, why);
  }

  static std::string callee_name(const CallBase& call) {
    const auto* callee = dyn_cast<Function>(call.getCalledOperand()->stripPointerCasts());
    return callee ? "'" + callee->getName().str() + "'" : std::string("a function pointer");
  }

  // `p` points at byte `offset` of the argument struct.
  void struct_pointer(const Value* p, int64_t offset, unsigned depth) {
    if (!struct_seen_.insert({p, offset}).second) return;
    for (const Use& use : p->uses()) {
      const auto* user = dyn_cast<Instruction>(use.getUser());
      if (!user) {
        all_unknown("the argument struct's address is used by a constant");
        continue;
      }
      if (const auto* gep = dyn_cast<GetElementPtrInst>(user)) {
        APInt delta(layout_.getIndexTypeSizeInBits(gep->getType()), 0);
        if (!gep->accumulateConstantOffset(layout_, delta)) {
          all_unknown("the argument struct is indexed with a variable");
          continue;
        }
        struct_pointer(gep, offset + delta.getSExtValue(), depth);
      } else if (isa<BitCastInst, AddrSpaceCastInst>(user)) {
        struct_pointer(user, offset, depth);
      } else if (const auto* load = dyn_cast<LoadInst>(user)) {
        struct_load(*load, offset, depth);
      } else if (const auto* call = dyn_cast<CallBase>(user)) {
        struct_call(*call, use, offset, depth);
      } else if (isa<ICmpInst>(user)) {
        // A comparison reads no memory.
      } else if (const auto* store = dyn_cast<StoreInst>(user); store && store->getPointerOperand() == p) {
        // A store into the argument struct (a local copy's own field):
        // it does not create a binding access.
      } else {
        all_unknown("the argument struct's address is used by '" + StringRef(user->getOpcodeName()) + "'");
      }
    }
  }

  // A load at byte `offset` of the argument struct.
  void struct_load(const LoadInst& load, int64_t offset, unsigned depth) {
    const uint64_t size = layout_.getTypeStoreSize(load.getType()).getFixedValue();
    if (offset < 0 || uint64_t(offset) >= binding_bytes()) return;  // constants (or before the struct)
    if (load.getType()->isPointerTy() && offset % int64_t(kBindingBytes) == 0 && size == kBindingBytes) {
      roots_.insert(&load);
      binding_pointer(&load, uint32_t(offset / int64_t(kBindingBytes)), depth);
      return;
    }
    // Binding pointers read as something else (an integer, a vector of
    // them): whatever the code does with them is not followed.
    const uint64_t first = uint64_t(offset) / kBindingBytes;
    const uint64_t end = std::min<uint64_t>(count(), (uint64_t(offset) + size + kBindingBytes - 1) / kBindingBytes);
    for (uint64_t i = first; i < end; ++i) unknown(uint32_t(i), "its pointer is loaded as a value of another type");
  }

  void struct_call(const CallBase& call, const Use& use, int64_t offset, unsigned depth) {
    if (const auto* copy = dyn_cast<MemTransferInst>(&call)) {
      if (use.getOperandNo() == 1) {
        // The struct copied: its copy is followed at the same offsets.
        struct_pointer(copy->getRawDest(), offset, depth);
        return;
      }
    }
    if (const auto* intrinsic = dyn_cast<IntrinsicInst>(&call)) {
      switch (intrinsic->getIntrinsicID()) {
        case Intrinsic::lifetime_start:
        case Intrinsic::lifetime_end:
        case Intrinsic::assume:
        case Intrinsic::prefetch:
          return;
        default:
          break;
      }
    }
    if (const Function* callee = call.getCalledFunction();
        callee && !callee->isDeclaration() && call.isArgOperand(&use) && depth < kMaxCallDepth &&
        use.getOperandNo() < callee->arg_size()) {
      struct_pointer(callee->getArg(use.getOperandNo()), offset, depth + 1);
      return;
    }
    all_unknown("the argument struct is passed to " + callee_name(call));
  }

  // `p` points into the memory of binding `binding`.
  void binding_pointer(const Value* p, uint32_t binding, unsigned depth) {
    if (!binding_seen_.insert({p, binding}).second) return;
    for (const Use& use : p->uses()) {
      const auto* user = dyn_cast<Instruction>(use.getUser());
      if (!user) {
        unknown(binding, "its pointer is used by a constant");
        continue;
      }
      if (isa<GetElementPtrInst, BitCastInst, AddrSpaceCastInst, PHINode, SelectInst, FreezeInst, InsertElementInst,
              ShuffleVectorInst, ExtractElementInst>(user)) {
        if (const auto* select = dyn_cast<SelectInst>(user); select && select->getCondition() == p) continue;
        binding_pointer(user, binding, depth);
      } else if (const auto* load = dyn_cast<LoadInst>(user)) {
        bits_[binding] |= load->isAtomic() ? kAtomic : kRead;
        site(user, binding);
      } else if (const auto* store = dyn_cast<StoreInst>(user)) {
        if (store->getPointerOperand() == p && store->getValueOperand() != p) {
          bits_[binding] |= store->isAtomic() ? kAtomic : kWrite;
          site(user, binding);
        } else {
          unknown(binding, "its pointer is stored to memory");
        }
      } else if (const auto* rmw = dyn_cast<AtomicRMWInst>(user)) {
        if (rmw->getPointerOperand() == p && rmw->getValOperand() != p) {
          bits_[binding] |= kAtomic;
          site(user, binding);
        } else {
          unknown(binding, "its pointer is an atomic operation's value");
        }
      } else if (const auto* cas = dyn_cast<AtomicCmpXchgInst>(user)) {
        if (cas->getPointerOperand() == p && cas->getCompareOperand() != p && cas->getNewValOperand() != p) {
          bits_[binding] |= kAtomic;
          site(user, binding);
        } else
          unknown(binding, "its pointer is a compare-exchange's value");
      } else if (isa<ICmpInst>(user)) {
        // A comparison reads no memory.
      } else if (isa<PtrToIntInst>(user)) {
        binding_address(user, binding);
      } else if (const auto* call = dyn_cast<CallBase>(user)) {
        binding_call(*call, use, binding, depth);
      } else {
        unknown(binding, "its pointer is used by '" + StringRef(user->getOpcodeName()) + "'");
      }
    }
  }

  // `v` is an integer computed from an address in binding `binding`: fine
  // while it only feeds arithmetic and comparisons (the vectoriser's checks
  // that two arrays do not overlap); made back into a pointer, stored or
  // passed on, it may reach any memory.
  void binding_address(const Value* v, uint32_t binding) {
    if (!address_seen_.insert({v, binding}).second) return;
    for (const Use& use : v->uses()) {
      const auto* user = dyn_cast<Instruction>(use.getUser());
      if (user && (isa<BinaryOperator, CastInst, PHINode, SelectInst, FreezeInst>(user)) && !isa<IntToPtrInst>(user)) {
        binding_address(user, binding);
      } else if (user && isa<ICmpInst>(user)) {
        // compared: no access
      } else {
        unknown(binding, "its address is used as an integer by '" +
                             StringRef(user ? user->getOpcodeName() : "a constant") + "'");
      }
    }
  }

  void binding_call(const CallBase& call, const Use& use, uint32_t binding, unsigned depth) {
    if (!call.isArgOperand(&use)) {
      unknown(binding, "it is called");
      return;
    }
    const unsigned arg = call.getArgOperandNo(&use);
    if (isa<MemTransferInst>(&call)) {
      if (arg == 0) bits_[binding] |= kWrite;
      else if (arg == 1) bits_[binding] |= kRead;
      else unknown(binding, "it is a memcpy's length");
      if (arg < 2) site(&call, binding, arg);
      return;
    }
    if (isa<MemSetInst>(&call)) {
      if (arg == 0) bits_[binding] |= kWrite;
      else unknown(binding, "it is a memset's value");
      if (arg == 0) site(&call, binding, arg);
      return;
    }
    if (const auto* intrinsic = dyn_cast<IntrinsicInst>(&call)) {
      switch (intrinsic->getIntrinsicID()) {
        case Intrinsic::lifetime_start:
        case Intrinsic::lifetime_end:
        case Intrinsic::assume:
        case Intrinsic::prefetch:
        case Intrinsic::invariant_start:
        case Intrinsic::invariant_end:
          return;
        case Intrinsic::masked_load:
        case Intrinsic::masked_gather:
        case Intrinsic::masked_expandload:
          bits_[binding] |= kRead;
          site(&call, binding, arg);
          return;
        case Intrinsic::masked_store:
        case Intrinsic::masked_scatter:
        case Intrinsic::masked_compressstore:
          if (arg == 0) {
            unknown(binding, "its pointer is a masked store's value");
          } else {
            bits_[binding] |= kWrite;
            site(&call, binding, arg);
          }
          return;
        case Intrinsic::ptrmask:
        case Intrinsic::launder_invariant_group:
        case Intrinsic::strip_invariant_group:
          if (arg == 0) binding_pointer(&call, binding, depth);
          return;
        default:
          break;
      }
      // Another intrinsic: what its attributes say of this argument.
      if (call.doesNotCapture(arg)) {
        if (call.doesNotAccessMemory(arg)) return;
        if (call.onlyReadsMemory(arg)) {
          bits_[binding] |= kRead;
          return;
        }
        if (call.onlyWritesMemory(arg)) {
          bits_[binding] |= kWrite;
          return;
        }
      }
      unknown(binding, "it is passed to " + callee_name(call));
      return;
    }
    if (const Function* callee = call.getCalledFunction();
        callee && !callee->isDeclaration() && depth < kMaxCallDepth && arg < callee->arg_size()) {
      binding_pointer(callee->getArg(arg), binding, depth + 1);
      return;
    }
    unknown(binding, "it is passed to " + callee_name(call) +
                         (depth >= kMaxCallDepth ? " (calls nested too deep)" : ", which this source does not define"));
  }

  const DataLayout& layout_;
  std::vector<uint8_t> bits_;
  std::vector<std::string> why_;
  std::set<std::pair<const Value*, int64_t>> struct_seen_;
  std::set<std::pair<const Value*, uint32_t>> binding_seen_;
  std::set<std::pair<const Value*, uint32_t>> address_seen_;
  std::vector<BindingAccessSite> sites_;
  SmallPtrSet<const Value*, 8> roots_;
};

// The record's bytes: header (little-endian), name, NUL padding to 8.
std::string access_record(StringRef kernel, uint32_t binding_count, const std::vector<uint8_t>& bits) {
  const uint64_t name_field = alignTo(kernel.size() + 1, kFlagsRecordAlignment);
  const uint32_t size = uint32_t(kAccessRecordHeaderBytes + name_field);
  uint64_t masks[4] = {};  // read, write, atomic, unknown
  for (uint32_t i = 0; i < bits.size(); ++i) {
    if (bits[i] & kRead) masks[0] |= uint64_t(1) << i;
    if (bits[i] & kWrite) masks[1] |= uint64_t(1) << i;
    if (bits[i] & kAtomic) masks[2] |= uint64_t(1) << i;
    if (bits[i] & kUnknown) masks[3] |= uint64_t(1) << i;
  }
  std::string bytes;
  for (uint32_t word : {kAccessRecordMagic, size, binding_count, 0u})
    for (unsigned b = 0; b < 4; ++b) bytes.push_back(char((word >> (8 * b)) & 0xff));
  for (uint64_t mask : masks)
    for (unsigned b = 0; b < 8; ++b) bytes.push_back(char((mask >> (8 * b)) & 0xff));
  bytes += kernel.str();
  bytes.resize(size, '\0');
  return bytes;
}

std::string describe(uint8_t bits) {
  if (bits & kUnknown) return "unknown";
  if (bits == 0) return "not accessed";
  std::string text;
  for (auto [bit, name] : {std::pair{kRead, "read"}, {kWrite, "write"}, {kAtomic, "atomic"}})
    if (bits & bit) text += (text.empty() ? "" : "+") + std::string(name);
  return text;
}

// XGPU_KERNEL_BINDING_ACCESS(kernel, ...): checks the declaration against
// the analysis and puts it into `bits` (see <xgpu/kernel.h>), then removes
// it from the module (it is the plugin's input, not the code object's).
// A binding the code accesses in a way the declaration does not allow, or
// a declaration of another count or of other bits, is a build error: false
// (no record is written for the kernel). `declared` says per binding that
// the declaration's access was recorded.
bool apply_declaration(Module& module, StringRef kernel, uint32_t binding_count, const BindingAnalysis& analysis,
                       std::vector<uint8_t>* bits, std::vector<bool>* declared) {
  declared->assign(binding_count, false);
  GlobalVariable* declaration = module.getNamedGlobal((kernel + kAccessDeclarationSuffix).str());
  if (!declaration || !declaration->hasInitializer()) return true;
  const std::string where = ("xgpu-binding-access: kernel '" + kernel + "': XGPU_KERNEL_BINDING_ACCESS").str();
  // Read, then gone from the module whatever it says.
  auto drop = [&](bool ok) {
    removeFromUsedLists(module, [&](Constant* c) { return c == declaration; });
    if (declaration->use_empty()) declaration->eraseFromParent();
    return ok;
  };
  auto* type = dyn_cast<ArrayType>(declaration->getValueType());
  if (!type || !type->getElementType()->isIntegerTy(8)) {
    module.getContext().emitError(where + ": not an array of access values");
    return drop(false);
  }
  const uint64_t count = type->getNumElements();
  if (count != binding_count) {
    module.getContext().emitError(where + " declares " + Twine(count) + " binding(s), XGPU_KERNEL_BINDINGS " +
                                  Twine(binding_count));
    return drop(false);
  }
  const Constant* init = declaration->getInitializer();
  bool ok = true;
  for (uint32_t i = 0; i < binding_count; ++i) {
    const auto* element = dyn_cast_or_null<ConstantInt>(init->getAggregateElement(i));
    const uint64_t value = element ? element->getZExtValue() : ~uint64_t{0};
    if (value > (kRead | kWrite | kAtomic)) {
      module.getContext().emitError(where + ": binding " + Twine(i) + ": " + Twine(value) +
                                    " is not a combination of XGPU_KERNEL_ACCESS_READ, _WRITE and _ATOMIC");
      ok = false;
      continue;
    }
    const uint8_t code = analysis.bits()[i];
    if ((code & kUnknown) == 0 && (code & ~value) != 0) {
      module.getContext().emitError(where + ": binding " + Twine(i) + " is declared " + describe(uint8_t(value)) +
                                    ", but the code's access is " + describe(code));
      ok = false;
      continue;
    }
    (*bits)[i] = uint8_t(value);
    (*declared)[i] = true;
  }
  return drop(ok);
}

}  // namespace

std::vector<BindingAccessSite> binding_access_sites(const Function& entry, uint32_t binding_count,
                                                    std::vector<uint8_t>* out_bits,
                                                    SmallPtrSetImpl<const Value*>* out_roots) {
  BindingAnalysis analysis(entry.getParent()->getDataLayout(), binding_count);
  analysis.run(entry.getArg(0));
  if (out_bits) *out_bits = analysis.bits();
  if (out_roots) out_roots->insert(analysis.roots().begin(), analysis.roots().end());
  return analysis.sites();
}

PreservedAnalyses BindingAccessPass::run(Module& module, ModuleAnalysisManager&) {
  const auto kernels = find_kernel_entries(module);
  if (kernels.empty()) return PreservedAnalyses::all();
  const StringMap<uint32_t> layouts = find_layouts(module);
  const Triple triple(module.getTargetTriple());
  const bool ptx = triple.isNVPTX();
  const unsigned address_space = triple.isAMDGPU() ? 4 : 0;  // AMDGPU's constant memory
  bool changed = false;
  StringSet<> checked;  // kernels whose declaration (if any) was read
  for (const auto& [kernel, entries] : kernels) {
    const auto layout = layouts.find(kernel);
    if (layout == layouts.end() || layout->second > kAccessRecordMaxBindings || entries.empty()) continue;
    const uint32_t binding_count = layout->second;
    const std::string name = (kernel + (ptx ? kAccessRecordPtxSuffix : kAccessRecordSuffix)).str();
    if (module.getNamedGlobal(name)) continue;
    // An entry of another shape than this pass knows: no record (every
    // binding unknown to the driver).
    if (any_of(entries, [](const Function* entry) {
          return entry->arg_size() == 0 || !entry->getArg(0)->getType()->isPointerTy();
        }))
      continue;
    BindingAnalysis analysis(module.getDataLayout(), binding_count);
    for (const Function* entry : entries) analysis.run(entry->getArg(0));
    std::vector<uint8_t> bits = analysis.bits();
    std::vector<bool> declared;  // per binding: the declaration's access recorded
    checked.insert(kernel);
    if (!apply_declaration(module, kernel, binding_count, analysis, &bits, &declared)) continue;
    Constant* bytes = ConstantDataArray::getString(
        module.getContext(), access_record(kernel, binding_count, bits), /*AddNull=*/false);
    auto* record = new GlobalVariable(module, bytes->getType(), /*isConstant=*/true, GlobalValue::InternalLinkage,
                                      bytes, name, nullptr, GlobalValue::NotThreadLocal, address_space);
    if (!ptx) record->setSection(kLayoutSection);
    record->setAlignment(Align(kFlagsRecordAlignment));
    appendToUsed(module, {record});
    changed = true;

    std::string text;
    for (uint32_t i = 0; i < binding_count; ++i) {
      text += (i ? ", " : "") + std::to_string(i) + ": " + describe(bits[i]);
      if (declared[i] && (analysis.bits()[i] & kUnknown))
        text += " (declared; the code: unknown, " + analysis.why()[i] + ")";
      else if (declared[i])
        text += " (declared; the code: " + describe(analysis.bits()[i]) + ")";
      else if (bits[i] & kUnknown)
        text += " (" + analysis.why()[i] + ")";
    }
    OptimizationRemarkEmitter ore(const_cast<Function*>(entries.front()));
    ore.emit(OptimizationRemarkAnalysis(kAccessRemarkPass, "binding-access", entries.front())
             << "kernel '" << kernel << "' binding access: " << (binding_count ? text : std::string("no bindings")));
  }
  // A declaration left over: of a kernel without XGPU_KERNEL_BINDINGS (or
  // of more bindings than a record holds).
  for (const auto& [kernel, entries] : kernels) {
    (void)entries;
    if (!checked.contains(kernel) && module.getNamedGlobal((kernel + kAccessDeclarationSuffix).str()) &&
        !module.getNamedGlobal((kernel + (ptx ? kAccessRecordPtxSuffix : kAccessRecordSuffix)).str()))
      module.getContext().emitError("xgpu-binding-access: kernel '" + kernel +
                                    "': XGPU_KERNEL_BINDING_ACCESS without XGPU_KERNEL_BINDINGS (or with more than " +
                                    Twine(kAccessRecordMaxBindings) + " bindings)");
  }
  return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

}  // namespace xgpu_wiloop
