// xgpu-wiloop: bounds-checked copies of the kernels (spec/kernels.md,
// "Bounds-checked entries"), which the validation layer runs instead of the
// kernels when its GPU-assisted checks are on (XGPU_VALIDATION_GPU_ASSISTED).
//
// What it makes: for each kernel K that declares its layout
// (XGPU_KERNEL_BINDINGS, 1 to kAccessRecordMaxBindings bindings), in a
// module where <xgpu/kernel.h> defined xgpu_bounds_report_ (the build's
// XGPU_KERNEL_BOUNDS_CHECKS), a second kernel K__xgpu_checked:
// - its entries are copies of K's (AMDGPU and nvptx: the kernel function,
//   with its attributes and nvvm annotations; host: run_workgroup and
//   run_workitem, under a copy of the descriptor `K.kd` named
//   `K__xgpu_checked.kd`, whose WORKGROUP_RUNS flag is cleared so that one
//   call runs one workgroup and a report names it). The module functions
//   they call are copied too (but xgpu_print_emit_ and the report), each
//   copy taking three more parameters: the kernarg address, the host's
//   workgroup record and local id (null where unknown or on a GPU);
// - its records: K's layout and binding access records under the new name,
//   and a flags record with XGPU_KERNEL_FLAG_PRINTS and
//   XGPU_KERNEL_FLAG_BOUNDS_CHECKED (the driver then writes the print slots
//   and, before them, each binding's length: <xgpu/kernel_print.h>);
// - in the copies, each access the binding access analysis follows
//   (binding_access.cpp: loads, stores, atomics, memcpy / memmove / memset,
//   masked loads and stores, gathers and scatters) is guarded: with o the
//   address minus the binding's start (both read from the kernarg segment),
//   s the bytes accessed and L the length, the access is made when
//   o <= L and s <= L - o (unsigned: an address before the start fails),
//   per lane for vector accesses (a plain vector load or store: one lane
//   per element; masked ones under their mask; gathers and scatters per
//   pointer). Otherwise the access is made for the lanes in range only
//   (vectors: a masked access; others: not at all), a load gives 0 in the
//   other lanes, and xgpu_bounds_report_ writes a bounds record: binding,
//   o, s, L of the first failing lane, the source file and line of the
//   access where a line table exists, the workgroup and local id. The
//   lanes of a vectorised item loop are work items, so each work item's
//   access is made or not as it would be alone. A contiguous vector access
//   is first checked as one span (all its lanes, whatever its mask: two
//   scalar compares); only where the span fails are its lanes checked, and
//   if those under the mask all pass, the access is made whole and nothing
//   reported (the span check is never true where a lane check is false).
//   An access reached from two bindings (a select of two binding pointers)
//   is made when it lies in either.
// Legality: K is not changed. The copy behaves as K in every run where no
// guarded access falls outside its binding (each guard is then true and has
// no effect but reading the kernarg segment, which nothing writes during a
// dispatch). Where one falls outside, K's behaviour is undefined (it would
// touch memory the dispatch was not given); the copy's is to skip it and
// report.
// Not checked, and said by a remark: accesses through a binding whose
// pointer the analysis loses (stored to memory, passed to a function that is
// not defined here: the binding is UNKNOWN), an access whose pointer may
// also come from elsewhere (its underlying objects are not all binding
// pointers loaded from the argument struct, or parameters every call passes
// such a pointer: a select of a binding pointer and a private one), expanding
// loads and compressing stores, and other intrinsics that access memory by
// their attributes.
// It runs last on every target (after BindingAccessPass, whose records it
// copies); remarks: -Rpass=xgpu-bounds-checks.
#include <xgpu/kernel_print.h>

#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/IntrinsicsAMDGPU.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include "wiloop.h"

namespace xgpu_wiloop {
namespace {

constexpr const char* kBoundsRemarkPass = "xgpu-bounds-checks";
// How deep the copy follows calls from an entry.
constexpr unsigned kMaxCopyDepth = 8;

enum class TargetKind { kHost, kAmdgpu, kNvptx };

std::string le_words(std::initializer_list<uint32_t> words) {
  std::string bytes;
  for (uint32_t word : words)
    for (unsigned b = 0; b < 4; ++b) bytes.push_back(char((word >> (8 * b)) & 0xff));
  return bytes;
}

// A record's bytes: `head` (its first 16 bytes with record_size 0, then
// any fixed fields), the name, NUL padding to 8; record_size filled in.
std::string record_bytes(std::string head, StringRef name) {
  const uint64_t name_field = alignTo(name.size() + 1, kFlagsRecordAlignment);
  const uint32_t size = uint32_t(head.size() + name_field);
  for (unsigned b = 0; b < 4; ++b) head[4 + b] = char((size >> (8 * b)) & 0xff);
  head += name.str();
  head.resize(size, '\0');
  return head;
}

// The bytes of a constant initializer made of integers and byte arrays
// (a layout record's struct, an access record's string), or nothing.
std::optional<std::string> constant_bytes(const DataLayout& layout, const Constant* c) {
  if (const auto* data = dyn_cast<ConstantDataSequential>(c)) {
    if (!data->getElementType()->isIntegerTy(8)) return std::nullopt;
    return data->getRawDataValues().str();
  }
  if (const auto* integer = dyn_cast<ConstantInt>(c)) {
    const unsigned bytes = integer->getBitWidth() / 8;
    std::string out;
    for (unsigned b = 0; b < bytes; ++b) out.push_back(char(integer->getValue().extractBitsAsZExtValue(8, 8 * b)));
    return out;
  }
  if (const auto* aggregate = dyn_cast<ConstantStruct>(c)) {
    const StructLayout* sl = layout.getStructLayout(aggregate->getType());
    std::string out(sl->getSizeInBytes(), '\0');
    for (unsigned i = 0; i < aggregate->getNumOperands(); ++i) {
      auto part = constant_bytes(layout, aggregate->getOperand(i));
      if (!part) return std::nullopt;
      out.replace(sl->getElementOffset(i), part->size(), *part);
    }
    return out;
  }
  if (isa<ConstantAggregateZero>(c)) return std::string(layout.getTypeAllocSize(c->getType()), '\0');
  return std::nullopt;
}

// The record of `kernel` among the records of the module whose first word
// is `magic` (ELF: in the layout section; nvptx: arrays named
// ..._xgpu_layout_), as bytes.
std::optional<std::string> find_record(const Module& module, uint32_t magic, StringRef kernel) {
  for (const GlobalVariable& global : module.globals()) {
    if (!global.hasInitializer()) continue;
    if (global.getSection() != kLayoutSection && !global.getName().ends_with("_xgpu_layout_")) continue;
    auto bytes = constant_bytes(module.getDataLayout(), global.getInitializer());
    if (!bytes || bytes->size() < 16) continue;
    uint32_t word = 0;
    for (unsigned b = 0; b < 4; ++b) word |= uint32_t(uint8_t((*bytes)[b])) << (8 * b);
    if (word != magic) continue;
    // The name: after the fixed header, which is 16 bytes for layout and
    // flags records and kAccessRecordHeaderBytes for access records.
    const size_t header = magic == kAccessRecordMagic ? kAccessRecordHeaderBytes : 16;
    if (bytes->size() <= header) continue;
    StringRef name(bytes->data() + header, bytes->size() - header);
    name = name.substr(0, name.find('\0'));
    if (name == kernel) return bytes->substr(0, header);
  }
  return std::nullopt;
}

// Adds a record (bytes) for a kernel: a constant in the layout section on
// ELF targets, an array named `ptx_name` on nvptx; in llvm.used.
void add_record(Module& module, const std::string& bytes, const Twine& name, bool ptx, unsigned address_space) {
  Constant* data = ConstantDataArray::getString(module.getContext(), bytes, /*AddNull=*/false);
  auto* record = new GlobalVariable(module, data->getType(), /*isConstant=*/true, GlobalValue::InternalLinkage, data,
                                    name, nullptr, GlobalValue::NotThreadLocal, address_space);
  if (!ptx) record->setSection(kLayoutSection);
  record->setAlignment(Align(kFlagsRecordAlignment));
  appendToUsed(module, {record});
}

// A copy reads the kernarg segment, may call the report (atomics on the
// print buffer) and, on AMDGPU, reads work-item and workgroup ids: what
// the optimiser inferred of the original (memory effects, nosync, the
// AMDGPU attributor's "amdgpu-no-work{item,group}-id-*") no longer holds.
void drop_inferred_attributes(Function& function) {
  function.removeFnAttr(Attribute::Memory);
  function.removeFnAttr(Attribute::NoSync);
  function.removeFnAttr(Attribute::NoFree);
  function.removeFnAttr(Attribute::WillReturn);
  // The ids the reports read; the rest of the attributor's findings hold
  // (the report needs no implicit arguments, queue or dispatch pointer).
  for (const char* kind : {"amdgpu-no-workitem-id-x", "amdgpu-no-workitem-id-y", "amdgpu-no-workitem-id-z",
                           "amdgpu-no-workgroup-id-x", "amdgpu-no-workgroup-id-y", "amdgpu-no-workgroup-id-z"})
    function.removeFnAttr(kind);
}

bool is_print_emit(const Function& function) {
  const StringRef name = function.getName();
  return name == kPrintEmitFunction || name.starts_with((kPrintEmitFunction + ".").str());
}

// One kernel's copy: its functions (entry copies and callee copies), and
// per copy the values the checks read.
class CheckedCopy {
 public:
  CheckedCopy(Module& module, TargetKind target, Function* report, uint32_t binding_count)
      : module_(module), target_(target), report_(report), binding_count_(binding_count),
        i64_(Type::getInt64Ty(module.getContext())), i32_(Type::getInt32Ty(module.getContext())),
        ptr_(PointerType::get(module.getContext(), 0)) {}

  // Copies entry `entry` under `name` (linkage as the entry's on GPUs,
  // internal on the host) and the functions it calls. Null if its shape is
  // not an entry's.
  Function* copy_entry(Function& entry, const Twine& name) {
    if (entry.arg_size() == 0 || !entry.getArg(0)->getType()->isPointerTy()) return nullptr;
    if (target_ == TargetKind::kNvptx && entry.arg_size() < 2) return nullptr;
    if (target_ == TargetKind::kHost && (entry.arg_size() < 2 || !entry.getArg(1)->getType()->isPointerTy()))
      return nullptr;
    ValueToValueMapTy map;
    Function* copy = CloneFunction(&entry, map);
    copy->setName(name);
    drop_inferred_attributes(*copy);
    if (target_ == TargetKind::kHost) copy->setLinkage(GlobalValue::InternalLinkage);
    // The values every check of the entry reads, at its start.
    IRBuilder<> builder(&*copy->getEntryBlock().getFirstInsertionPt());
    Context context;
    context.kernarg = kernarg_address(builder, *copy);
    if (target_ == TargetKind::kHost) {
      context.workgroup = copy->getArg(1);
      // The fiber entry's local_id[3]; the work-item loops' entry runs no
      // one item (null: reports say "unknown").
      context.local_id = copy->arg_size() >= 3 && copy->getArg(2)->getType()->isPointerTy()
                             ? static_cast<Value*>(copy->getArg(2))
                             : ConstantPointerNull::get(ptr_);
    } else {
      context.workgroup = ConstantPointerNull::get(ptr_);
      context.local_id = ConstantPointerNull::get(ptr_);
    }
    contexts_[copy] = context;
    copy_callees(*copy, 0);
    return copy;
  }

  // Guards every access the analysis finds from `entry` (a copy made by
  // copy_entry). Returns the number of guarded accesses; `unchecked` gets
  // why some were not.
  // `originals`: the kernel's own entries, whose analysis says which
  // bindings escape it (in the copies, the checks' own uses of the
  // kernarg address would look like an escape).
  unsigned guard(ArrayRef<Function*> entries, ArrayRef<Function*> originals, std::vector<std::string>* unchecked) {
    std::vector<uint8_t> escaped(binding_count_, 0);
    for (Function* original : originals) {
      std::vector<uint8_t> bits;
      binding_access_sites(*original, binding_count_, &bits);
      for (uint32_t i = 0; i < binding_count_; ++i) escaped[i] |= bits[i] & 8;
    }
    for (uint32_t i = 0; i < binding_count_; ++i)
      if (escaped[i]) unchecked->push_back("binding " + std::to_string(i) + " where its pointer escapes the analysis");
    // Every entry analysed before any check is added.
    MapVector<Instruction*, SmallVector<std::pair<uint32_t, unsigned>, 2>> by_access;  // in the order found
    for (Function* entry : entries) {
      for (const BindingAccessSite& site : binding_access_sites(*entry, binding_count_, nullptr, &roots_)) {
        auto& list = by_access[site.inst];
        if (!is_contained(list, std::pair{site.binding, site.operand})) list.push_back({site.binding, site.operand});
      }
    }
    unsigned guarded = 0;
    for (auto& [inst, bindings] : by_access) {
      if (guarded_.contains(inst)) continue;
      Function* function = inst->getFunction();
      if (!contexts_.contains(function)) {
        unchecked->push_back("an access in '" + function->getName().str() + "', which the copy does not own");
        continue;
      }
      // Only an access whose pointer comes from bindings alone: one that may
      // also point elsewhere (a select of a binding pointer and a private
      // one) cannot be held to a binding's range.
      if (!from_bindings_only(*inst, bindings)) {
        unchecked->push_back("an access whose pointer may also come from memory other than a binding");
        continue;
      }
      if (guard_access(*inst, bindings, unchecked)) {
        guarded_.insert(inst);
        ++guarded;
      }
    }
    return guarded;
  }

 private:
  // True when every pointer `inst` accesses through (its operands the
  // sites name) comes from binding pointers only: its underlying objects
  // are loads of binding pointers from the argument struct, or parameters
  // of the copy's functions that every call passes such a pointer.
  bool from_bindings_only(Instruction& inst, ArrayRef<std::pair<uint32_t, unsigned>> bindings) {
    for (const auto& [binding, operand] : bindings) {
      (void)binding;
      const Value* pointer = nullptr;
      if (auto* load = dyn_cast<LoadInst>(&inst)) pointer = load->getPointerOperand();
      else if (auto* store = dyn_cast<StoreInst>(&inst)) pointer = store->getPointerOperand();
      else if (auto* rmw = dyn_cast<AtomicRMWInst>(&inst)) pointer = rmw->getPointerOperand();
      else if (auto* cas = dyn_cast<AtomicCmpXchgInst>(&inst)) pointer = cas->getPointerOperand();
      else if (auto* call = dyn_cast<CallBase>(&inst); call && operand < call->arg_size()) pointer = call->getArgOperand(operand);
      if (!pointer || !binding_derived(pointer, 0)) return false;
    }
    return true;
  }

  bool binding_derived(const Value* pointer, unsigned depth) {
    if (auto found = derived_.find(pointer); found != derived_.end()) return found->second;
    derived_[pointer] = false;  // a cycle through calls: not proven
    SmallVector<const Value*, 4> objects;
    getUnderlyingObjects(pointer, objects, nullptr, 0);
    bool all = !objects.empty();
    for (const Value* object : objects) {
      if (roots_.contains(object)) continue;
      // A vector of pointers built from scalar ones (a gather's splat).
      if (isa<InsertElementInst, ShuffleVectorInst>(object)) {
        const auto* user = cast<User>(object);
        for (const Use& use : user->operands()) {
          const Value* part = use.get();
          if (!part->getType()->isPtrOrPtrVectorTy() || isa<UndefValue>(part)) continue;  // poison lanes, indices
          if (!binding_derived(part, depth + 1)) {
            all = false;
            break;
          }
        }
        if (!all) break;
        continue;
      }
      const auto* argument = dyn_cast<Argument>(object);
      const Function* callee = argument ? argument->getParent() : nullptr;
      if (!callee || !callee->hasLocalLinkage() || depth >= kMaxCopyDepth) {
        all = false;
        break;
      }
      // A parameter: every use of the function a direct call passing a binding pointer.
      for (const User* user : callee->users()) {
        const auto* call = dyn_cast<CallBase>(user);
        if (!call || call->getCalledFunction() != callee ||
            !binding_derived(call->getArgOperand(argument->getArgNo()), depth + 1)) {
          all = false;
          break;
        }
      }
      if (!all) break;
    }
    derived_[pointer] = all;
    return all;
  }

  struct Context {
    Value* kernarg = nullptr;    // i64: the kernarg segment's address
    Value* workgroup = nullptr;  // host: xgpu_host_workgroup_t*; else null
    Value* local_id = nullptr;   // host fiber entry: const uint32_t[3]; else null
    DenseMap<uint32_t, std::pair<Value*, Value*>> binding;  // binding -> (start, length), read at entry
  };

  Value* kernarg_address(IRBuilder<>& builder, Function& entry) {
    switch (target_) {
      case TargetKind::kHost:
        return builder.CreatePtrToInt(entry.getArg(0), i64_, "xgpu.kernarg");
      case TargetKind::kAmdgpu: {
        Value* segment = builder.CreateIntrinsic(Intrinsic::amdgcn_kernarg_segment_ptr, {}, {});
        return builder.CreatePtrToInt(segment, i64_, "xgpu.kernarg");
      }
      case TargetKind::kNvptx: {
        // xgpu_nvptx_grid_t.kernarg_address, at byte 16 of the second parameter.
        Value* field = builder.CreateConstInBoundsGEP1_64(builder.getInt8Ty(), entry.getArg(1), 16);
        return builder.CreateLoad(i64_, field, "xgpu.kernarg");
      }
    }
    return nullptr;
  }

  // Copies the module functions `function` calls (but the printing ones),
  // each with the three context parameters after its own, and calls the
  // copies instead.
  void copy_callees(Function& function, unsigned depth) {
    SmallVector<CallBase*, 8> calls;
    for (Instruction& inst : instructions(function))
      if (auto* call = dyn_cast<CallBase>(&inst))
        if (Function* callee = call->getCalledFunction();
            callee && !callee->isDeclaration() && !callee->isIntrinsic() && callee != report_ &&
            !is_print_emit(*callee) && !callee->isVarArg() && isa<CallInst>(call))
          calls.push_back(call);
    for (CallBase* call : calls) {
      Function* callee = call->getCalledFunction();
      Function* copy = callee_copy(*callee, depth);
      if (!copy) continue;
      const Context& context = contexts_[&function];
      SmallVector<Value*, 8> args(call->args());
      args.push_back(context.kernarg);
      args.push_back(context.workgroup);
      args.push_back(context.local_id);
      auto* replacement = CallInst::Create(copy, args, "", call->getIterator());
      replacement->setCallingConv(call->getCallingConv());
      replacement->setDebugLoc(call->getDebugLoc());
      replacement->setTailCallKind(cast<CallInst>(call)->getTailCallKind());
      AttributeList attributes = call->getAttributes();
      LLVMContext& context_ = module_.getContext();
      for (Attribute::AttrKind kind : {Attribute::Memory, Attribute::NoSync, Attribute::NoFree, Attribute::WillReturn})
        attributes = attributes.removeFnAttribute(context_, kind);
      replacement->setAttributes(attributes);
      replacement->takeName(call);
      call->replaceAllUsesWith(replacement);
      call->eraseFromParent();
    }
  }

  Function* callee_copy(Function& callee, unsigned depth) {
    if (auto found = copies_.find(&callee); found != copies_.end()) return found->second;
    if (depth >= kMaxCopyDepth) return nullptr;
    SmallVector<Type*, 8> params(callee.getFunctionType()->params());
    params.append({i64_, ptr_, ptr_});
    auto* type = FunctionType::get(callee.getReturnType(), params, false);
    Function* copy = Function::Create(type, GlobalValue::InternalLinkage, callee.getAddressSpace(),
                                      callee.getName() + kBoundsCheckedSuffix, &module_);
    copies_[&callee] = copy;
    ValueToValueMapTy map;
    for (unsigned i = 0; i < callee.arg_size(); ++i) {
      copy->getArg(i)->setName(callee.getArg(i)->getName());
      map[callee.getArg(i)] = copy->getArg(i);
    }
    SmallVector<ReturnInst*, 4> returns;
    CloneFunctionInto(copy, &callee, map, CloneFunctionChangeType::LocalChangesOnly, returns);
    copy->setLinkage(GlobalValue::InternalLinkage);
    copy->setVisibility(GlobalValue::DefaultVisibility);
    copy->setCallingConv(callee.getCallingConv());
    drop_inferred_attributes(*copy);
    const unsigned n = callee.arg_size();
    Context context;
    context.kernarg = copy->getArg(n);
    context.workgroup = copy->getArg(n + 1);
    context.local_id = copy->getArg(n + 2);
    contexts_[copy] = context;
    copy_callees(*copy, depth + 1);
    return copy;
  }

  // The binding's start and length for checks in `function`, read once at
  // its entry from the kernarg segment.
  std::pair<Value*, Value*> binding_range(Function& function, uint32_t binding) {
    Context& context = contexts_[&function];
    if (auto found = context.binding.find(binding); found != context.binding.end()) return found->second;
    Instruction* at = &*function.getEntryBlock().getFirstInsertionPt();
    if (auto* kernarg = dyn_cast<Instruction>(context.kernarg); kernarg && kernarg->getFunction() == &function)
      at = kernarg->getNextNode();
    IRBuilder<> builder(at);
    const unsigned space = target_ == TargetKind::kAmdgpu ? 4 : 0;  // AMDGPU: the constant address space
    Type* slot_type = PointerType::get(module_.getContext(), space);
    Value* start_slot = builder.CreateIntToPtr(
        builder.CreateAdd(context.kernarg, builder.getInt64(uint64_t(binding) * kBindingBytes)), slot_type);
    Value* length_slot = builder.CreateIntToPtr(
        builder.CreateSub(context.kernarg, builder.getInt64(XGPU_BOUNDS_LENGTH_SLOT_OFFSET(binding))), slot_type);
    auto* start = builder.CreateAlignedLoad(i64_, start_slot, Align(8), "xgpu.start" + Twine(binding));
    auto* length = builder.CreateAlignedLoad(i64_, length_slot, Align(8), "xgpu.length" + Twine(binding));
    start->setMetadata(LLVMContext::MD_invariant_load, MDNode::get(module_.getContext(), {}));
    length->setMetadata(LLVMContext::MD_invariant_load, MDNode::get(module_.getContext(), {}));
    context.binding[binding] = {start, length};
    return {start, length};
  }

  // What an access touches: its pointer (a pointer, or a vector of them),
  // the bytes per lane (an i64 value), the lane count (1: one range of
  // `size` bytes), the lane stride for a contiguous masked access, and its
  // mask (null: every lane).
  struct Shape {
    Value* pointer = nullptr;
    Value* size = nullptr;
    unsigned lanes = 1;
    uint64_t stride = 0;  // contiguous lanes: bytes between them; 0 for a vector of pointers
    Value* mask = nullptr;
  };

  std::optional<Shape> shape_of(Instruction& inst, unsigned operand, std::string* why) {
    const DataLayout& layout = module_.getDataLayout();
    auto store_size = [&](Type* type) { return ConstantInt::get(i64_, layout.getTypeStoreSize(type).getFixedValue()); };
    Shape shape;
    // A plain vector access: one lane per element (work item), each
    // checked, so that the lanes in range are still made.
    auto vector_lanes = [&](Type* type, bool simple) {
      auto* vector = dyn_cast<FixedVectorType>(type);
      if (!vector || !simple) return;
      Type* element = vector->getElementType();
      const uint64_t bits = layout.getTypeSizeInBits(element).getFixedValue();
      if (bits % 8 != 0 || layout.getTypeAllocSize(element) != layout.getTypeStoreSize(element)) return;
      shape.size = store_size(element);
      shape.lanes = vector->getNumElements();
      shape.stride = bits / 8;
    };
    if (auto* load = dyn_cast<LoadInst>(&inst)) {
      shape.pointer = load->getPointerOperand();
      shape.size = store_size(load->getType());
      vector_lanes(load->getType(), load->isSimple());
    } else if (auto* store = dyn_cast<StoreInst>(&inst)) {
      shape.pointer = store->getPointerOperand();
      shape.size = store_size(store->getValueOperand()->getType());
      vector_lanes(store->getValueOperand()->getType(), store->isSimple());
    } else if (auto* rmw = dyn_cast<AtomicRMWInst>(&inst)) {
      shape.pointer = rmw->getPointerOperand();
      shape.size = store_size(rmw->getValOperand()->getType());
    } else if (auto* cas = dyn_cast<AtomicCmpXchgInst>(&inst)) {
      shape.pointer = cas->getPointerOperand();
      shape.size = store_size(cas->getCompareOperand()->getType());
    } else if (auto* intrinsic = dyn_cast<IntrinsicInst>(&inst)) {
      IRBuilder<> builder(&inst);
      switch (intrinsic->getIntrinsicID()) {
        case Intrinsic::memcpy:
        case Intrinsic::memmove:
        case Intrinsic::memset:
        case Intrinsic::memcpy_inline:
        case Intrinsic::memset_inline:
          shape.pointer = intrinsic->getArgOperand(operand);
          shape.size = builder.CreateZExtOrTrunc(intrinsic->getArgOperand(2), i64_);
          break;
        case Intrinsic::masked_load:
        case Intrinsic::masked_store:
        case Intrinsic::masked_gather:
        case Intrinsic::masked_scatter: {
          const bool is_load = intrinsic->getIntrinsicID() == Intrinsic::masked_load ||
                               intrinsic->getIntrinsicID() == Intrinsic::masked_gather;
          auto* data = cast<FixedVectorType>(is_load ? intrinsic->getType() : intrinsic->getArgOperand(0)->getType());
          shape.pointer = intrinsic->getArgOperand(operand);
          shape.size = store_size(data->getElementType());
          shape.lanes = data->getNumElements();
          shape.mask = intrinsic->getArgOperand(is_load ? 2 : 3);
          if (!shape.pointer->getType()->isVectorTy())
            shape.stride = layout.getTypeAllocSize(data->getElementType()).getFixedValue();
          break;
        }
        default:
          *why = "a call of " + intrinsic->getCalledFunction()->getName().str();
          return std::nullopt;
      }
    } else {
      *why = "a '" + std::string(inst.getOpcodeName()) + "'";
      return std::nullopt;
    }
    if (shape.pointer->getType()->isVectorTy() && shape.stride == 0 && shape.lanes == 1) {
      *why = "an access through a vector of pointers";
      return std::nullopt;
    }
    return shape;
  }

  // True when the bytes accessed lie in [start, start + length): per lane,
  // (o <= L) & (s <= L - o), lanes outside the mask passing. Also gives the
  // offset of the first failing lane (or of the access) for the report, and
  // for an access of lanes the per-lane result (else null).
  Value* in_range(IRBuilder<>& builder, const Shape& shape, Value* start, Value* length, Value** out_offset,
                  Value** out_lanes) {
    *out_lanes = nullptr;
    if (shape.lanes == 1) {
      Value* offset = builder.CreateSub(builder.CreatePtrToInt(shape.pointer, i64_), start);
      *out_offset = offset;
      return builder.CreateAnd(builder.CreateICmpULE(offset, length),
                               builder.CreateICmpULE(shape.size, builder.CreateSub(length, offset)));
    }
    auto* vector = FixedVectorType::get(i64_, shape.lanes);
    Value* offsets;
    if (shape.stride) {
      SmallVector<Constant*, 16> steps;
      for (unsigned lane = 0; lane < shape.lanes; ++lane) steps.push_back(ConstantInt::get(i64_, lane * shape.stride));
      Value* first = builder.CreateSub(builder.CreatePtrToInt(shape.pointer, i64_), start);
      offsets = builder.CreateAdd(builder.CreateVectorSplat(shape.lanes, first), ConstantVector::get(steps));
    } else {
      offsets = builder.CreateSub(builder.CreatePtrToInt(shape.pointer, vector),
                                  builder.CreateVectorSplat(shape.lanes, start));
    }
    Value* lengths = builder.CreateVectorSplat(shape.lanes, length);
    Value* sizes = builder.CreateVectorSplat(shape.lanes, shape.size);
    Value* ok = builder.CreateAnd(builder.CreateICmpULE(offsets, lengths),
                                  builder.CreateICmpULE(sizes, builder.CreateSub(lengths, offsets)));
    if (shape.mask) ok = builder.CreateOr(ok, builder.CreateNot(shape.mask));
    // The first failing lane's offset (lane 0's when none fails).
    Value* bad = builder.CreateBitCast(builder.CreateNot(ok), builder.getIntNTy(shape.lanes));
    Value* lane = builder.CreateBinaryIntrinsic(Intrinsic::cttz, bad, builder.getTrue());
    lane = builder.CreateSelect(builder.CreateICmpEQ(bad, ConstantInt::get(bad->getType(), 0)),
                                ConstantInt::get(bad->getType(), 0), lane);
    *out_offset = builder.CreateExtractElement(offsets, lane);
    *out_lanes = ok;
    return builder.CreateAndReduce(ok);
  }

  // What one access's checks computed, over the bindings it may go through.
  struct Checked {
    Value* ok = nullptr;      // i1: in range (of some binding)
    Value* lanes = nullptr;   // per lane: in range (accesses of lanes), else null
    bool by_lane = true;      // every binding's check was per lane
    Value* offset = nullptr;  // the first binding's: the report's values
    Value* size = nullptr;
    Value* length = nullptr;
    uint32_t binding = 0;
  };

  // The checks of `inst` through `bindings`, at the builder. `fast`: a
  // contiguous access of lanes is checked as one span (all its lanes,
  // whatever the mask): one scalar range check, true only when the precise
  // check is.
  std::optional<Checked> check(IRBuilder<>& builder, Instruction& inst, ArrayRef<std::pair<uint32_t, unsigned>> bindings,
                               bool fast, bool* out_spans, std::vector<std::string>* unchecked) {
    Checked c;
    std::string why;
    Function& function = *inst.getFunction();
    for (const auto& [binding, operand] : bindings) {
      std::optional<Shape> shape = shape_of(inst, operand, &why);
      if (!shape) {
        if (unchecked) unchecked->push_back(why + " through binding " + std::to_string(binding));
        return std::nullopt;
      }
      auto [start, length] = binding_range(function, binding);
      const bool span = shape->lanes > 1 && shape->stride != 0;
      if (out_spans) *out_spans = *out_spans || span;
      if (fast && span) {
        Shape whole;
        whole.pointer = shape->pointer;
        whole.size = ConstantInt::get(i64_, uint64_t(shape->lanes) * shape->stride);
        shape = whole;
      }
      Value* offset = nullptr;
      Value* lane_fits = nullptr;
      Value* fits = in_range(builder, *shape, start, length, &offset, &lane_fits);
      c.by_lane = c.by_lane && lane_fits;
      if (lane_fits) c.lanes = c.lanes ? builder.CreateOr(c.lanes, lane_fits) : lane_fits;
      if (!c.ok) {
        c.offset = offset;
        c.size = shape->size;
        c.length = length;
        c.binding = binding;
      }
      c.ok = c.ok ? builder.CreateOr(c.ok, fits) : fits;
    }
    return c;
  }

  // if (in range) access; else { report; the lanes in range only }.
  // Contiguous accesses of lanes take a scalar check of their whole span
  // first; where it fails, the per-lane check decides (a tail whose
  // masked-off lanes lie past the end is still made whole, unreported).
  bool guard_access(Instruction& inst, ArrayRef<std::pair<uint32_t, unsigned>> bindings,
                    std::vector<std::string>* unchecked) {
    Function& function = *inst.getFunction();
    IRBuilder<> builder(&inst);
    bool spans = false;
    std::optional<Checked> fast = check(builder, inst, bindings, true, &spans, unchecked);
    if (!fast) return false;
    MDNode* likely = MDBuilder(module_.getContext()).createBranchWeights(1u << 20, 1);
    Instruction* then_term = nullptr;
    Instruction* else_term = nullptr;
    SplitBlockAndInsertIfThenElse(fast->ok, inst.getIterator(), &then_term, &else_term, likely);
    BasicBlock* then_block = then_term->getParent();
    BasicBlock* tail = then_term->getSuccessor(0);
    inst.moveBefore(then_term);
    builder.SetInsertPoint(else_term);
    std::optional<Checked> precise = spans ? check(builder, inst, bindings, false, nullptr, nullptr) : fast;
    PHINode* phi = nullptr;
    if (!inst.getType()->isVoidTy()) {
      phi = PHINode::Create(inst.getType(), 3, "", tail->begin());
      inst.replaceAllUsesWith(phi);
      phi->addIncoming(&inst, then_block);
    }
    PHINode* joined = phi;  // where the cold path's value goes
    if (spans) {
      // The span failed: the lanes decide. All in range: the whole access.
      Instruction* whole_term = nullptr;
      Instruction* bad_term = nullptr;
      SplitBlockAndInsertIfThenElse(precise->ok, else_term->getIterator(), &whole_term, &bad_term, likely);
      Instruction* whole = inst.clone();
      whole->insertBefore(whole_term);
      if (phi) {
        BasicBlock* join = else_term->getParent();  // the two cold paths meet, then go to the tail
        joined = PHINode::Create(inst.getType(), 2, "", join->begin());
        joined->addIncoming(whole, whole_term->getParent());
        phi->addIncoming(joined, join);
      }
      builder.SetInsertPoint(bad_term);
    }
    report(builder, function, inst, precise->binding, precise->offset, precise->size, precise->length);
    // The lanes in range are still made (each lane is a work item's).
    Value* partial = precise->by_lane ? partial_access(builder, inst, precise->lanes) : nullptr;
    if (joined) joined->addIncoming(partial ? partial : Constant::getNullValue(inst.getType()), builder.GetInsertBlock());
    return true;
  }

  // `inst`'s access made for the lanes `lanes` allows (under its own mask):
  // its value for a load (0 in the other lanes), else null.
  Value* partial_access(IRBuilder<>& builder, Instruction& inst, Value* lanes) {
    if (auto* load = dyn_cast<LoadInst>(&inst))
      return builder.CreateMaskedLoad(load->getType(), load->getPointerOperand(), load->getAlign(), lanes,
                                      Constant::getNullValue(load->getType()));
    if (auto* store = dyn_cast<StoreInst>(&inst)) {
      builder.CreateMaskedStore(store->getValueOperand(), store->getPointerOperand(), store->getAlign(), lanes);
      return nullptr;
    }
    auto* intrinsic = dyn_cast<IntrinsicInst>(&inst);
    if (!intrinsic) return nullptr;
    auto align_of = [&](unsigned index) {
      return cast<ConstantInt>(intrinsic->getArgOperand(index))->getAlignValue();
    };
    switch (intrinsic->getIntrinsicID()) {
      case Intrinsic::masked_load:
        return builder.CreateMaskedLoad(intrinsic->getType(), intrinsic->getArgOperand(0), align_of(1),
                                        builder.CreateAnd(intrinsic->getArgOperand(2), lanes),
                                        intrinsic->getArgOperand(3));
      case Intrinsic::masked_gather:
        return builder.CreateMaskedGather(intrinsic->getType(), intrinsic->getArgOperand(0), align_of(1),
                                          builder.CreateAnd(intrinsic->getArgOperand(2), lanes),
                                          intrinsic->getArgOperand(3));
      case Intrinsic::masked_store:
        builder.CreateMaskedStore(intrinsic->getArgOperand(0), intrinsic->getArgOperand(1), align_of(2),
                                  builder.CreateAnd(intrinsic->getArgOperand(3), lanes));
        return nullptr;
      case Intrinsic::masked_scatter:
        builder.CreateMaskedScatter(intrinsic->getArgOperand(0), intrinsic->getArgOperand(1), align_of(2),
                                    builder.CreateAnd(intrinsic->getArgOperand(3), lanes));
        return nullptr;
      default:
        return nullptr;
    }
  }

  void report(IRBuilder<>& builder, Function& function, const Instruction& access, uint32_t binding, Value* offset,
              Value* size, Value* length) {
    // The host passes its workgroup record and local id (null where
    // unknown); GPUs' report reads their own ids.
    const Context& context = contexts_[&function];
    FunctionType* type = report_->getFunctionType();
    Value* file = ConstantPointerNull::get(cast<PointerType>(type->getParamType(kBoundsReportFileParam)));
    uint32_t line = 0;
    if (const DILocation* location = access.getDebugLoc().get()) {
      line = location->getLine();
      Constant*& text = files_[location->getFilename()];
      if (!text) {
        const unsigned space = module_.getDataLayout().getDefaultGlobalsAddressSpace();
        GlobalVariable* global = builder.CreateGlobalString(location->getFilename(), "xgpu.file", space, &module_);
        text = ConstantExpr::getPointerBitCastOrAddrSpaceCast(global, type->getParamType(kBoundsReportFileParam));
      }
      file = text;
    }
    Value* args[kBoundsReportParams] = {context.kernarg, context.workgroup, context.local_id,
                                        builder.getInt32(binding), offset, size, length, file,
                                        builder.getInt32(line)};
    for (unsigned i = 0; i < kBoundsReportParams; ++i) {
      Type* want = type->getParamType(i);
      if (args[i]->getType() == want) continue;
      if (want->isIntegerTy()) args[i] = builder.CreateZExtOrTrunc(args[i], want);
      else if (want->isPointerTy()) args[i] = builder.CreatePointerBitCastOrAddrSpaceCast(args[i], want);
    }
    CallInst* call = builder.CreateCall(report_, args);
    call->setCallingConv(report_->getCallingConv());
    if (access.getDebugLoc())
      call->setDebugLoc(access.getDebugLoc());
    else if (DISubprogram* subprogram = function.getSubprogram())
      call->setDebugLoc(DILocation::get(module_.getContext(), 0, 0, subprogram));
  }

  Module& module_;
  TargetKind target_;
  Function* report_;
  uint32_t binding_count_;
  Type* i64_;
  Type* i32_;
  PointerType* ptr_;
  DenseMap<Function*, Context> contexts_;
  DenseMap<Function*, Function*> copies_;  // callee -> its copy
  SmallPtrSet<Instruction*, 32> guarded_;
  SmallPtrSet<const Value*, 8> roots_;            // binding pointers' loads (binding_access_sites)
  DenseMap<const Value*, bool> derived_;          // pointer -> from binding pointers only
  StringMap<Constant*> files_;
};

// The host descriptor `K.kd`'s copy for the checked kernel: its name, its
// entries, and no WORKGROUP_RUNS.
bool copy_descriptor(Module& module, StringRef kernel, StringRef checked, const DenseMap<Function*, Function*>& entries) {
  GlobalVariable* descriptor = module.getNamedGlobal((kernel + kDescriptorSuffix).str());
  if (!descriptor) descriptor = module.getNamedGlobal(("\01" + kernel + kDescriptorSuffix).str());
  if (!descriptor || !descriptor->hasInitializer()) return false;
  auto* init = dyn_cast<ConstantStruct>(descriptor->getInitializer());
  if (!init || init->getNumOperands() <= kDescriptorFlagsField) return false;
  SmallVector<Constant*, 12> fields;
  for (unsigned i = 0; i < init->getNumOperands(); ++i) fields.push_back(init->getOperand(i));
  IRBuilder<> builder(module.getContext());
  GlobalVariable* name = new GlobalVariable(
      module, ArrayType::get(builder.getInt8Ty(), checked.size() + 1), true, GlobalValue::PrivateLinkage,
      ConstantDataArray::getString(module.getContext(), checked), checked + ".name");
  name->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  fields[2] = ConstantExpr::getPointerBitCastOrAddrSpaceCast(name, fields[2]->getType());
  for (unsigned field : {kDescriptorRunWorkgroupField, kDescriptorRunWorkgroupField + 1}) {
    auto* function = dyn_cast<Function>(fields[field]->stripPointerCasts());
    if (!function) continue;
    auto found = entries.find(function);
    if (found == entries.end()) return false;
    fields[field] = ConstantExpr::getPointerBitCastOrAddrSpaceCast(found->second, fields[field]->getType());
  }
  auto* flags = dyn_cast<ConstantInt>(fields[kDescriptorFlagsField]);
  if (!flags) return false;
  fields[kDescriptorFlagsField] = ConstantInt::get(flags->getType(), flags->getZExtValue() & ~kFlagWorkgroupRuns);
  auto* copy = new GlobalVariable(module, init->getType(), true, descriptor->getLinkage(),
                                  ConstantStruct::get(init->getType(), fields), checked + kDescriptorSuffix);
  copy->setVisibility(descriptor->getVisibility());
  copy->setAlignment(descriptor->getAlign());
  copy->setSection(descriptor->getSection());
  copy->setDSOLocal(descriptor->isDSOLocal());
  appendToUsed(module, {copy});
  return true;
}

}  // namespace

PreservedAnalyses BoundsChecksPass::run(Module& module, ModuleAnalysisManager&) {
  Function* report = module.getFunction(kBoundsReportFunction);
  if (!report || report->isDeclaration()) return PreservedAnalyses::all();
  const Triple triple(module.getTargetTriple());
  const TargetKind target = triple.isAMDGPU() ? TargetKind::kAmdgpu
                            : triple.isNVPTX() ? TargetKind::kNvptx
                                               : TargetKind::kHost;
  const bool ptx = target == TargetKind::kNvptx;
  const unsigned record_space = target == TargetKind::kAmdgpu ? 4 : 0;
  bool changed = false;
  const bool report_ok = report->arg_size() == kBoundsReportParams && report->getReturnType()->isVoidTy();
  if (report_ok) {
    const StringMap<uint32_t> layouts = find_layouts(module);
    // Collected first: the copies add entries.
    SmallVector<std::pair<std::string, SmallVector<Function*, 2>>, 8> kernels;
    for (const auto& [kernel, entries] : find_kernel_entries(module)) {
      if (kernel.ends_with(kBoundsCheckedSuffix)) continue;
      SmallVector<Function*, 2> list;
      for (const Function* entry : entries) list.push_back(const_cast<Function*>(entry));
      kernels.push_back({kernel.str(), list});
    }
    for (auto& [kernel, entries] : kernels) {
      const std::string checked = kernel + kBoundsCheckedSuffix.str();
      const auto layout = layouts.find(kernel);
      // A kernel without bindings has nothing to check: no copy.
      if (layout == layouts.end() || layout->second == 0 || layout->second > kAccessRecordMaxBindings ||
          entries.empty())
        continue;
      if (module.getNamedGlobal((checked + kDescriptorSuffix).str()) || module.getFunction(checked)) continue;
      const std::optional<std::string> layout_record = find_record(module, kLayoutRecordMagic, kernel);
      const std::optional<std::string> access_record = find_record(module, kAccessRecordMagic, kernel);
      if (!layout_record) continue;
      CheckedCopy copy(module, target, report, layout->second);
      DenseMap<Function*, Function*> copies;
      bool shaped = true;
      for (Function* entry : entries) {
        const std::string name =
            target == TargetKind::kHost ? (entry->getName() + kBoundsCheckedSuffix).str() : checked;
        Function* entry_copy = copy.copy_entry(*entry, name);
        if (!entry_copy) {
          shaped = false;
          break;
        }
        copies[entry] = entry_copy;
      }
      if (shaped && target == TargetKind::kHost) shaped = copy_descriptor(module, kernel, checked, copies);
      if (!shaped) {
        // Entries of another shape: no copy (the layer says it cannot check K).
        for (auto& [entry, entry_copy] : copies) {
          entry_copy->replaceAllUsesWith(PoisonValue::get(entry_copy->getType()));
          entry_copy->eraseFromParent();
        }
        continue;
      }
      if (ptx) {
        // The copy is a kernel as K is: its annotations, copied.
        if (NamedMDNode* annotations = module.getNamedMetadata("nvvm.annotations")) {
          SmallVector<MDNode*, 4> added;
          for (MDNode* node : annotations->operands()) {
            if (node->getNumOperands() < 1) continue;
            auto* function = mdconst::dyn_extract_or_null<Function>(node->getOperand(0));
            auto found = function ? copies.find(function) : copies.end();
            if (found == copies.end()) continue;
            SmallVector<Metadata*, 4> operands(node->operands());
            operands[0] = ValueAsMetadata::get(found->second);
            added.push_back(MDNode::get(module.getContext(), operands));
          }
          for (MDNode* node : added) annotations->addOperand(node);
        }
      }
      std::vector<std::string> unchecked;
      SmallVector<Function*, 2> entry_copies;
      for (auto& [entry, entry_copy] : copies) entry_copies.push_back(entry_copy);
      const unsigned guarded = copy.guard(entry_copies, entries, &unchecked);
      // The records, under the copy's name.
      add_record(module, record_bytes(*layout_record, checked), checked + (ptx ? "_xgpu_layout_" : "_layout_"), ptx,
                 record_space);
      if (access_record)
        add_record(module, record_bytes(*access_record, checked),
                   checked + (ptx ? kAccessRecordPtxSuffix : kAccessRecordSuffix), ptx, record_space);
      add_record(module,
                 record_bytes(le_words({kFlagsRecordMagic, 0, kKernelFlagPrints | kKernelFlagBoundsChecked, 0}),
                              checked),
                 checked + (ptx ? kFlagsRecordPtxSuffix : kFlagsRecordSuffix), ptx, record_space);
      changed = true;
      std::string text = "kernel '" + kernel + "': bounds-checked copy '" + checked + "' checks " +
                         std::to_string(guarded) + " access" + (guarded == 1 ? "" : "es");
      if (!unchecked.empty()) {
        text += "; not checked:";
        for (size_t i = 0; i < unchecked.size() && i < 4; ++i) text += (i ? ", " : " ") + unchecked[i];
        if (unchecked.size() > 4) text += " and " + std::to_string(unchecked.size() - 4) + " more";
      }
      Function* first = copies.begin()->second;
      OptimizationRemarkEmitter ore(first);
      ore.emit(OptimizationRemarkAnalysis(kBoundsRemarkPass, "bounds-checks", first) << text);
    }
  }
  // The report function is the plugin's input: gone where nothing calls it
  // (and the print writer with it, where only it called that).
  {
    removeFromUsedLists(module, [&](Constant* c) { return c->stripPointerCasts() == report; });
    if (report->use_empty()) {
      report->eraseFromParent();
      changed = true;
      SmallVector<Function*, 2> dead;
      for (Function& function : module)
        if (is_print_emit(function) && function.hasLocalLinkage() && function.use_empty()) dead.push_back(&function);
      for (Function* function : dead) function->eraseFromParent();
    }
  }
  return changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
}

}  // namespace xgpu_wiloop
