// Preload (`node --import`) for a V8 whose relaxed SIMD has no off switch:
// node 22+ ships it on and rejects node 20's --no-experimental-wasm-relaxed-simd.
// WebAssembly.validate, compile, instantiate and new Module then reject any
// module holding a relaxed SIMD opcode (0xfd then 0x100..0x113 as LEB128:
// 0x80..0x93, 0x02), as an engine without the feature does.  A byte scan,
// not a decoder: gemmkit.test.mjs checks that the simd128 and scalar
// builds hold no such sequence, so only the relaxed build is refused.
import { holdsRelaxedSimd } from "./common.mjs";

const refuse = () => new WebAssembly.CompileError("relaxed SIMD unsupported (hidden by hide_relaxed_simd.mjs)");
const { validate, compile, instantiate, Module } = WebAssembly;
const isBytes = (x) => x instanceof ArrayBuffer || ArrayBuffer.isView(x);
WebAssembly.validate = (bytes, ...rest) => !holdsRelaxedSimd(bytes) && validate(bytes, ...rest);
WebAssembly.compile = async (bytes, ...rest) => {
  if (holdsRelaxedSimd(bytes)) throw refuse();
  return compile(bytes, ...rest);
};
WebAssembly.instantiate = async (source, ...rest) => {
  if (isBytes(source) && holdsRelaxedSimd(source)) throw refuse();
  return instantiate(source, ...rest);
};
WebAssembly.Module = new Proxy(Module, {
  construct(target, [bytes, ...rest]) {
    if (holdsRelaxedSimd(bytes)) throw refuse();
    return new target(bytes, ...rest);
  },
});
