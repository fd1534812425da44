// QuickJS compiled to WebAssembly: the language sandbox script connectors run in (inside the worker
// process, which stays the outer wall). We use the release *sync* variant: it is smaller and faster
// than asyncify, and async host functions are bridged with QuickJS promises
// (context.newPromise + runtime.executePendingJobs), so no asyncify stack unwinding is needed.
//
// The wasm is compiled once per worker (a few ms) and instantiated afresh for every run: each run
// gets its own linear memory, so nothing a script leaves behind can reach the next run, and the
// instance is simply dropped afterwards (no dispose bookkeeping that could abort on a leaked handle).
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { newQuickJSWASMModuleFromVariant, newVariant, RELEASE_SYNC, type QuickJSContext, type QuickJSRuntime } from 'quickjs-emscripten';
import { QUICKJS_WASM_NAME } from '../shared/bundle-layout.js';

/**
 * QuickJS's own stack limit. It must trip before V8's native stack does (wasm frames live there):
 * with the worker's --stack-size=3900 (pool.ts), 256 KiB lets ~1,500 plain JS frames nest and
 * deep JSON/regex/toString recursion still ends in a catchable "stack overflow".
 */
const MAX_STACK_BYTES = 256 * 1024;

let compiled: WebAssembly.Module | null = null;

/** Compiles the wasm found next to this bundle (called at worker start, so runs don't wait). */
export function loadQuickJS(wasmFile = fileURLToPath(new URL(`./${QUICKJS_WASM_NAME}`, import.meta.url))): void {
  compiled ??= new WebAssembly.Module(fs.readFileSync(wasmFile));
}

export interface ScriptVm {
  runtime: QuickJSRuntime;
  context: QuickJSContext;
  /** Whether the interrupt handler stopped the script (sticky once the deadline passed). */
  interrupted(): boolean;
  /** Whether the instance's memory reached its maximum (an allocation failure is then the limit). */
  memoryExhausted(): boolean;
}

/** Pages (64 KiB) the module's imported memory must start with (its declared minimum). */
const INITIAL_PAGES = 256;

/** A fresh QuickJS instance with the run's memory limit and an interrupt at the deadline. */
export async function newScriptVm(opts: { memoryBytes: number; deadline: number }): Promise<ScriptVm> {
  if (!compiled) loadQuickJS();
  // The memory limit is the wasm memory's maximum: growing past it fails malloc, which QuickJS
  // turns into "out of memory". (runtime.setMemoryLimit alone does not hold in this build: without
  // malloc_usable_size QuickJS counts only a few bytes per allocation.)
  const maxPages = Math.max(INITIAL_PAGES, Math.floor(opts.memoryBytes / 65536));
  const memory = new WebAssembly.Memory({ initial: INITIAL_PAGES, maximum: maxPages });
  const mod = await newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, { wasmModule: compiled!, wasmMemory: memory }));
  const runtime = mod.newRuntime();
  runtime.setMemoryLimit(opts.memoryBytes);
  runtime.setMaxStackSize(MAX_STACK_BYTES);
  let stopped = false;
  // Called by QuickJS every few thousand instructions (also inside regex matching): a busy loop
  // ends with an uncatchable InternalError "interrupted" at the run's deadline.
  runtime.setInterruptHandler(() => (stopped ||= Date.now() > opts.deadline));
  const context = runtime.newContext();
  return { runtime, context, interrupted: () => stopped, memoryExhausted: () => memory.buffer.byteLength >= maxPages * 65536 * 0.95 };
}
