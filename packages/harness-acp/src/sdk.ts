import { loadEsmModule } from "@jest-m3/core/adapter-kit";

/** The ACP SDK's stable v1 module (`@agentclientprotocol/sdk`), as its types describe it. */
export type AcpSdk = typeof import("@agentclientprotocol/sdk", {
  with: { "resolution-mode": "import" },
});

/**
 * Loads the ACP SDK, an ECMAScript-module-only package, from this CommonJS package, in
 * whatever sandbox the caller runs in (the adapter kit's {@link loadEsmModule}): its objects
 * and errors are then checked by shape, never with `instanceof`.
 */
export function loadAcpSdk(): Promise<AcpSdk> {
  return loadEsmModule<AcpSdk>("@agentclientprotocol/sdk", require);
}
