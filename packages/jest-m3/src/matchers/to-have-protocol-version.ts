import { negotiatedProtocols } from "@jest-m3/core/runner";
import { throwUsage } from "../format/messages.js";
import { checkOptions, subjectFor, type MatcherResult, type M3MatcherContext } from "./context.js";

function isAsymmetric(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { asymmetricMatch?: unknown }).asymmetricMatch === "function"
  );
}

/**
 * `expect(result).toHaveProtocolVersion("2025-06-18", { server? })`: every connection (to
 * `server`, if given) negotiated this MCP protocol version, read from the `initialize`
 * answers on the wire. Needs a subject with a trace: `session.result`, a closed client.
 */
export function toHaveProtocolVersion(
  this: M3MatcherContext,
  received: unknown,
  expected: string | { asymmetricMatch(other: unknown): boolean },
  options: { readonly server?: string } = {},
): MatcherResult {
  const name = "toHaveProtocolVersion";
  checkOptions(this, name, options, ["server"]);
  if (typeof expected !== "string" && !isAsymmetric(expected)) {
    throwUsage(this, name, 'the version must be a string such as "2025-06-18"', {
      value: expected,
      label: "Expected",
    });
  }
  const subject = subjectFor(this, name, received);
  if (!subject.trace) {
    throwUsage(
      this,
      name,
      "a TurnResult has no wire messages; use session.result or a closed DirectClient",
    );
  }
  const negotiated = negotiatedProtocols(subject).filter(
    (entry) => options.server === undefined || entry.server === options.server,
  );
  const pass =
    negotiated.length > 0 && negotiated.every((entry) => this.equals(entry.version, expected));
  return {
    pass,
    message: () =>
      `${this.utils.matcherHint(name, undefined, "version", { isNot: this.isNot })}\n\n` +
      `Expected protocol version: ${this.isNot ? "not " : ""}${this.utils.printExpected(expected)}${options.server ? ` (server ${JSON.stringify(options.server)})` : ""}\n` +
      `Received: ${
        negotiated.length === 0
          ? "(no initialize answer was observed)"
          : negotiated
              .map((entry) => `${this.utils.printReceived(entry.version)} (${entry.server})`)
              .join(", ")
      }`,
  };
}
