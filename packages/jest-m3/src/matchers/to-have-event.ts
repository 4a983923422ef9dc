import type { TraceEvent } from "@jest-m3/core";
import { throwUsage } from "../format/messages.js";
import { checkOptions, subjectFor, type MatcherResult, type M3MatcherContext } from "./context.js";

const KINDS: readonly TraceEvent["kind"][] = [
  "connected",
  "closed",
  "process_exit",
  "transport_error",
  "malformed",
  "stderr",
  "channel_lost",
  "approval",
  "harness",
];

/**
 * `expect(result).toHaveEvent("process_exit", { server?, count? })`: the trace recorded an
 * event of this kind (a connection, a process exit, an approval, ...), or exactly `count`.
 */
export function toHaveEvent(
  this: M3MatcherContext,
  received: unknown,
  kind: TraceEvent["kind"],
  options: { readonly server?: string; readonly count?: number } = {},
): MatcherResult {
  const name = "toHaveEvent";
  checkOptions(this, name, options, ["server", "count"]);
  if (!KINDS.includes(kind)) {
    throwUsage(
      this,
      name,
      `unknown event kind ${this.utils.printExpected(kind)}; the kinds are ${KINDS.join(", ")}`,
    );
  }
  if (options.count !== undefined && (!Number.isInteger(options.count) || options.count < 0)) {
    throwUsage(this, name, "count must be a non-negative integer");
  }
  const subject = subjectFor(this, name, received);
  if (!subject.trace) {
    throwUsage(
      this,
      name,
      "a TurnResult has no trace events; use session.result or a closed DirectClient",
    );
  }
  if ((this.isNot || options.count !== undefined) && !subject.finished) {
    throwUsage(this, name, "an assertion of absence or of an exact count needs a finished subject");
  }
  const events = subject.trace.events.filter(
    (event) => options.server === undefined || event.server === options.server,
  );
  const matching = events.filter((event) => event.kind === kind);
  const pass =
    options.count === undefined ? matching.length > 0 : matching.length === options.count;
  return {
    pass,
    message: () =>
      `${this.utils.matcherHint(name, undefined, "kind", { isNot: this.isNot, secondArgument: "options" })}\n\n` +
      `Expected: ${this.isNot ? "no " : ""}${this.utils.printExpected(kind)} event${options.count === undefined ? "" : `s: exactly ${options.count}`}${options.server ? ` (server ${JSON.stringify(options.server)})` : ""}\n` +
      `Received: ${this.utils.printReceived(matching.length)} matching\n\n` +
      `Events (${events.length}):\n${
        events.length === 0
          ? "  (none)"
          : events
              .map(
                (event) =>
                  `  ${event.server.padEnd(Math.max(...events.map((e) => e.server.length)))}  ${event.kind.padEnd(15)}  ${event.detail}`,
              )
              .join("\n")
      }`,
  };
}
