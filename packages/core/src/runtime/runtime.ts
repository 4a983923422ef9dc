/**
 * The run's shared state, in one explicit object: which kits are open, who observes them,
 * readiness answers already probed, and the run's default model provider. A test-runner
 * binding (the jest-m3 preset) creates one and installs it as the default; a test can
 * build its own and hand it to a kit (`new MCPTestKit({ runtime })`), so two kits with
 * different run settings coexist in one process.
 */
import { keepingAlive } from "../processes/keep-alive.js";
import { ProviderTap, type TapUpstream } from "../provider-tap/tap.js";
import type { ExecutionResult, TurnResult } from "../evidence/results.js";
import type { ToolCall } from "../evidence/trace.js";
import type { DirectClientClosed } from "../kit/context.js";
import type {
  HarnessDefinition,
  ModelProvider,
  ProviderDialect,
  Readiness,
  ProbeCache,
} from "../harness/contract.js";
import { onWarmProcess } from "../adapter-kit/warm-registry.js";
import { SecretScrubber, type SecretValue } from "./secret-scrubber.js";

/**
 * Hooks for test-runner integrations (the jest-m3 preset uses them for transcripts and for
 * its orphan check). Observers must be quick and must not throw.
 */
export interface KitObserver {
  /** A kit started a child process (a server, a harness, a relay). */
  processStarted?(process: {
    readonly pid: number;
    readonly label: string;
    readonly command: string;
  }): void;
  /** A kit created a temporary directory (removed when the kit closes). */
  tempDirCreated?(path: string): void;
  /** An agent session finished; its result is final. */
  executionFinished?(result: ExecutionResult): void;
  /** A turn was sent to an agent (for live progress). */
  turnStarted?(turn: SessionProgress & { readonly prompt: string }): void;
  /** A tool call of a session crossed the wire (`started`) or ended (`ended`). */
  toolCallSeen?(
    call: SessionProgress & { readonly call: ToolCall; readonly phase: "started" | "ended" },
  ): void;
  /** A turn ended; its result is final. */
  turnFinished?(turn: SessionProgress & { readonly result: TurnResult }): void;
  /** A direct client (`kit.direct()`) that had connected closed; its trace is final. */
  directClientClosed?(client: DirectClientClosed): void;
}

/** Which session and turn a progress event is about. */
export interface SessionProgress {
  readonly executionId: string;
  /** The agent's display name (`codex:gpt-5.5`). */
  readonly agent: string;
  /** The turn's number, from 1; null outside turns (startup, close). */
  readonly turn: number | null;
}

/**
 * Where a run's default model provider comes from: a service that answers in several
 * dialects (the scripted model's `providerFor`) or a single provider of one dialect.
 */
export interface RunProviderSource {
  /** The provider in `dialect`, or undefined when this source does not speak it. */
  providerFor(dialect: ProviderDialect): ModelProvider | undefined;
}

/** The run's default provider and where the choice came from (for messages). */
export interface RunProvider {
  readonly source: RunProviderSource;
  /** Where the choice came from, e.g. `m3.config.json scriptedModel`. */
  readonly label: string;
}

/** What the runtime needs of a kit to track it. */
export interface TrackedKit {
  close(): Promise<void>;
}

/** Options of {@link M3Runtime}. */
export interface RuntimeOptions {
  /** The provider for selections that name none (each harness gets its own dialect). */
  readonly provider?: RunProvider;
  /**
   * Readiness answers kept across runs (the jest-m3 preset keeps them in
   * `<resultsDir>/cache/probes.json`): every readiness probe of this runtime's kits gets it,
   * so a worker does not start an unchanged agent binary only to ask what it supports.
   */
  readonly probeCache?: ProbeCache;
}

/**
 * One run's settings and shared state. Kits take theirs from `new MCPTestKit({ runtime })`,
 * else from {@link defaultRuntime}.
 *
 * @example
 * ```ts
 * const runtime = new M3Runtime({ provider: { source: model, label: "my test" } });
 * await using kit = new MCPTestKit({ env: {}, runtime });
 * ```
 */
export class M3Runtime {
  private readonly kits = new Set<TrackedKit>();
  private readonly observers = new Set<KitObserver>();
  private readonly probes = new WeakMap<HarnessDefinition, Map<string, Promise<Readiness>>>();
  private readonly primed = new Map<string, Readiness>();
  private runProvider: RunProvider | undefined;
  /** Readiness answers kept across runs, when the runner keeps them ({@link RuntimeOptions.probeCache}). */
  readonly probeCache: ProbeCache | undefined;
  /** The run's one scrubber of secret values (see {@link SecretScrubber}). */
  private readonly scrubber = new SecretScrubber();
  private readonly taps = new Map<string, Promise<ProviderTap>>();

  constructor(options: RuntimeOptions = {}) {
    this.runProvider = options.provider;
    this.probeCache = options.probeCache;
  }

  /**
   * The provider tap in front of `upstream`, started once per runtime and provider and kept
   * for the runtime's life (unref'd): a harness process kept warm across sessions keeps the
   * base URL it was started with. Sessions share it through {@link ProviderTap.attach}.
   */
  providerTap(upstream: TapUpstream): Promise<ProviderTap> {
    const key = JSON.stringify([
      upstream.name,
      upstream.wireApi,
      upstream.baseUrl,
      upstream.envKey,
    ]);
    let tap = this.taps.get(key);
    if (!tap) {
      tap = ProviderTap.start(upstream).then((started) => started.unref());
      tap.catch(() => this.taps.delete(key));
      this.taps.set(key, tap);
    }
    return tap;
  }

  /** Kits created with this runtime and not yet closed, oldest first. */
  openKits<Kit extends TrackedKit = TrackedKit>(): readonly Kit[] {
    return [...this.kits] as Kit[];
  }

  /** @internal A kit was created. */
  kitOpened(kit: TrackedKit): void {
    this.kits.add(kit);
  }

  /** @internal A kit is closing. */
  kitClosed(kit: TrackedKit): void {
    this.kits.delete(kit);
  }

  /** Registers an observer of every kit of this runtime; returns a function that removes it. */
  observe(observer: KitObserver): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  /** @internal Tells every observer; an observer's failure never fails the test's work. */
  notify(event: (observer: KitObserver) => void): void {
    for (const observer of this.observers) {
      try {
        event(observer);
      } catch {
        // Observers report; they must not change what the test sees.
      }
    }
  }

  /**
   * Remembers a secret value the kit handed out (a credential, a secret header), by the
   * name it came from, so everything the run writes or prints can be scrubbed of it.
   * Values shorter than 6 characters are ignored: scrubbing them would hide ordinary words.
   */
  registerSecret(name: string, value: string): void {
    this.scrubber.add(name, value);
  }

  /** Every secret value registered, longest first, with the name it came from. */
  secrets(): SecretValue[] {
    return this.scrubber.secrets();
  }

  /** `text` with every registered secret value replaced by `[redacted: NAME]`. */
  scrub(text: string): string {
    return this.scrubber.scrub(text);
  }

  /**
   * `value` with every registered secret value scrubbed from each string in it, however
   * deep (a harness's raw events carry a provider's error text as it came). Values without
   * a secret come back as they are.
   */
  scrubValue<T>(value: T): T {
    return this.scrubber.scrubValue(value);
  }

  /** The provider for selections that name none, if the run configured one. */
  get provider(): RunProvider | undefined {
    return this.runProvider;
  }

  /** Sets (or, with `undefined`, clears) the run's default provider. */
  setProvider(provider: RunProvider | undefined): void {
    this.runProvider = provider;
  }

  /** The run provider in the first of `dialects` it serves. */
  providerFor(dialects: readonly ProviderDialect[]): ModelProvider | undefined {
    for (const dialect of dialects) {
      const provider = this.runProvider?.source.providerFor(dialect);
      if (provider) return provider;
    }
    return undefined;
  }

  /**
   * Hands this runtime a readiness answer probed elsewhere (the preset's global setup), so
   * sessions with the same readiness key do not probe again.
   */
  primeReadiness(harness: string, key: string, readiness: Readiness): void {
    this.primed.set(`${harness}\u0000${key}`, readiness);
  }

  /** @internal One probe per harness and readiness key; a failed probe is not kept. */
  readiness(
    harness: HarnessDefinition,
    key: string,
    probe: () => Promise<Readiness>,
  ): Promise<Readiness> {
    let probes = this.probes.get(harness);
    if (!probes) this.probes.set(harness, (probes = new Map()));
    let cached = probes.get(key);
    if (!cached) {
      const primed = this.primed.get(`${harness.name}\u0000${key}`);
      // A probe may wait seconds on an agent whose handles are all unref'd: hold the process.
      cached = primed ? Promise.resolve(primed) : keepingAlive(probe());
      probes.set(key, cached);
      cached.catch(() => probes.delete(key));
    }
    return cached;
  }
}

let current: M3Runtime | undefined;

// A warm pool's processes go into the default runtime's process ledger, and their homes
// into its folder ledger, as a kit's own do.
onWarmProcess(({ folder, ...started }) =>
  defaultRuntime().notify((observer) => {
    observer.processStarted?.(started);
    if (folder !== undefined) observer.tempDirCreated?.(folder);
  }),
);

/** The runtime kits use when none is given: the one a test-runner binding installed, else a plain one. */
export function defaultRuntime(): M3Runtime {
  current ??= new M3Runtime();
  return current;
}

/** Makes `runtime` the default for kits created without one (a test-runner binding does this once). */
export function installRuntime(runtime: M3Runtime): void {
  current = runtime;
}

/** A run provider from a single provider: it serves only its own dialect. */
export function singleProvider(provider: ModelProvider): RunProviderSource {
  return { providerFor: (dialect) => (dialect === provider.wireApi ? provider : undefined) };
}
