import { pathToFileURL } from "node:url";
import * as vm from "node:vm";

/** The ACP SDK's stable v1 module (`@agentclientprotocol/sdk`), as its types describe it. */
export type AcpSdk = typeof import("@agentclientprotocol/sdk", {
  with: { "resolution-mode": "import" },
});

let loading: Promise<AcpSdk> | undefined;

/**
 * Loads the ACP SDK, an ECMAScript-module-only package, from this CommonJS package.
 *
 * It is imported with Node's own loader, in the main context. A plain `import()` would do
 * in Node, but test runners that evaluate modules in a sandbox of their own (Jest without
 * `--experimental-vm-modules`) reject it; `vm`'s main-context loader (Node 20.12+) works
 * in both. The SDK then lives outside such a sandbox: its objects and errors are checked by
 * shape here, never with `instanceof`.
 */
export function loadAcpSdk(): Promise<AcpSdk> {
  loading ??= (async () => {
    const url = pathToFileURL(require.resolve("@agentclientprotocol/sdk")).href;
    const loader = (vm.constants as Partial<typeof vm.constants> | undefined)
      ?.USE_MAIN_CONTEXT_DEFAULT_LOADER;
    if (loader === undefined) return (await import(url)) as AcpSdk;
    const load = new vm.Script("(url) => import(url)", {
      importModuleDynamically: loader,
    }).runInThisContext() as (url: string) => Promise<AcpSdk>;
    return load(url);
  })();
  loading.catch(() => (loading = undefined));
  return loading;
}
