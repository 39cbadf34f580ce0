// The Pyodide side module gemmkit/_gemmkit_simd128.wasm (CMakeLists.txt, under
// Emscripten) is libgemmkit.a linked whole: its C ABI is the module's exports.
// A target needs a source of its own; this one adds nothing.
