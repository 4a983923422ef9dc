import { pathToFileURL } from "node:url";
import * as vm from "node:vm";

/** The ACP SDK's stable v1 module (`@agentclientprotocol/sdk`), as its types describe it. */
export type AcpSdk = typeof import("@agentclientprotocol/sdk", {
  with: { "resolution-mode": "import" },
});

const SPECIFIER = "@agentclientprotocol/sdk";
let loading: Promise<AcpSdk> | undefined;

/**
 * Imports `url` with Node's own loader in the main context, whatever sandbox the caller
 * runs in. Node flags the loader constant as experimental on each use; that one warning is
 * held back (it says nothing about the test), every other warning goes through.
 */
function importInMainContext(url: string, loader: number): Promise<AcpSdk> {
  const realProcess = new vm.Script("process").runInThisContext() as NodeJS.Process;
  const emit = realProcess.emitWarning;
  realProcess.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (String(warning).includes("USE_MAIN_CONTEXT_DEFAULT_LOADER")) return;
    (emit as (...args: unknown[]) => void).call(realProcess, warning, ...rest);
  }) as NodeJS.Process["emitWarning"];
  try {
    const load = new vm.Script("(url) => import(url)", {
      importModuleDynamically: loader,
    }).runInThisContext() as (url: string) => Promise<AcpSdk>;
    return load(url);
  } finally {
    realProcess.emitWarning = emit;
  }
}

/**
 * Loads the ACP SDK, an ECMAScript-module-only package, from this CommonJS package.
 *
 * Node (20.19 and later) can `require()` it; test runners that evaluate modules in a sandbox
 * of their own (Jest without `--experimental-vm-modules`) cannot, and reject a plain
 * `import()` as well. Then it is imported with Node's own loader in the main context
 * (`vm`'s main-context loader, Node 20.12 and later). The SDK then lives outside such a
 * sandbox: its objects and errors are checked by shape here, never with `instanceof`.
 */
export function loadAcpSdk(): Promise<AcpSdk> {
  loading ??= (async () => {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- require(esm), Node 20.19+
      return require(SPECIFIER) as AcpSdk;
    } catch {
      // A sandboxed or older require: import it instead.
    }
    const url = pathToFileURL(require.resolve(SPECIFIER)).href;
    const loader = (vm.constants as Partial<typeof vm.constants> | undefined)
      ?.USE_MAIN_CONTEXT_DEFAULT_LOADER;
    if (loader === undefined) return (await import(url)) as AcpSdk;
    return importInMainContext(url, loader);
  })();
  loading.catch(() => (loading = undefined));
  return loading;
}
