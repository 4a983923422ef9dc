import { errorMessage, INTERRUPT_GRACE_MS, SlotSession, TurnSlot } from "@jest-m3/core/adapter-kit";
import type {
  AdapterTurn,
  AdapterTurnRequest,
  HarnessLaunch,
  HarnessSession,
} from "@jest-m3/core/harness";
import { answerElicitation, permission } from "./approvals.js";
import { CLAUDE_NAMES } from "./errors.js";
import type { ResolvedClaudeCodeOptions } from "./options.js";
import type {
  CanUseToolRequest,
  ElicitationControlRequest,
  HostControlRequest,
  Json,
  ResultMessage,
  StreamMessage,
} from "./protocol.js";
import type { StreamJsonClient } from "./stream-json-client.js";
import { TurnCollector } from "./turn.js";
import { endConversation, type WarmLease } from "./warm-pool.js";

/** How long `close()` waits for Claude Code to exit after its stdin closed, before signals. */
const CLOSE_GRACE_MS = 1500;

/**
 * One Claude Code conversation in one long-lived `claude --print` process: every `send()`
 * is a user message on its stdin, the turn ends at Claude Code's `result`. Permission
 * prompts are answered from the session's allow-list and recorded.
 */
export class ClaudeCodeSession extends SlotSession<TurnCollector> implements HarnessSession {
  protected readonly slot: TurnSlot<TurnCollector>;
  private readonly servers: readonly string[];
  private readonly detach: (() => void)[] = [];
  private readonly answered = new Set<string>();

  /** @internal Made by {@link openClaudeCodeSession}. */
  constructor(
    protected readonly client: StreamJsonClient,
    private readonly launch: HarnessLaunch,
    private sessionId: string,
    private readonly options: ResolvedClaudeCodeOptions,
    /** Set when the process is a warm one, handed on to the next session at close. */
    private readonly lease?: WarmLease,
  ) {
    super();
    this.servers = launch.servers.map((server) => server.name);
    this.slot = new TurnSlot<TurnCollector>({
      names: CLAUDE_NAMES,
      agent: client.agent,
      stderrTail: () => client.agent.stderrTail(),
      // interrupt() is an `interrupt` control request; the kit's grace: how long Claude Code
      // has to confirm it.
      interrupt: async (turn) => {
        turn.interruptRequested = true;
        await client
          .control({ subtype: "interrupt" }, { timeoutMs: INTERRUPT_GRACE_MS })
          .catch(() => undefined);
        await turn.done;
      },
    });
    this.detach.push(client.onStreamMessage((streamMessage) => this.onMessage(streamMessage)));
    client.handleHostRequests((request) => this.onHostRequest(request));
    this.detach.push(() => client.handleHostRequests(undefined));
  }

  /**
   * The Claude Code session id: given with `--session-id`, or on a warm process the one
   * Claude Code reports for this session's conversation (empty before the first turn).
   */
  get id(): string {
    return this.sessionId;
  }

  /**
   * Sends one user turn and resolves at Claude Code's `result`, when the turn's signal
   * aborts (after an `interrupt` control request, with outcome `interrupted`), or when the
   * process dies (outcome `failed`, with its stderr tail).
   */
  send(request: AdapterTurnRequest): Promise<AdapterTurn> {
    const turn = new TurnCollector(this.servers, this.launch.toolPolicy);
    return this.slot.run(request, turn, () => {
      if (!this.client.sendUser(request.text)) {
        turn.finish("failed", this.slot.withTail("Claude Code's stdin is closed"));
      }
    });
  }

  /**
   * Ends the session: closes Claude Code's stdin (it exits and stops its MCP servers), waits
   * briefly, then stops the process group. On a warm process, removes the session's MCP
   * servers (they stop), its deny rules and its conversation instead, and hands the
   * process back; a process left mid-turn, or that does not confirm every step, is stopped.
   * Idempotent.
   */
  close(): Promise<void> {
    return this.slot.shutdown(async (midTurn) => {
      if (!this.lease) {
        await this.client.close(CLOSE_GRACE_MS);
        return;
      }
      for (const detach of this.detach.splice(0)) detach();
      await this.lease.leave(
        midTurn,
        () => endConversation(this.client),
        (error) =>
          this.launch.record({
            kind: "harness",
            detail: `stopped the warm Claude Code: it did not reset for the next session (${errorMessage(error)})`,
          }),
      );
    });
  }

  private onMessage(streamMessage: StreamMessage): void {
    if (streamMessage.type === "system" && streamMessage.subtype === "init") {
      const id = (streamMessage as { session_id?: unknown }).session_id;
      if (typeof id === "string" && id !== "") this.sessionId = id;
    }
    const turn = this.slot.current;
    if (!turn) return;
    turn.accept(streamMessage);
    if (streamMessage.type === "result") this.recordDenials(streamMessage as ResultMessage);
  }

  /** Denials Claude Code decided on its own (not through `can_use_tool`) are recorded too. */
  private recordDenials(result: ResultMessage): void {
    for (const denial of result.permission_denials ?? []) {
      if (this.answered.has(denial.tool_use_id)) continue;
      this.launch.record({
        kind: "approval",
        detail: `Claude Code denied ${denial.tool_name} by its own permission rules`,
      });
    }
  }

  private onHostRequest(request: HostControlRequest): Json | Promise<Json> {
    const turn = this.slot.current;
    if (request.request.subtype === "elicitation") {
      const ask = request.request as unknown as ElicitationControlRequest;
      return answerElicitation(this.launch, ask).then((response) => {
        turn?.note({ elicitation: ask as unknown as Json, answer: response });
        return response;
      });
    }
    if (request.request.subtype !== "can_use_tool") {
      throw new Error(`jest-m3's Claude Code harness does not answer ${request.request.subtype}`);
    }
    const ask = request.request as unknown as CanUseToolRequest;
    const answer = permission(this.launch, this.options, this.servers, ask);
    if (ask.tool_use_id !== undefined) {
      this.answered.add(ask.tool_use_id);
      if (answer.behavior === "deny") turn?.deniedCall(ask.tool_use_id);
    }
    turn?.note({ permission: ask, answer });
    return answer as unknown as Json;
  }
}
