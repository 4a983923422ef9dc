import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { DirectClient, type DirectClientOptions } from "../direct/direct-client.js";
import { z } from "zod";
import { InvalidArgument, KitClosed } from "../errors.js";
import { checkInput, describeValue, type InputProblem } from "../validation/check-input.js";
import { must, strictFields } from "../validation/rules.js";
import { ManagedProcess, stopIfSame, type ProcessLaunch } from "../processes/managed-process.js";
import {
  resolveServer,
  resolveServers,
  type ResolvedServer,
  type ServerSpec,
} from "../servers/spec.js";
import { parseToolPolicy, type ToolPolicy } from "../servers/tool-policy.js";
import { WireCapture } from "../wire/capture.js";
import { isSecretName } from "../wire/redaction.js";
import type { CapturedServer } from "../wire/captured-server.js";
import type { KitContext, OwnedResource } from "./context.js";
import { defaultRuntime, type M3Runtime } from "../runtime/runtime.js";
import { AgentSelection } from "../agents/agent.js";
import type { AgentServices } from "../agents/services.js";
import { expandSelection, type AgentSelectionInput } from "../agents/selection.js";
import { resolveHarness } from "../agents/registry.js";
import type { HarnessDefinition } from "../harness/contract.js";

/** Options of {@link MCPTestKit}. */
export interface MCPTestKitOptions {
  /**
   * Variables the kit reads its own configuration from (`M3_*`). Defaults to
   * `process.env`; pass `{}` to ignore the ambient environment. Never copied into the
   * environment of a server or a harness.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Where relative paths (a server's `cwd`) resolve. Defaults to `process.cwd()`. */
  readonly cwd?: string;
  /** Milliseconds a stopping process gets between SIGTERM and SIGKILL (default 1500). */
  readonly killGraceMs?: number;
  /** Harness adapters to use, by name, before looking for installed ones. */
  readonly harnesses?: readonly HarnessDefinition[];
  /**
   * The run's shared state and settings (observers, primed readiness, the run's default
   * provider). Defaults to {@link defaultRuntime}: the one the test runner installed.
   */
  readonly runtime?: M3Runtime;
}

const MAX_KILL_GRACE_MS = 60_000;

const kitOption = (problem: InputProblem): InvalidArgument =>
  new InvalidArgument(
    `new MCPTestKit(): option "${problem.field === "" ? "(options)" : problem.field}" ${problem.problem}`,
  );

/** `new MCPTestKit(options)`: a misspelt option must not silently mean the default. */
export const kitOptionsSchema = strictFields(
  {
    env: z
      .record(z.string(), z.string().optional(), {
        error: "must be an object of variables ({} ignores the ambient M3_* variables).",
      })
      .optional(),
    cwd: z.string({ error: "must be a path." }).min(1, { error: "must be a path." }).optional(),
    killGraceMs: z
      .number(must(`a number of milliseconds from 0 to ${MAX_KILL_GRACE_MS}`))
      .min(0, must(`a number of milliseconds from 0 to ${MAX_KILL_GRACE_MS}`))
      .max(MAX_KILL_GRACE_MS, must(`a number of milliseconds from 0 to ${MAX_KILL_GRACE_MS}`))
      .optional(),
    harnesses: z
      .array(z.unknown(), { error: "must be an array of adapters made with defineHarness()." })
      .optional(),
    runtime: z
      .custom<M3Runtime>(
        (value) => typeof value === "object" && value !== null,
        must("an M3Runtime (new M3Runtime({ ... }))"),
      )
      .optional(),
  },
  {
    unknown: "is unknown",
    listed: "the options are",
    notAnObject: () => "must be an object { env, cwd, killGraceMs, harnesses, runtime }.",
  },
);

const agentsOption = (problem: InputProblem): InvalidArgument =>
  new InvalidArgument(`kit.agents(): ${problem.field || "options"} ${problem.problem}`);

const NO_SELECTIONS = {
  error: "kit.agents() needs a non-empty array of selections like { harness, models }.",
};
/** `kit.agents()`'s first argument; each entry is checked by its own schema (selection.ts). */
const selectionListSchema = z.array(z.unknown(), NO_SELECTIONS).min(1, NO_SELECTIONS);

/** `kit.capture()`'s options (each server by its own schema, the allow-list by the policy's). */
export const captureOptionsSchema = strictFields(
  {
    servers: z.array(z.unknown(), must("an array of server specs")),
    tools: z.unknown().optional(),
  },
  {
    unknown: "is not a capture() option",
    listed: "the options are",
    notAnObject: (received) => `must be { servers, tools? }, got ${describeValue(received)}.`,
  },
);

/** `kit.agents()`'s second argument. */
export const agentsOptionsSchema = strictFields(
  { trials: z.int(must("a positive integer")).min(1, must("a positive integer")).optional() },
  { unknown: "is not an agents() option", listed: "the options are" },
);

/** Options of {@link MCPTestKit.agents}. */
export interface AgentsOptions {
  /** Runs of each model (default 1): `trials: 3` gives three selections per model. */
  readonly trials?: number;
}

/** Options of {@link MCPTestKit.capture}. */
export interface CaptureOptions {
  /** The servers to wrap. Names must be unique. */
  readonly servers: readonly ServerSpec[];
  /** Allow-list of `"server:tool"` entries; omitted = all tools, `[]` = none. */
  readonly tools?: readonly string[];
}

/** A child process the kit started and has not yet seen exit. */
export interface OwnedProcess {
  readonly pid: number;
  /** The server (or harness) it runs for. */
  readonly label: string;
  readonly command: string;
}

/**
 * The owner of everything a test starts: servers, clients, temporary directories. Close it
 * (or let `await using` close it) and every process it started is stopped, every temporary
 * directory removed.
 *
 * @example
 * ```ts
 * await using kit = new MCPTestKit({ env: {} });
 * const client = kit.direct({ name: "shipping", command: process.execPath, args: ["server.mjs"] });
 * expect((await client.listTools()).map((tool) => tool.name)).toContain("shipping_quote");
 * ```
 */
export class MCPTestKit implements AsyncDisposable {
  /** The configuration environment (see {@link MCPTestKitOptions.env}). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  private readonly resources = new Set<OwnedResource>();
  private readonly processSet = new Set<ManagedProcess>();
  private readonly tempDirs: string[] = [];
  private readonly captures: WireCapture[] = [];
  private readonly context: KitContext;
  private closing: Promise<void> | undefined;
  private readonly registered = new Map<string, HarnessDefinition>();
  /** The runtime this kit belongs to. */
  readonly runtime: M3Runtime;
  private connections = 0;

  constructor(options: MCPTestKitOptions = {}) {
    checkInput(kitOptionsSchema, options, kitOption);
    for (const harness of options.harnesses ?? []) this.registered.set(harness.name, harness);
    this.runtime = options.runtime ?? defaultRuntime();
    this.runtime.kitOpened(this);
    this.env = options.env ?? process.env;
    this.cwd = resolve(options.cwd ?? process.cwd());
    const killGraceMs = options.killGraceMs ?? 1500;
    this.context = {
      cwd: this.cwd,
      killGraceMs,
      connectionId: (server) => `${server}#${++this.connections}`,
      assertOpen: (what) => this.assertOpen(what),
      registerSecret: (name, value) => this.runtime.registerSecret(name, value),
      directClosed: (client) =>
        this.runtime.notify((observer) => observer.directClientClosed?.(client)),
      own: (resource) => {
        this.resources.add(resource);
        return () => this.resources.delete(resource);
      },
      trackProcess: (child) => {
        this.processSet.add(child);
        // A process that failed to spawn is reported by its owner, not here.
        void child.spawned.then(
          () =>
            this.runtime.notify((observer) =>
              observer.processStarted?.({
                pid: child.pid as number,
                label: child.launch.label,
                command: child.launch.command,
              }),
            ),
          () => undefined,
        );
        void child.exited.then(() => this.processSet.delete(child));
      },
    };
  }

  /** True once {@link MCPTestKit.close} has been called. */
  get closed(): boolean {
    return this.closing !== undefined;
  }

  /** The child processes the kit started that are still running. */
  get processes(): readonly OwnedProcess[] {
    return [...this.processSet]
      .filter((child) => child.pid !== undefined && child.exitInfo === undefined)
      .map((child) => ({
        pid: child.pid as number,
        label: child.launch.label,
        command: child.launch.command,
      }));
  }

  /**
   * A recorded MCP client for `server`, for tests without an agent. The spec is checked
   * now; the server starts on the client's first call.
   *
   * @throws {@link InvalidServerSpec} when the spec is wrong, before anything starts.
   */
  direct(server: ServerSpec, options?: DirectClientOptions): DirectClient {
    this.assertOpen("kit.direct()");
    return new DirectClient(resolveServer(server, this.cwd), this.context, options);
  }

  /**
   * Expands agent selections into one {@link AgentSelection} per model (× trials). Nothing
   * is started: every problem (an unknown key, an unknown harness, an empty model list, a
   * credential source variable that is not set) is an error here.
   *
   * @example
   * ```ts
   * const [agent] = kit.agents([{ harness: "codex", models: ["gpt-5.5"] }]);
   * ```
   */
  agents(
    selections: readonly AgentSelectionInput[],
    options: AgentsOptions = {},
  ): AgentSelection[] {
    this.assertOpen("kit.agents()");
    checkInput(selectionListSchema, selections, (problem) => new InvalidArgument(problem.problem));
    const trials = checkInput(agentsOptionsSchema, options, agentsOption).trials ?? 1;
    const services: AgentServices = {
      config: this.env,
      parentEnv: process.env,
      cwd: this.cwd,
      runtime: this.runtime,
      assertOpen: (what) => this.assertOpen(what),
      capture: (servers, policy) => this.captureResolved(servers, policy),
      tempDir: (prefix) => this.tempDir(prefix),
      spawn: (launch) => this.spawn(launch),
      own: (resource) => this.context.own(resource),
    };
    return selections.flatMap((input, index) => {
      const { specs, harness } = expandSelection(
        input,
        index,
        process.env,
        (name) => resolveHarness(name, this.registered, this.env, this.cwd),
        (dialects) => this.runtime.providerFor(dialects),
      );
      return specs.flatMap((spec) =>
        Array.from(
          { length: trials },
          (_, trial) => new AgentSelection(spec, harness, trial + 1, services),
        ),
      );
    });
  }

  /**
   * Wraps servers for wire capture: each stdio server becomes a relay command and each
   * HTTP server a loopback proxy URL, to hand to a harness (or any MCP client). Everything
   * that crosses them is recorded in the capture's trace; tools outside `tools` are
   * refused before they reach the server.
   *
   * Specs and the allow-list are checked before anything starts.
   *
   * @throws {@link InvalidServerSpec} for a bad or duplicate server.
   * @throws {@link InvalidToolPolicy} for a malformed entry or one naming an unbound server.
   */
  async capture(
    options: CaptureOptions,
  ): Promise<{ capture: WireCapture; servers: CapturedServer[] }> {
    this.assertOpen("kit.capture()");
    checkInput(
      captureOptionsSchema,
      options,
      (problem) =>
        new InvalidArgument(`kit.capture(): ${problem.field || "options"} ${problem.problem}`),
    );
    const servers = resolveServers(options.servers, this.cwd);
    const policy = parseToolPolicy(
      options.tools,
      servers.map((server) => server.name),
    );
    return this.captureResolved(servers, policy);
  }

  /** Wraps servers that are already resolved and checked (a session resolved them once). */
  private async captureResolved(
    resolved: readonly ResolvedServer[],
    policy: ToolPolicy,
  ): Promise<{ capture: WireCapture; servers: CapturedServer[] }> {
    this.assertOpen("kit.capture()");
    const capture = await WireCapture.open(await this.tempDir("m3-wire-"), policy, {
      processStarted: (started) =>
        this.runtime.notify((observer) => observer.processStarted?.(started)),
    });
    this.captures.push(capture);
    for (const server of resolved) {
      if (server.kind !== "http") continue;
      for (const [name, value] of Object.entries(server.headers)) {
        if (isSecretName(name)) this.runtime.registerSecret(`${server.name} header ${name}`, value);
      }
    }
    const servers: CapturedServer[] = [];
    for (const server of resolved) servers.push(await capture.wrap(server));
    return { capture, servers };
  }

  /**
   * Starts a child process the kit owns: in its own process group, its stderr kept for
   * error messages, and stopped (SIGTERM, then SIGKILL) when the kit closes. The
   * environment is used exactly as given.
   */
  spawn(launch: ProcessLaunch): ManagedProcess {
    this.assertOpen("kit.spawn()");
    const child = new ManagedProcess(launch);
    this.context.trackProcess(child);
    return child;
  }

  /** A fresh temporary directory, removed when the kit closes. */
  async tempDir(prefix = "m3-"): Promise<string> {
    this.assertOpen("kit.tempDir()");
    const dir = await mkdtemp(join(tmpdir(), prefix));
    this.tempDirs.push(dir);
    this.runtime.notify((observer) => observer.tempDirCreated?.(dir));
    return dir;
  }

  /**
   * Closes every client, stops every process (SIGTERM, then SIGKILL after the grace
   * period) and removes every temporary directory. Idempotent: later calls wait for the
   * first.
   */
  close(): Promise<void> {
    this.runtime.kitClosed(this);
    this.closing ??= this.closeAll();
    return this.closing;
  }

  /** Same as {@link MCPTestKit.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  private assertOpen(what: string): void {
    if (this.closing) throw new KitClosed(what);
  }

  private async closeAll(): Promise<void> {
    const failures: unknown[] = [];
    const settle = async (work: Promise<unknown>): Promise<void> => {
      await work.catch((error: unknown) => failures.push(error));
    };
    await Promise.all([...this.resources].reverse().map((resource) => settle(resource.close())));
    await Promise.all(
      [...this.processSet].map((child) => settle(child.stop(this.context.killGraceMs))),
    );
    await Promise.all(this.captures.map((capture) => settle(capture.close())));
    // Relays are started by harnesses; one that outlived its harness goes now.
    await settle(
      stopIfSame(
        this.captures.flatMap((capture) => capture.processes),
        this.context.killGraceMs,
      ),
    );
    await Promise.all(
      this.tempDirs.map((dir) => settle(rm(dir, { recursive: true, force: true }))),
    );
    if (failures.length > 0) {
      throw new AggregateError(
        failures,
        `MCPTestKit.close(): ${failures.length} resource(s) failed to close`,
      );
    }
  }
}
