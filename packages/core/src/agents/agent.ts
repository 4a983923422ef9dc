import type { HarnessDefinition, Readiness, SelectionSpec } from "../harness/contract.js";
import type { AgentServices, SessionAgent } from "./services.js";
import type { ExecutionResult } from "../evidence/results.js";
import { AgentSession } from "./session.js";
import { readinessKeyFor } from "./readiness-key.js";
import type { SessionOptions } from "./session-spec.js";

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
    const context = { selection: this.spec, config: this.services.config, credentialNames };
    return this.services.runtime.readiness(
      this.harness,
      readinessKeyFor(this.harness, context),
      () => this.harness.readiness(context),
    );
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
