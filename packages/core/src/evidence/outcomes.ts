/** How an execution (a whole session) ended. */
export const ExecutionOutcome = {
  COMPLETED: "completed",
  FAILED: "failed",
  TIMED_OUT: "timed_out",
  CANCELLED: "cancelled",
  INTERRUPTED: "interrupted",
} as const;
export type ExecutionOutcome = (typeof ExecutionOutcome)[keyof typeof ExecutionOutcome];

/** How one turn ended. */
export const TurnOutcome = ExecutionOutcome;
export type TurnOutcome = ExecutionOutcome;

/**
 * Where a session or turn is in its life: `created → starting → idle ⇄ running_turn →
 * closing → finished`. Turns go `running → finished`.
 */
export const Lifecycle = {
  CREATED: "created",
  STARTING: "starting",
  IDLE: "idle",
  RUNNING_TURN: "running_turn",
  CLOSING: "closing",
  FINISHED: "finished",
} as const;
export type Lifecycle = (typeof Lifecycle)[keyof typeof Lifecycle];

/** Where a turn is in its life. */
export type TurnLifecycle = "running" | "finished";
