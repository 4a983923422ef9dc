import type {
  HarnessDefinition,
  Readiness,
  ReadinessContext,
  SelectionSpec,
} from "../harness/contract.js";
import type { ManagedProcess, ProcessLaunch } from "../processes/managed-process.js";
import type { ServerSpec } from "../servers/spec.js";
import type { CaptureOptions } from "../kit/kit.js";
import type { OwnedResource } from "../kit/context.js";
import type { CapturedServer, WireCapture } from "../wire/capture.js";
import type { ExecutionResult } from "./results.js";
import { AgentSession, type SessionOptions } from "./session.js";

/** @internal What a selection needs from its kit. */
export interface AgentServices {
  readonly config: Readonly<Record<string, string | undefined>>;
  readonly parentEnv: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  assertOpen(what: string): void;
  capture(options: CaptureOptions): Promise<{ capture: WireCapture; servers: CapturedServer[] }>;
  tempDir(prefix: string): Promise<string>;
  spawn(launch: ProcessLaunch): ManagedProcess;
  own(resource: OwnedResource): () => void;
}

/** Readiness probes, per adapter and then per readiness key. */
const readinessCache = new WeakMap<HarnessDefinition, Map<string, Promise<Readiness>>>();
/** Answers probed elsewhere (a test runner's global setup), by harness name and key. */
const primedReadiness = new Map<string, Readiness>();

/** The key a readiness answer is cached under (see {@link HarnessDefinition.readinessKey}). */
export function readinessKeyFor(harness: HarnessDefinition, context: ReadinessContext): string {
  if (harness.readinessKey) return `adapter:${harness.readinessKey(context)}`;
  return JSON.stringify([
    context.selection.harness,
    context.selection.executable ?? null,
    [...context.credentialNames].sort(),
    context.selection.provider?.baseUrl ?? null,
    Object.entries(context.config)
      .filter(([name]) => name.startsWith("M3_"))
      .sort(),
  ]);
}

/**
 * Hands this process a readiness answer probed elsewhere (the preset's global setup), so
 * sessions with the same readiness key do not probe again. Only keys from
 * {@link HarnessDefinition.readinessKey} can match across processes.
 */
export function primeReadiness(harness: string, key: string, readiness: Readiness): void {
  primedReadiness.set(`${harness}\u0000${key}`, readiness);
}

/**
 * One harness with one model, ready to open sessions. Made by `kit.agents()`; nothing is
 * started until {@link AgentSelection.readiness} or a session's `open()`.
 */
export class AgentSelection {
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
   * credentials and provider within a process, and cached.
   */
  readiness(): Promise<Readiness> {
    this.services.assertOpen("agent.readiness()");
    const credentialNames = Object.keys(this.spec.credentialEnv).sort();
    const context = { selection: this.spec, config: this.services.config, credentialNames };
    const key = readinessKeyFor(this.harness, context);
    let probes = readinessCache.get(this.harness);
    if (!probes) readinessCache.set(this.harness, (probes = new Map()));
    let cached = probes.get(key);
    if (!cached) {
      const primed = primedReadiness.get(`${this.harness.name}\u0000${key}`);
      cached = primed ? Promise.resolve(primed) : this.harness.readiness(context);
      probes.set(key, cached);
      cached.catch(() => probes.delete(key));
    }
    return cached;
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

export type { ServerSpec };
