import { M3Error, stderrSection } from "../errors.js";
import type { Trace } from "../evidence/trace.js";
import {
  HarnessStartError,
  type HarnessLaunch,
  type HarnessSession,
  type ModelProvider,
} from "../harness/contract.js";
import { childEnvironment } from "../processes/managed-process.js";
import type { ToolPolicy } from "../servers/tool-policy.js";
import type { WireCapture } from "../wire/capture.js";
import type { CapturedServer } from "../wire/captured-server.js";
import type { AgentServices, SessionAgent } from "./services.js";

/** The harness could not open within the session's timeout. */
export class HarnessOpenTimeout extends M3Error {
  override readonly code = "M3_HARNESS_OPEN_TIMEOUT";
  override readonly retryable = true;
  constructor(timeoutMs: number) {
    super(`The harness did not open a session within ${timeoutMs} ms (the session's timeout).`);
  }
}

/**
 * The harness's environment: the allow-listed parent variables (PATH, locale, temp dir)
 * plus the selection's credentials, mapped by name. Never the parent's whole environment.
 */
export function harnessEnvironment(
  agent: SessionAgent,
  parentEnv: Readonly<Record<string, string | undefined>>,
  onSecret?: (name: string, value: string) => void,
): Record<string, string> {
  const env = childEnvironment();
  for (const [child, parent] of Object.entries(agent.spec.credentialEnv)) {
    const value = parentEnv[parent];
    if (value !== undefined) {
      env[child] = value;
      onSecret?.(parent, value);
    }
  }
  return env;
}

/** Everything an adapter gets to open one session. */
export async function buildLaunch(
  agent: SessionAgent,
  services: AgentServices,
  session: {
    readonly servers: readonly CapturedServer[];
    readonly policy: ToolPolicy;
    readonly capture: WireCapture;
    readonly signal: AbortSignal;
    /** The agent's working directory (the session's workspace, or an empty temp folder). */
    readonly workspace: string;
    /** The kind of the session's workspace, when the test gave one. */
    readonly workspaceKind?: HarnessLaunch["workspaceKind"];
    /** The provider to hand the harness (the provider tap's), else the selection's. */
    readonly provider?: ModelProvider;
  },
): Promise<HarnessLaunch> {
  const provider = session.provider ?? agent.spec.provider;
  return {
    model: agent.spec.model,
    selection: agent.spec,
    config: services.config,
    servers: session.servers,
    toolPolicy: session.policy,
    workspace: session.workspace,
    ...(session.workspaceKind ? { workspaceKind: session.workspaceKind } : {}),
    env: harnessEnvironment(agent, services.parentEnv, (name, value) =>
      services.runtime.registerSecret(name, value),
    ),
    credentials: Object.keys(agent.spec.credentialEnv),
    ...(provider ? { provider } : {}),
    signal: session.signal,
    tempDir: (prefix) => services.tempDir(prefix),
    spawn: (launch) => services.spawn(launch),
    record: (event) => session.capture.recordEvent(event.kind, event.detail),
  };
}

/**
 * Waits for the adapter's `open()` at most `timeoutMs`. A session that opens too late is
 * closed as soon as it arrives, so no harness outlives the failed start.
 *
 * @throws {@link HarnessOpenTimeout} when the budget runs out.
 */
export async function openWithin(
  opening: Promise<HarnessSession>,
  timeoutMs: number,
): Promise<HarnessSession> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
    timer.unref();
  });
  try {
    const first = await Promise.race([opening, timedOut]);
    if (first !== "timeout") return first;
  } finally {
    clearTimeout(timer);
  }
  void opening.then((late) => late.close()).catch(() => undefined);
  throw new HarnessOpenTimeout(timeoutMs);
}

/**
 * A harness that failed to start because a server did not start usually cannot say why;
 * the relay recorded the server's own stderr, so the error carries it.
 */
export function withServerStderr(error: unknown, trace: Trace | undefined): unknown {
  if (!(error instanceof HarnessStartError) || !trace) return error;
  const stderr = new Map<string, string>();
  for (const event of trace.events) {
    if (event.kind === "stderr")
      stderr.set(event.server, (stderr.get(event.server) ?? "") + event.detail);
  }
  if (stderr.size === 0) return error;
  const sections = [...stderr].map(([server, text]) =>
    stderrSection(
      text.trimEnd().split("\n").slice(-20).join("\n"),
      `server "${server}"`,
    ).trimStart(),
  );
  // The message holds the adapter's problem and then its own stderr tail; rebuilt, the
  // tail is added back once, after the servers' stderr.
  const prefix = `Harness "${error.harness}" could not open a session: `;
  const ownTail = stderrSection(error.stderrTail);
  let problem = error.message.startsWith(prefix)
    ? error.message.slice(prefix.length)
    : error.message;
  if (ownTail !== "" && problem.endsWith(ownTail)) problem = problem.slice(0, -ownTail.length);
  return new HarnessStartError(error.harness, `${problem}\n${sections.join("\n")}`, {
    stderrTail: error.stderrTail,
    cause: error,
  });
}
