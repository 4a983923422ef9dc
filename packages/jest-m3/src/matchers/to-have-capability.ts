import { describeCapability } from "@jest-m3/core/runner";
import type { Capability } from "@jest-m3/core/harness";
import { throwUsage } from "../format/messages.js";
import { checkOptions, type MatcherResult, type M3MatcherContext } from "./context.js";

/**
 * `expect(await agent.readiness()).toHaveCapability("multiTurn", { status? })`: the harness
 * reports this capability with this status (default `ready`).
 */
export function toHaveCapability(
  this: M3MatcherContext,
  received: unknown,
  capability: string,
  options: { readonly status?: Capability["status"] } = {},
): MatcherResult {
  const name = "toHaveCapability";
  checkOptions(this, name, options, ["status"]);
  const capabilities = (received as { capabilities?: unknown } | null)?.capabilities;
  if (
    typeof received !== "object" ||
    received === null ||
    typeof capabilities !== "object" ||
    capabilities === null
  ) {
    throwUsage(
      this,
      name,
      `${this.utils.RECEIVED_COLOR("received")} value must be a Readiness (from agent.readiness())`,
      { value: received },
    );
  }
  const all = capabilities as Readonly<Record<string, Capability>>;
  const status = options.status ?? "ready";
  const actual = all[capability];
  return {
    pass: actual?.status === status,
    message: () =>
      `${this.utils.matcherHint(name, undefined, "capability", { isNot: this.isNot })}\n\n` +
      `Expected: ${this.isNot ? "not " : ""}${this.utils.printExpected(`${capability}: ${status}`)}\n` +
      `Received: ${this.utils.printReceived(describeCapability(capability, actual))}\n\n` +
      `Capabilities:\n${Object.keys(all)
        .map((key) => `  ${describeCapability(key, all[key])}`)
        .join("\n")}`,
  };
}
