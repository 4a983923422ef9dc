import type {
  Capability,
  HarnessDefinition,
  Readiness,
  SelectionSpec,
} from "../harness/contract.js";
import type { AgentServices, SessionAgent } from "./services.js";
import type { ExecutionResult } from "../evidence/results.js";
import { AgentSession } from "./session.js";
import { readinessKeyFor } from "./readiness-key.js";
import type { SessionOptions } from "./session-spec.js";

/**
 * Readiness with its `modelUsage` line: where a turn's tokens will come from. A selection
 * with a provider gets the provider tap (ready); one without (the agent's own login and base
 * URL, which a tap cannot stand in front of) is degraded, saying so and naming the agent's
 * own usage reports it falls back to, or that there are none. Degraded is usable: the
 * session runs, its usage marked `agent-reported` or `Unavailable`.
 */
function withModelUsage(
  readiness: Readiness,
  spec: SelectionSpec,
  harness: HarnessDefinition,
): Readiness {
  if (readiness.capabilities.modelUsage !== undefined) return readiness;
  const noTap =
    "no provider tap can stand in the path: the selection has no provider, so the agent uses its own login and base URL";
  const modelUsage: Capability =
    spec.provider !== undefined
      ? { status: "ready" }
      : {
          status: "degraded",
          reason:
            harness.reportedUsage !== undefined
              ? `${noTap}; usage is agent-reported, from ${harness.reportedUsage}, and no model request is recorded`
              : `${noTap}, and the ${harness.name} harness reads no usage from the agent's own events: usage is Unavailable`,
        };
  return { ...readiness, capabilities: { ...readiness.capabilities, modelUsage } };
}

/**
 * One harness with one model, ready to open sessions. Made by `kit.agents()`; nothing is
 * started until {@link AgentSelection.readiness} or a session's `open()`.
 */
export class AgentSelection implements SessionAgent {
  /** @internal */
  constructor(
    /** What was selected, validated. */
    readonly spec: SelectionSpec,
    /** @internal */
    readonly harness: HarnessDefinition,
    /** 1-based trial number, when trials > 1. */
    readonly trial: number,
    private readonly services: AgentServices,
  ) {}

  /** `harness:model`, or the selection's name. */
  get name(): string {
    return this.spec.name;
  }

  /** The model this selection runs. */
  get model(): string {
    return this.spec.model;
  }

  /**
   * What the harness can do with this selection. Probed once per harness, executable,
   * credentials and provider within a runtime, and cached.
   */
  readiness(): Promise<Readiness> {
    this.services.assertOpen("agent.readiness()");
    const credentialNames = Object.keys(this.spec.credentialEnv).sort();
    const { probeCache } = this.services.runtime;
    const context = {
      selection: this.spec,
      config: this.services.config,
      credentialNames,
      ...(probeCache ? { probeCache } : {}),
    };
    return this.services.runtime
      .readiness(this.harness, readinessKeyFor(this.harness, context), () =>
        this.harness.readiness(context),
      )
      .then((readiness) => withModelUsage(readiness, this.spec, this.harness));
  }

  /**
   * A multi-turn session with this agent. The servers and the allow-list are checked now;
   * nothing starts until `open()`.
   *
   * @example
   * ```ts
   * const session = agent.session({ server, tools: ["shipping:shipping_quote"], timeout: 120_000 });
   * {
   *   await using open = await session.open();
   *   const first = await open.send("Quote 2 kg to zone local.");
   * }
   * expect(session.result).toHaveOutcome(ExecutionOutcome.COMPLETED);
   * ```
   */
  session(options: SessionOptions): AgentSession {
    this.services.assertOpen("agent.session()");
    return new AgentSession(this, options, this.services, { requireMultiTurn: true });
  }

  /** A one-turn session: opens, sends `prompt`, closes, and returns the final result. */
  async run(prompt: string, options: SessionOptions): Promise<ExecutionResult> {
    this.services.assertOpen("agent.run()");
    const session = new AgentSession(this, options, this.services, { requireMultiTurn: false });
    try {
      await session.open();
      await session.send(prompt);
    } finally {
      await session.close();
    }
    return session.result;
  }
}
