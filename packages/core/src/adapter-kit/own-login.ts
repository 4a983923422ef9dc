/**
 * The user's own login of an agent (copied into the session's fresh home), used only when
 * the session has nothing else to authenticate with: no provider and no credentials given,
 * and a login that can be used. Using it is said in the session's record, once.
 *
 * @example
 * ```ts
 * const own = ownLogin(launch, findHostLogin(config), (login) => `the My Agent login of ${login.file}`);
 * if (own) await copyRegularFile(own.file, join(homes.config, "auth.json"));
 * ```
 */
import type { HarnessLaunch } from "../harness/contract.js";

/** See the module's description; `describe` words the login for the record ("using ..."). */
export function ownLogin<L extends { readonly usable: boolean }>(
  launch: Pick<HarnessLaunch, "provider" | "credentials" | "record">,
  login: L,
  describe: (login: Extract<L, { readonly usable: true }>) => string,
): Extract<L, { readonly usable: true }> | undefined {
  if (launch.provider || launch.credentials.length > 0 || !login.usable) return undefined;
  const usable = login as Extract<L, { readonly usable: true }>;
  launch.record({ kind: "harness", detail: `using ${describe(usable)}` });
  return usable;
}
