// Loading Prisma's schema engine (WebAssembly build) so that a panic or a stray timer cannot take the process with it.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

type Glue = typeof import('@prisma/schema-engine-wasm/schema_engine_bg');

const require = createRequire(import.meta.url);
const gluePath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
let compiled: Promise<WebAssembly.Module> | undefined;
let instances = 0;

export interface EngineInstance {
  glue: Glue;
  /** Settles like `call`, or rejects if the engine crashes while `call` is pending. */
  guard<T>(call: Promise<T>): Promise<T>;
  dispose(): void;
}

// The glue keeps the wasm exports in module-level state, so every engine gets its own copy of the glue module (a
// distinct URL is a distinct ES module instance): two engines sharing one glue break each other, and a Rust panic
// leaves an instance unusable.
export async function instantiateEngine(): Promise<EngineInstance> {
  compiled ??= readFile(join(dirname(gluePath), 'schema_engine_bg.wasm')).then((bytes) => WebAssembly.compile(bytes));
  const module = await compiled;
  const glue = (await import(`${pathToFileURL(gluePath).href}?instance=${++instances}`)) as Glue;
  const imports: Record<string, unknown> = { ...glue };

  // A panic inside a Rust closure that JS calls back (promise reactions, timers, microtasks) would surface as an
  // uncaught exception that kills the process while the engine call stays pending forever; turn it into a
  // rejection of that call instead.
  let crash!: (error: Error) => void;
  const crashed = new Promise<never>((_, reject) => (crash = reject));
  crashed.catch(() => {});
  guardClosures(glue, imports, crash);
  const timers = cancellableTimeouts(glue, imports);

  const instance = new WebAssembly.Instance(module, { './schema_engine_bg.js': imports as WebAssembly.ModuleImports });
  glue.__wbg_set_wasm(instance.exports);
  (instance.exports as { __wbindgen_start(): void }).__wbindgen_start();
  return {
    glue,
    guard: (call) => Promise.race([call, crashed]),
    dispose() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}

/** Wraps every closure the glue hands to JS so that a throw from it calls `crash` instead of escaping. */
function guardClosures(glue: Glue, imports: Record<string, unknown>, crash: (error: Error) => void): void {
  for (const [name, cast] of Object.entries(glue)) {
    if (!name.startsWith('__wbindgen_cast_') || typeof cast !== 'function') continue;
    imports[name] = (...args: unknown[]) => {
      const value: unknown = (cast as (...a: unknown[]) => unknown)(...args);
      if (typeof value !== 'function' || !('_wbg_cb_unref' in value)) return value;
      const closure = value as ((...a: unknown[]) => unknown) & { _wbg_cb_unref: unknown };
      const guarded = (...a: unknown[]) => {
        try {
          return closure(...a);
        } catch (e) {
          crash(crashError(e));
        }
      };
      return Object.assign(guarded, { _wbg_cb_unref: closure._wbg_cb_unref });
    };
  }
}

// The engine arms timeouts it never cancels (there is no clearTimeout import); left alone they hold the process
// open for ~10 s after the work is done.
function cancellableTimeouts(glue: Glue, imports: Record<string, unknown>): Set<NodeJS.Timeout> {
  const timers = new Set<NodeJS.Timeout>();
  for (const name of Object.keys(glue).filter((n) => n.startsWith('__wbg_setTimeout_'))) {
    imports[name] = (callback: () => void, ms: number) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        callback();
      }, ms >>> 0);
      timers.add(timer);
      return timer;
    };
  }
  return timers;
}

// The glue hands the panic message to this global right before the wasm traps, in the same synchronous call.
let panicMessage: string | undefined;
const panicGlobal = globalThis as { PRISMA_WASM_PANIC_REGISTRY?: { set_message(message: string): void } };
const previousRegistry = panicGlobal.PRISMA_WASM_PANIC_REGISTRY;
panicGlobal.PRISMA_WASM_PANIC_REGISTRY = {
  set_message(message: string) {
    panicMessage = message;
    previousRegistry?.set_message(message);
  },
};

export function crashError(cause: unknown): Error {
  const detail = panicMessage ?? (cause instanceof Error ? cause.message : String(cause));
  panicMessage = undefined;
  return new Error(`Prisma schema engine crashed: ${detail}`, { cause });
}
