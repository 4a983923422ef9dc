import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { errorMessage, startFailure, tornDown } from "@jest-m3/core/adapter-kit";
import { HarnessStartError, type HarnessLaunch } from "@jest-m3/core/harness";
import { AcpClient } from "./acp-client.js";
import { sessionMcpServers } from "./config.js";
import { createAgentHome, type AgentHome } from "./home.js";
import type { ResolvedCommonOptions } from "./options.js";
import type { AcpProfile, FoundExecutable } from "./profiles/profile.js";
import type { NewSessionResponse } from "./protocol.js";
import { checkInitialize, INITIALIZE_PARAMS, type InitializeCheck } from "./readiness.js";
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
  const session = await client.request(
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
    const lookup = profile.executable(launch.selection, launch.config, options);
    if (!lookup.found) throw new HarnessStartError(profile.name, lookup.reason);
    const runtime = await profile.runtime?.(lookup, launch.config, options);
    const executable = runtime ? runtime.executable : lookup;
    if (!executable.found) throw new HarnessStartError(profile.name, executable.reason);
    const credentials = profile.credentials(
      launch.provider,
      launch.credentials,
      launch.model,
      options,
    );
    if (credentials.status !== "ready") {
      throw new HarnessStartError(profile.name, credentials.reason ?? "no credentials");
    }
    if (profile.naming) {
      assertDistinctToolNames(
        profile.naming,
        launch.servers.map((server) => server.name),
        launch.toolPolicy,
        options.exposeDisallowedTools,
      );
    }
    if (options.warm) return openWarmSession(profile, launch, options, executable);
    const home = await createAgentHome(await launch.tempDir(`m3-${profile.name}-`));
    const plan = await profile.plan({ launch, home, options, executable });
    if (launch.signal.aborted) {
      throw new HarnessStartError(
        profile.name,
        `the session was torn down before ${agent} started`,
      );
    }
    const child = launch.spawn({
      label: `${agent} (${profile.name})`,
      command: executable.command,
      args: [...executable.prefix, ...plan.args],
      env: plan.env,
      cwd: launch.workspace,
    });
    const client = new AcpClient(agent, child);
    const wait = { timeoutMs: options.startupTimeoutMs, signal: launch.signal };
    try {
      await child.spawned;
      await client.connect();
      const answer = await client.request("initialize", INITIALIZE_PARAMS, wait);
      const check = checkInitialize(agent, answer);
      for (const capability of [check.acp, check.mcpStdio]) {
        if (capability.status !== "ready")
          throw new HarnessStartError(profile.name, capability.reason ?? "");
      }
      const session = await newSession(profile.name, client, check, launch, wait);
      await profile.afterSessionNew?.({ launch, options, client, session });
      return new AcpSession(
        client,
        launch,
        profile,
        profile.stop(options),
        session.sessionId,
        home.root,
      );
    } catch (error) {
      const failure = startFailure(profile.name, error, {
        names: { agent },
        stderrTail: client.stderrTail(),
        aborted: launch.signal.aborted,
      });
      await client.close(profile.stop(options), 300);
      throw failure;
    }
  };
}

/**
 * Opens a session on a warm agent (`options: { warm: true }`): its own ACP session, with
 * its own workspace and MCP servers, in an agent process shared only with sessions whose
 * plan (executable, arguments, environment, home files) is the same (see warm-pool.ts).
 */
async function openWarmSession<O extends ResolvedCommonOptions>(
  profile: AcpProfile<O>,
  launch: HarnessLaunch,
  options: O,
  executable: FoundExecutable,
): Promise<AcpSession> {
  const agent = profile.agent;
  // The pool owns the home (it outlives this session), so it is not one of the kit's folders.
  const root = await mkdtemp(join(tmpdir(), `m3-${profile.name}-warm-`));
  let home: AgentHome;
  let plan: Awaited<ReturnType<typeof profile.plan>>;
  try {
    home = await createAgentHome(root);
    plan = await profile.plan({ launch, home, options, executable });
    if (launch.signal.aborted) {
      throw new HarnessStartError(
        profile.name,
        `the session was torn down before ${agent} started`,
      );
    }
  } catch (error) {
    // Not handed to the pool yet: the folder is still this session's to remove.
    await rm(root, { recursive: true, force: true });
    throw error;
  }
  let lease: WarmLease;
  try {
    lease = await acquireWarmAgent(
      {
        agent,
        harness: profile.name,
        command: executable.command,
        args: [...executable.prefix, ...plan.args],
        env: plan.env,
        home,
        stop: profile.stop(options),
      },
      options.startupTimeoutMs,
    );
  } catch (error) {
    throw new HarnessStartError(
      profile.name,
      `the warm ${agent} did not start: ${errorMessage(error)}`,
      {
        cause: error,
      },
    );
  }
  const client = lease.client;
  launch.record({
    kind: "harness",
    detail: `${lease.started ? "started a warm" : "reused the warm"} ${agent} (pid ${client.process.pid ?? "unknown"})`,
  });
  const wait = { timeoutMs: options.startupTimeoutMs, signal: launch.signal };
  let sessionId: string | undefined;
  try {
    const check = checkInitialize(agent, lease.initialize);
    const session = await newSession(profile.name, client, check, launch, wait);
    sessionId = session.sessionId;
    await profile.afterSessionNew?.({ launch, options, client, session });
    return new AcpSession(
      client,
      launch,
      profile,
      profile.stop(options),
      sessionId,
      lease.homeRoot,
      lease,
    );
  } catch (error) {
    // Another session's lines may be in the shared stderr: none of it goes into this error.
    const failure =
      error instanceof HarnessStartError
        ? error
        : new HarnessStartError(
            profile.name,
            launch.signal.aborted ? tornDown({ agent }) : errorMessage(error),
            { cause: error },
          );
    await leaveWarmSession(client, lease, sessionId, launch);
    throw failure;
  }
}
