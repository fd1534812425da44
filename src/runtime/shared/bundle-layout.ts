// File names inside the sandbox bundle directory, shared by the builder (bundle.ts) and the worker.
/** The QuickJS wasm, copied next to the worker bundle; the worker may read exactly this file. */
export const QUICKJS_WASM_NAME = 'quickjs.wasm';
