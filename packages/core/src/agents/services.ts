import type { HarnessDefinition, Readiness, SelectionSpec } from "../harness/contract.js";
import type { OwnedResource } from "../kit/context.js";
import type { ManagedProcess, ProcessLaunch } from "../processes/managed-process.js";
import type { M3Runtime } from "../runtime/runtime.js";
import type { ResolvedServer } from "../servers/spec.js";
import type { ToolPolicy } from "../servers/tool-policy.js";
import type { WireCapture } from "../wire/capture.js";
import type { CapturedServer } from "../wire/captured-server.js";

/** @internal What a selection (and its sessions) need from their kit. */
export interface AgentServices {
  readonly config: Readonly<Record<string, string | undefined>>;
  readonly parentEnv: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly runtime: M3Runtime;
  assertOpen(what: string): void;
  /** Wraps servers the session already resolved, under the session's policy. */
  capture(
    servers: readonly ResolvedServer[],
    policy: ToolPolicy,
  ): Promise<{ capture: WireCapture; servers: CapturedServer[] }>;
  tempDir(prefix: string): Promise<string>;
  spawn(launch: ProcessLaunch): ManagedProcess;
  own(resource: OwnedResource): () => void;
}

/** @internal What a session needs of its agent selection. */
export interface SessionAgent {
  readonly spec: SelectionSpec;
  readonly harness: HarnessDefinition;
  readiness(): Promise<Readiness>;
}
