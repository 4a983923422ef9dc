import { errorMessage, SlotSession, TurnSlot, within } from "@jest-m3/core/adapter-kit";
import {
  isToolAllowed,
  type AdapterTurn,
  type AdapterTurnRequest,
  type HarnessLaunch,
  type HarnessSession,
} from "@jest-m3/core/harness";
import type { AcpClient, StdoutProblem, StopSignal } from "./acp-client.js";
import { answerPermission } from "./approvals.js";
import { AcpRpcError, AgentExited } from "./errors.js";
import type { AcpProfile } from "./profiles/profile.js";
import type {
  RequestPermissionRequest,
  RequestPermissionResponse,
  StopReason,
} from "./protocol.js";
import type { SessionTools } from "./reported-calls.js";
import { TurnCollector } from "./turn.js";
import { leaveWarmSession, type WarmLease } from "./warm-pool.js";

/**
 * How long the agent gets to do what it was asked: a cancelled turn waits this long for its
 * confirmation before it ends anyway, `close()` for its exit before signals.
 */
const GRACE_MS = 2000;

/**
 * One ACP session in one agent process: every `send()` is a `session/prompt` on the same
 * session id, one at a time (the kit's turn slot). Permission requests are answered from
 * the session's allow-list and recorded; the updates become the turn's response text and
 * reported tool calls.
 */
export class AcpSession extends SlotSession<TurnCollector> implements HarnessSession {
  private readonly stops: (() => void)[] = [];
  protected readonly slot: TurnSlot<TurnCollector>;
  private readonly tools: SessionTools;
  /** The last turn's `session/prompt`, settled once the agent answered it (or died). */
  private prompted: Promise<void> = Promise.resolve();

  /** @internal Made by {@link openAcpSession}. */
  constructor(
    protected readonly client: AcpClient,
    private readonly launch: HarnessLaunch,
    private readonly profile: Pick<AcpProfile, "agent" | "identify" | "turnFailure">,
    private readonly stopWith: StopSignal,
    /** The ACP session id. */
    readonly id: string,
    /** The root of the agent's home (for the profile's {@link AcpProfile.turnFailure}). */
    private readonly homeRoot: string,
    /** Set when the agent is a warm one shared with other sessions. */
    private readonly lease?: WarmLease,
  ) {
    super();
    this.tools = {
      servers: launch.servers.map((server) => server.name),
      policy: launch.toolPolicy,
    };
    this.slot = new TurnSlot<TurnCollector>({
      names: { agent: profile.agent },
      agent: client.agent,
      // A shared agent's stderr holds other sessions' lines: none of it for this one.
      stderrTail: () => (lease ? "" : client.agent.stderrTail()),
      interrupt: () => client.notify("session/cancel", { sessionId: id }),
      graceMs: GRACE_MS,
    });
    this.stops.push(
      // On a shared agent, only this session's updates and requests reach these handlers.
      client.handle(
        {
          onUpdate: (notification) => this.slot.current?.accept(notification),
          onPermission: (request) => this.answerPermission(request),
          onRefused: (method) => this.refused(method),
        },
        lease ? id : undefined,
      ),
      client.onProblem((problem) => this.brokeProtocol(problem)),
    );
  }

  /** A request the harness does not serve was refused: recorded, and noted on the turn. */
  private refused(method: string): void {
    this.launch.record({
      kind: "harness",
      detail: `refused ${method}: the harness serves no files, terminals or questions`,
    });
    this.slot.current?.note({ refused: method });
  }

  /** The agent wrote a line that is no ACP message: recorded, and the running turn fails. */
  private brokeProtocol(problem: StdoutProblem): void {
    const what =
      problem.kind === "too_long"
        ? `a line longer than the transport takes (${problem.line.slice(0, 80)}...)`
        : `a line that is not an ACP message: ${JSON.stringify(problem.line.slice(0, 200))}`;
    this.launch.record({ kind: "harness", detail: `${this.profile.agent} wrote ${what}` });
    this.slot.current?.finish(
      "failed",
      `${this.profile.agent} broke the protocol: it wrote ${what}`,
    );
  }

  /**
   * Sends one user turn (`session/prompt`) and resolves when the agent answers it, when the
   * turn's signal aborts (after `session/cancel`, with outcome `interrupted`), or when the
   * agent dies or breaks the protocol (outcome `failed`).
   */
  send(request: AdapterTurnRequest): Promise<AdapterTurn> {
    const agent = this.profile.agent;
    const turn = new TurnCollector(
      this.id,
      agent,
      (call) => this.profile.identify(call, this.tools),
      (identity) => isToolAllowed(this.launch.toolPolicy, identity.server, identity.tool),
    );
    return this.slot.run(request, turn, () => {
      const prompt = this.client.call("session/prompt", {
        sessionId: this.id,
        prompt: [{ type: "text", text: request.text }],
      });
      this.prompted = prompt.then(
        () => undefined,
        () => undefined,
      );
      prompt.then(
        (answer) => this.onStop(turn, answer.stopReason),
        (error: unknown) => {
          if (error instanceof AgentExited) {
            turn.finish("failed", this.slot.exitedWords(error));
          } else if (error instanceof AcpRpcError) {
            const cancelled = this.slot.interruptRequested(turn);
            turn.finish(cancelled ? "interrupted" : "failed", error.message);
          } else {
            turn.finish("failed", `${agent} failed the turn: ${errorMessage(error)}`);
          }
        },
      );
    });
  }

  /** Cancels the running turn (`session/cancel`), if there is one, and waits for its end. */
  override interrupt(): Promise<void> {
    const turn = this.slot.current;
    void this.slot.interrupt();
    return turn ? turn.done.then(() => undefined) : Promise.resolve();
  }

  /**
   * Ends the session: stops the agent the way it needs (SIGTERM for Gemini CLI, closing
   * stdin for OpenCode), waits briefly, then stops its process group. On a warm agent the
   * process stays: a running turn is cancelled, the ACP session closed (`session/close`,
   * where the agent offers it) and its MCP servers stopped. Idempotent.
   */
  close(): Promise<void> {
    return this.slot.shutdown(async (midTurn) => {
      const lease = this.lease;
      if (!lease) {
        await this.client.end(this.stopWith, GRACE_MS);
        return;
      }
      if (midTurn) this.client.notify("session/cancel", { sessionId: this.id });
      for (const stop of this.stops.splice(0)) stop();
      // An agent that never answered the last prompt, even cancelled (hung, stopped), serves
      // no later session: the pool stops it.
      const answered = await within(
        this.prompted.then(() => true),
        GRACE_MS,
        () => false,
      );
      await leaveWarmSession(this.client, lease, this.id, this.launch, answered);
    });
  }

  private onStop(turn: TurnCollector, reason: StopReason): void {
    switch (reason) {
      case "end_turn":
        if (!this.profile.turnFailure) {
          turn.finish("completed", null);
          return;
        }
        void this.profile
          .turnFailure({ sessionId: this.id, homeRoot: this.homeRoot, chunks: turn.chunks })
          .then(
            (failure) =>
              failure === undefined
                ? turn.finish("completed", null)
                : turn.finish("failed", failure),
            (error: unknown) =>
              turn.finish(
                "failed",
                `${this.profile.agent} ended the turn, but its outcome could not be read: ${errorMessage(error)}`,
              ),
          );
        return;
      case "cancelled":
        turn.finish("interrupted", `${this.profile.agent} cancelled the turn (session/cancel).`);
        return;
      default:
        turn.finish("failed", `${this.profile.agent} stopped the turn early: ${reason}`);
    }
  }

  private answerPermission(request: RequestPermissionRequest): RequestPermissionResponse {
    const call = request.toolCall;
    const identity = this.profile.identify(call, this.tools);
    const answer = answerPermission(request, identity, this.launch.toolPolicy);
    this.launch.record({ kind: "approval", detail: answer.detail });
    const turn = this.slot.current;
    turn?.permission(call, identity, !answer.allowed, answer.arguments);
    turn?.note({
      permission: {
        toolCallId: call.toolCallId,
        title: call.title ?? call.toolCallId,
        allowed: answer.allowed,
        option: answer.optionId,
      },
    });
    return answer.response;
  }
}
