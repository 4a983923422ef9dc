/**
 * Trajectory snapshots of `describeAgents` tests: one snapshot per test that every agent
 * whose trajectory agrees shares, named without the agent (so an agent upgrade renames
 * nothing), and an agent's own snapshot only where its trajectory differs, named by harness
 * and model (never the version). A run over some of the agents (`M3_AGENTS` per CI job,
 * `-t codex`) checks what it ran and leaves the others' snapshots alone: nothing of theirs
 * is reported obsolete.
 *
 * Keys in the `.snap` file, for `describeAgents("seed", ...)` and `test("refund", ...)`:
 *
 *   seed refund: toMatchTrajectorySnapshot 1                          (shared)
 *   seed refund: toMatchTrajectorySnapshot [claude-code sonnet-5] 1   (one agent's own)
 *
 * Storing, `-u` and the "written"/"obsolete" counts stay Jest's: this module only picks the
 * key and gives it to Jest's snapshot state (`match({ key })`, `markSnapshotsAsCheckedForTest`).
 */
import type { MatrixAgent } from "../shared/agent-list.js";

/** Where `describeAgents` records its blocks, on the test file's global (one per file). */
const BLOCKS = Symbol.for("jest-m3.agent-blocks");
/** What this file's trajectory snapshots did, for the settling at the file's end. */
const LEDGER = Symbol.for("jest-m3.agent-snapshot-ledger");

interface AgentBlock {
  readonly name: string;
  readonly agent: MatrixAgent;
}

/** One shared snapshot key, as this file's run met it. */
interface SharedSnapshot {
  /** Every agent that checked it or its own variant. */
  readonly agents: Set<string>;
  /** The agents whose trajectory matched (or set) the shared snapshot. */
  readonly sharedBy: Set<string>;
  /** The trajectory the shared snapshot holds in this run, once an agent checked it. */
  text?: string;
  /** The shared snapshot was written in this run (there was none before). */
  addedHere: boolean;
}

interface SnapshotLedger {
  /** Per shared snapshot name (`<test>: <hint>`): the agents that checked it, and whether it was new. */
  readonly names: Map<string, SharedSnapshot>;
  /** Per test attempt: how many snapshots of each hint it took (the key's trailing number). */
  readonly counts: WeakMap<object, { attempt: unknown; byHint: Map<string, number> }>;
  /** A stand-in identity per agent and name, where Jest gives no test identity. */
  byName(name: string): object;
  /** Full names of this file's tests that Jest skipped (`-t`, `.skip`). */
  readonly skipped: string[];
}

function fileGlobal(): Record<symbol, unknown> {
  return globalThis as unknown as Record<symbol, unknown>;
}

function blocks(): AgentBlock[] {
  const global = fileGlobal();
  global[BLOCKS] ??= [];
  return global[BLOCKS] as AgentBlock[];
}

function ledger(): SnapshotLedger {
  const global = fileGlobal();
  if (global[LEDGER] === undefined) {
    const stand = new Map<string, object>();
    const created: SnapshotLedger = {
      names: new Map(),
      counts: new WeakMap(),
      skipped: [],
      byName: (name) => {
        const known = stand.get(name) ?? {};
        stand.set(name, known);
        return known;
      },
    };
    global[LEDGER] = created;
  }
  return global[LEDGER] as SnapshotLedger;
}

/** The describe block name of one agent's copy of a `describeAgents` block. */
export function agentBlockName(name: string, agent: MatrixAgent): string {
  return `${name} [${agent.label}]`;
}

/** Records a block `describeAgents` declared, so its tests' snapshots can be shared. */
export function registerAgentBlock(name: string, agent: MatrixAgent): void {
  blocks().push({ name, agent });
}

/** An agent as its own snapshots name it: harness and model, no version. */
export function snapshotAgentName(agent: Pick<MatrixAgent, "harness" | "model">): string {
  return [agent.harness, agent.model].filter(Boolean).join(" ");
}

/** A test of a `describeAgents` block: the agent, and the test's name without the agent. */
export interface AgentTest {
  readonly agent: MatrixAgent;
  /** The `describeAgents` name of its block. */
  readonly blockName: string;
  /** The full test name with the block's `[label]` removed: the same for every agent. */
  readonly sharedName: string;
}

/** The agent block `testName` (a full test name) belongs to, if any. */
export function agentTestOf(testName: string): AgentTest | undefined {
  let best: { block: AgentBlock; at: number; length: number } | undefined;
  for (const block of blocks()) {
    const blockName = agentBlockName(block.name, block.agent);
    const at = testName.indexOf(`${blockName} `);
    if (at < 0 || (at > 0 && testName[at - 1] !== " ")) continue;
    if (!best || blockName.length > best.length) best = { block, at, length: blockName.length };
  }
  if (!best) return undefined;
  const sharedName =
    testName.slice(0, best.at) + best.block.name + testName.slice(best.at + best.length);
  return { agent: best.block.agent, blockName: best.block.name, sharedName };
}

/** Records that Jest skipped a test (environment event), so its snapshots are kept. */
export function recordSkippedTest(testName: string): void {
  ledger().skipped.push(testName);
}

/** Jest's snapshot state, the part of it this module uses. */
export interface SnapshotStateLike {
  match(options: { testName: string; testIdentity?: unknown; received: unknown; key: string }): {
    pass: boolean;
    actual?: string;
    expected?: string;
    key: string;
  };
  markSnapshotsAsCheckedForTest(testName: string): void;
  getUncheckedKeys(): string[];
  readonly snapshotFormat?: { escapeString?: boolean };
  /** Jest 30's stored snapshots by key (read only). */
  readonly _snapshotData: Readonly<Record<string, string | undefined>>;
  /** Jest 30's update mode: `all` (-u), `new` (default), `none` (--ci). */
  readonly _updateSnapshot: "all" | "new" | "none";
}

/** Jest's snapshot state from a matcher's context, or a reason it cannot be used. */
export function snapshotStateOf(state: unknown): SnapshotStateLike | string {
  const candidate = state as Partial<SnapshotStateLike> | null | undefined;
  if (!candidate || typeof candidate.match !== "function") {
    return "Jest's snapshot state is not initialized (the matcher runs outside a test?)";
  }
  if (
    typeof candidate.markSnapshotsAsCheckedForTest !== "function" ||
    typeof candidate.getUncheckedKeys !== "function" ||
    typeof candidate._snapshotData !== "object" ||
    !["all", "new", "none"].includes(candidate._updateSnapshot ?? "")
  ) {
    return "this Jest's snapshot state is not one jest-m3 knows (it needs Jest 30)";
  }
  return candidate as SnapshotStateLike;
}

/** A string as Jest stores it in a `.snap` file (pretty-format, then extra line breaks). */
function serialized(text: string, escape: boolean): string {
  const printed = `"${escape ? text.replace(/"|\\/g, "\\$&") : text}"`;
  return printed.includes("\n") ? `\n${printed}\n` : printed;
}

/** The text of a stored snapshot of a string (what `serialized` made). */
export function storedText(stored: string, escape: boolean): string {
  const printed = stored.replace(/^\n/, "").replace(/\n$/, "");
  const inner = printed.replace(/^"/, "").replace(/"$/, "");
  return escape ? inner.replace(/\\(["\\])/g, "$1") : inner;
}

/** Which stored snapshot an agent's trajectory was compared with, for the failure message. */
export interface AgentSnapshotCheck {
  readonly pass: boolean;
  readonly key: string;
  /** `shared`: the one the agents share; `own`: this agent's own. */
  readonly kind: "shared" | "own";
  readonly agentName: string;
  /** The stored text compared with (undefined when there was none, e.g. in --ci). */
  readonly expected: string | undefined;
  /** The other agents of this run whose trajectory matched the shared snapshot. */
  readonly agreeing: readonly string[];
}

/**
 * Checks `text`, the trajectory of `test`'s agent, against the shared snapshot or the
 * agent's own, and stores it the way Jest would (new snapshots, `-u`).
 */
export function checkAgentSnapshot(
  state: SnapshotStateLike,
  test: AgentTest,
  hint: string,
  text: string,
  testIdentity: unknown,
): AgentSnapshotCheck {
  const book = ledger();
  const shared = `${test.sharedName}: ${hint}`;
  const agentName = snapshotAgentName(test.agent);
  // The key's number: the how-manieth snapshot with this hint in this attempt of the test
  // (a retried test starts again at 1, as Jest's own snapshots do).
  const identity =
    typeof testIdentity === "object" && testIdentity !== null
      ? testIdentity
      : book.byName(`${agentName}\u0000${shared}`);
  const attempt = (identity as { invocations?: unknown }).invocations;
  let counts = book.counts.get(identity);
  if (!counts || counts.attempt !== attempt) {
    counts = { attempt, byHint: new Map() };
    book.counts.set(identity, counts);
  }
  const count = (counts.byHint.get(hint) ?? 0) + 1;
  counts.byHint.set(hint, count);
  const sharedKey = `${shared} ${count}`;
  const ownKey = `${shared} [${agentName}] ${count}`;

  const escape = state.snapshotFormat?.escapeString === true;
  const mine = serialized(text, escape);
  const storedShared = state._snapshotData[sharedKey];
  const storedOwn = state._snapshotData[ownKey];
  let entry = book.names.get(sharedKey);
  if (!entry) {
    entry = { agents: new Set(), sharedBy: new Set(), addedHere: false };
    book.names.set(sharedKey, entry);
  }
  entry.agents.add(agentName);
  const agreeing = [...entry.sharedBy].filter((name) => name !== agentName);

  let kind: "shared" | "own";
  if (state._updateSnapshot === "all") {
    // -u: the first agent of the run to reach the test sets the shared snapshot, unless it
    // has its own or is the file's only agent (one CI job's: the others keep theirs); an
    // agent that agrees drops its own (left unchecked, Jest removes it).
    const alone = blocks().filter((block) => block.name === test.blockName).length <= 1;
    if (storedShared === mine) kind = "shared";
    else if (entry.text !== undefined) kind = entry.text === text ? "shared" : "own";
    else if (storedOwn !== undefined || (alone && storedShared !== undefined)) kind = "own";
    else kind = "shared";
  } else if (storedOwn !== undefined) {
    kind = "own";
  } else if (storedShared === undefined || storedShared === mine) {
    kind = "shared";
  } else {
    // The shared one differs: a new divergence when another agent wrote it in this very
    // run (this agent gets its own), a failure when it was there before the run.
    kind = entry.addedHere ? "own" : "shared";
  }
  if (kind === "shared") {
    if (entry.text === undefined) {
      entry.text = text;
      entry.addedHere = storedShared === undefined;
    }
  }
  const key = kind === "shared" ? sharedKey : ownKey;
  const before = kind === "shared" ? storedShared : storedOwn;
  if (kind === "shared" && entry.addedHere && entry.text === text && entry.sharedBy.size > 0) {
    // The snapshot another agent wrote a moment ago, the same text: one snapshot written,
    // not one per agent (Jest would count each of them as written).
    entry.sharedBy.add(agentName);
    return { pass: true, key, kind, agentName, expected: text, agreeing };
  }
  const result = state.match({ testName: shared, testIdentity, received: text, key });
  if (kind === "shared" && result.pass) entry.sharedBy.add(agentName);
  return {
    pass: result.pass,
    key,
    kind,
    agentName,
    expected: before === undefined ? undefined : storedText(before, escape),
    agreeing,
  };
}

/**
 * At the end of a test file: keeps the snapshots that belong to agents or tests this run did
 * not run (another CI job's agents, tests skipped by `-t`), so Jest reports none of them
 * obsolete; an agent that ran and no longer needs its own snapshot still has it reported
 * (and removed by `-u`).
 */
export function settleAgentSnapshots(state: unknown): void {
  const snapshots = snapshotStateOf(state);
  const book = fileGlobal()[LEDGER] as SnapshotLedger | undefined;
  if (typeof snapshots === "string" || !book) return;
  const sharedNames = new Set([...book.names.keys()].map((key) => key.replace(/ \d+$/, "")));
  for (const shared of sharedNames) {
    // The shared snapshot serves the agents that did not run here too.
    snapshots.markSnapshotsAsCheckedForTest(shared);
    for (const key of snapshots.getUncheckedKeys()) {
      const own = key.startsWith(`${shared} [`)
        ? /^\[(.+)\] (\d+)$/.exec(key.slice(shared.length + 1))
        : null;
      if (!own) continue;
      const ran = book.names.get(`${shared} ${own[2]!}`)?.agents.has(own[1]!) === true;
      if (!ran) snapshots.markSnapshotsAsCheckedForTest(`${shared} [${own[1]!}]`);
    }
  }
  for (const testName of book.skipped) {
    const test = agentTestOf(testName);
    if (test) snapshots.markSnapshotsAsCheckedForTest(test.sharedName);
  }
}
