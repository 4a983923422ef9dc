/**
 * Services global setup started and global teardown stops. Both hooks run in Jest's main
 * process, so a module-level list reaches from one to the other.
 */
export const SHARED_SERVICES: Array<() => Promise<void>> = ((globalThis as Record<symbol, unknown>)[
  Symbol.for("jest-m3.shared-services")
] ??= []) as Array<() => Promise<void>>;
