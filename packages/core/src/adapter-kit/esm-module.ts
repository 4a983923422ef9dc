/**
 * Loading a package that is an ECMAScript module only (an agent's SDK, its protocol's
 * schema) from a CommonJS adapter, in whatever sandbox the caller runs in.
 *
 * Node (20.19 and later) can `require()` it; test runners that evaluate modules in a sandbox
 * of their own (Jest without `--experimental-vm-modules`) cannot, and reject a plain
 * `import()` as well. Then it is imported with Node's own loader in the main context
 * (`vm`'s main-context loader, Node 20.12 and later). The module then lives outside such a
 * sandbox: its objects and errors are checked by shape, never with `instanceof`.
 *
 * @example
 * ```ts
 * type MySdk = typeof import("my-agent-sdk", { with: { "resolution-mode": "import" } });
 * const sdk = await loadEsmModule<MySdk>("my-agent-sdk", require);
 * ```
 */
import { pathToFileURL } from "node:url";
import * as vm from "node:vm";

/** The loads under way or done, per `require` (the adapter module that asks) and specifier. */
const loads = new WeakMap<NodeRequire, Map<string, Promise<unknown>>>();

/**
 * Imports `url` with Node's own loader in the main context, whatever sandbox the caller
 * runs in. Node flags the loader constant as experimental on each use; that one warning is
 * held back (it says nothing about the test), every other warning goes through.
 */
function importInMainContext<T>(url: string, loader: number): Promise<T> {
  const realProcess = new vm.Script("process").runInThisContext() as NodeJS.Process;
  const emit = realProcess.emitWarning;
  realProcess.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (String(warning).includes("USE_MAIN_CONTEXT_DEFAULT_LOADER")) return;
    (emit as (...args: unknown[]) => void).call(realProcess, warning, ...rest);
  }) as NodeJS.Process["emitWarning"];
  try {
    const load = new vm.Script("(url) => import(url)", {
      importModuleDynamically: loader,
    }).runInThisContext() as (url: string) => Promise<T>;
    return load(url);
  } finally {
    realProcess.emitWarning = emit;
  }
}

/**
 * The module `specifier`, resolved as `from` (the calling module's `require`) resolves it:
 * required when the caller's `require` can, else imported (see the module's description).
 * Loaded once per caller and specifier; a failed load is tried again next time.
 */
export function loadEsmModule<T>(specifier: string, from: NodeRequire): Promise<T> {
  let mine = loads.get(from);
  if (!mine) loads.set(from, (mine = new Map()));
  let loading = mine.get(specifier) as Promise<T> | undefined;
  if (!loading) {
    loading = (async () => {
      try {
        return from(specifier) as T;
      } catch {
        // A sandboxed or older require: import it instead.
      }
      const url = pathToFileURL(from.resolve(specifier)).href;
      const loader = (vm.constants as Partial<typeof vm.constants> | undefined)
        ?.USE_MAIN_CONTEXT_DEFAULT_LOADER;
      if (loader === undefined) return (await import(url)) as T;
      return importInMainContext<T>(url, loader);
    })();
    mine.set(specifier, loading);
    loading.catch(() => mine.delete(specifier));
  }
  return loading;
}
