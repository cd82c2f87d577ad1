// xgpu-wiloop: Loop ID utilities shared by the steps that mark loops.
#include "wiloop.h"

namespace xgpu_wiloop {

// Sets the integer option `name` of `loop` to `value`, in a loop ID of its
// own (a cloned loop shares its original's).
void set_loop_option(Loop& loop, StringRef name, uint64_t value) {
  LLVMContext& context = loop.getHeader()->getContext();
  SmallVector<Metadata*, 4> operands{nullptr};
  if (MDNode* id = loop.getLoopID())
    for (unsigned i = 1; i < id->getNumOperands(); ++i) {
      const auto* option = dyn_cast<MDNode>(id->getOperand(i));
      const auto* option_name =
          option && option->getNumOperands() > 0 ? dyn_cast<MDString>(option->getOperand(0)) : nullptr;
      if (!option_name || option_name->getString() != name) operands.push_back(id->getOperand(i));
    }
  Metadata* count = ConstantAsMetadata::get(ConstantInt::get(Type::getInt32Ty(context), value));
  operands.push_back(MDNode::get(context, {MDString::get(context, name), count}));
  MDNode* id = MDNode::getDistinct(context, operands);
  id->replaceOperandWith(0, id);
  loop.setLoopID(id);
}

// The name of loop ID option `operand` (an MDNode whose first operand is
// its name), or "".
StringRef option_name(const MDOperand& operand) {
  const auto* option = dyn_cast<MDNode>(operand);
  const auto* name = option && option->getNumOperands() > 0 ? dyn_cast<MDString>(option->getOperand(0)) : nullptr;
  return name ? name->getString() : StringRef();
}

// Replaces each loop ID of `function` for which `rewrite` returns options
// (nullopt: keep the ID) with a new distinct ID of those options: one new
// ID per old one, so that the latches of a loop keep sharing theirs.
// Returns whether it replaced any.
bool rewrite_loop_ids(Function& function,
                      function_ref<std::optional<SmallVector<Metadata*, 4>>(MDNode*)> rewrite) {
  DenseMap<MDNode*, MDNode*> replaced;
  for (BasicBlock& block : function) {
    Instruction* terminator = block.getTerminator();
    MDNode* id = terminator ? terminator->getMetadata(LLVMContext::MD_loop) : nullptr;
    if (!id) continue;
    MDNode* done = replaced.lookup(id);
    if (!done) {
      std::optional<SmallVector<Metadata*, 4>> options = rewrite(id);
      if (!options) continue;
      SmallVector<Metadata*, 4> operands{nullptr};
      operands.append(options->begin(), options->end());
      done = MDNode::getDistinct(function.getContext(), operands);
      done->replaceOperandWith(0, done);
      replaced[id] = done;
    }
    terminator->setMetadata(LLVMContext::MD_loop, done);
  }
  return !replaced.empty();
}

// Removes the item-loop and jam marks from every loop ID in `module`.
void drop_loop_marks(Module& module) {
  for (Function& function : module)
    rewrite_loop_ids(function, [](MDNode* id) -> std::optional<SmallVector<Metadata*, 4>> {
      SmallVector<Metadata*, 4> options;
      for (unsigned i = 1; i < id->getNumOperands(); ++i)
        if (StringRef name = option_name(id->getOperand(i)); name != kItemLoopMarker && name != kJamMarker)
          options.push_back(id->getOperand(i));
      if (options.size() + 1 == id->getNumOperands()) return std::nullopt;
      return options;
    });
}

}  // namespace xgpu_wiloop
