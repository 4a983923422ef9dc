import { launchable, openCold, openWarmLease, startOrUndo } from "@jest-m3/core/adapter-kit";
import { HarnessStartError, type HarnessLaunch } from "@jest-m3/core/harness";
import { AcpClient } from "./acp-client.js";
import { sessionMcpServers } from "./config.js";
import { createAgentHome } from "./home.js";
import type { ResolvedCommonOptions } from "./options.js";
import {
  resolveExecutable,
  type AcpProfile,
  type FoundExecutable,
  type SessionContext,
} from "./profiles/profile.js";
import type { NewSessionResponse } from "./protocol.js";
import { checkInitialize, initializeAgent, type InitializeCheck } from "./readiness.js";
import { AcpSession } from "./session.js";
import { assertDistinctToolNames } from "./tool-names.js";
import { acquireWarmAgent, leaveWarmSession, type WarmLease } from "./warm-pool.js";

/**
 * `session/new` in the launch's workspace with its captured MCP servers, once the agent's
 * `initialize` answer says it takes them (HTTP servers need `mcpCapabilities.http`).
 */
async function newSession(
  harness: string,
  client: AcpClient,
  check: InitializeCheck,
  launch: HarnessLaunch,
  wait: { timeoutMs: number; signal: AbortSignal },
): Promise<NewSessionResponse & { sessionId: string }> {
  const http = launch.servers.filter((server) => server.kind === "http");
  if (http.length > 0 && check.mcpHttp.status !== "ready") {
    throw new HarnessStartError(
      harness,
      `${check.mcpHttp.reason ?? ""} (HTTP servers: ${http.map((server) => server.name).join(", ")})`,
    );
  }
  const session = await client.call(
    "session/new",
    { cwd: launch.workspace, mcpServers: sessionMcpServers(launch.servers) },
    wait,
  );
  if (typeof session.sessionId !== "string" || session.sessionId === "") {
    throw new HarnessStartError(
      harness,
      `session/new answered without a session id: ${JSON.stringify(session).slice(0, 300)}`,
    );
  }
  return session;
}

/**
 * What is refused before anything starts: no executable (or no runtime for it), no
 * credentials, tool names the agent would merge. Returns the executable to start.
 */
async function startable<O extends ResolvedCommonOptions>(
  profile: AcpProfile<O>,
  launch: HarnessLaunch,
  options: O,
): Promise<FoundExecutable> {
  const { executable } = await resolveExecutable(profile, launch.selection, launch.config, options);
  const { provider, credentials, model } = launch;
  const found = launchable(
    profile.name,
    executable,
    profile.credentials(provider, credentials, model, options),
  );
  if (profile.naming) {
    assertDistinctToolNames(
      profile.naming,
      launch.servers.map((server) => server.name),
      launch.toolPolicy,
      options.exposeDisallowedTools,
    );
  }
  return found;
}

/**
 * `session/new`, then what the profile does next (pick the model): the session. On a warm
 * agent, `warm.opened` gets the session id as soon as there is one (to leave it on failure).
 */
async function startSession<O extends ResolvedCommonOptions>(
  profile: AcpProfile<O>,
  context: Omit<SessionContext<O>, "session">,
  check: InitializeCheck,
  homeRoot: string,
  warm?: { readonly lease: WarmLease; readonly opened: { sessionId?: string } },
): Promise<AcpSession> {
  const { launch, options, client } = context;
  const wait = { timeoutMs: options.startupTimeoutMs, signal: launch.signal };
  const session = await newSession(profile.name, client, check, launch, wait);
  if (warm) warm.opened.sessionId = session.sessionId;
  await profile.afterSessionNew?.({ ...context, session });
  const stop = profile.stop(options);
  return new AcpSession(client, launch, profile, stop, session.sessionId, homeRoot, warm?.lease);
}

/**
 * Opens a session of `profile`'s agent: one process in a fresh HOME, XDG folders and
 * TMPDIR, `initialize`, then `session/new` in the launch's workspace with the captured MCP
 * servers, then whatever the profile does next (pick the model).
 *
 * @throws {@link HarnessStartError} with the agent's words and its stderr tail.
 */
export function openAcpSession<O extends ResolvedCommonOptions>(
  profile: AcpProfile<O>,
): (launch: HarnessLaunch) => Promise<AcpSession> {
  return async (launch) => {
    const agent = profile.agent;
    const options = profile.resolveOptions(launch.selection.options);
    const executable = await startable(profile, launch, options);
    if (options.warm) return openWarmSession(profile, launch, options, executable);
    return openCold({
      harness: profile.name,
      names: { agent },
      launch,
      prefix: `m3-${profile.name}-`,
      plan: async (root) => {
        const home = await createAgentHome(root);
        const { args, env } = await profile.plan({ launch, home, options, executable });
        const label = `${agent} (${profile.name})`;
        const command = { command: executable.command, args: [...executable.prefix, ...args] };
        return { home, process: { label, ...command, env, cwd: launch.workspace } };
      },
      client: (child) => new AcpClient(agent, child),
      start: async (client, { home }) => {
        const wait = { timeoutMs: options.startupTimeoutMs, signal: launch.signal };
        const check = await initializeAgent(client, wait);
        for (const capability of [check.acp, check.mcpStdio]) {
          if (capability.status !== "ready")
            throw new HarnessStartError(profile.name, capability.reason ?? "");
        }
        return startSession(profile, { launch, options, client }, check, home.root);
      },
      close: (client) => client.end(profile.stop(options), 300),
    });
  };
}

/**
 * Opens a session on a warm agent (`options: { warm: true }`): its own ACP session, with
 * its own workspace and MCP servers, in an agent process shared only with sessions whose
 * plan (executable, arguments, environment, home files) is the same (see warm-pool.ts). The
 * plan goes into a home the pool then owns (the kit's warm opening).
 */
async function openWarmSession<O extends ResolvedCommonOptions>(
  profile: AcpProfile<O>,
  launch: HarnessLaunch,
  options: O,
  executable: FoundExecutable,
): Promise<AcpSession> {
  const agent = profile.agent;
  const lease = await openWarmLease({
    harness: profile.name,
    names: { agent },
    signal: launch.signal,
    prefix: `m3-${profile.name}-warm-`,
    plan: async (root) => {
      const home = await createAgentHome(root);
      const plan = await profile.plan({ launch, home, options, executable });
      return {
        agent,
        harness: profile.name,
        command: executable.command,
        args: [...executable.prefix, ...plan.args],
        env: plan.env,
        root,
        stop: profile.stop(options),
        ...(profile.warmSessions === undefined ? {} : { maxSessions: profile.warmSessions }),
        timeoutMs: options.startupTimeoutMs,
      };
    },
    acquire: acquireWarmAgent,
  });
  const { client, initialize } = lease.client;
  launch.record({
    kind: "harness",
    detail: `${lease.started ? "started a warm" : "reused the warm"} ${agent} (pid ${client.process.pid ?? "unknown"})`,
  });
  const opened: { sessionId?: string } = {};
  const check = checkInitialize(agent, initialize!);
  return startOrUndo(
    profile.name,
    () => startSession(profile, { launch, options, client }, check, lease.root, { lease, opened }),
    {
      names: { agent },
      signal: launch.signal,
      // Another session's lines may be in the shared stderr: none of it goes into this error.
      stderrTail: () => "",
      undo: () => leaveWarmSession(client, lease, opened.sessionId, launch),
    },
  );
}
