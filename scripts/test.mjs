// `npm test`: the packages built (`tsc -b`: Jest runs their dist), then everything else at
// once. Jest streams its progress; the type check of the tests and examples, lint and format,
// and the examples' own Jest run each print whole when they end. The side lanes run at a
// lower priority (nice 10): on two cores Jest's files leave about a fifth of the CPU idle
// while they wait on agents, and the side lanes take that, not the CPU of a timed agent turn.
// The run fails when any lane does, after all have ended.
import { runLane, runLanes } from "./lanes.mjs";

if (!(await runLane("build", "npm run build"))) process.exit(1);
await runLanes([
  ["jest", "npx jest", { live: true }],
  ["checks: typecheck (tests, examples)", "npm run typecheck:tests", { nice: true }],
  ["checks: lint and format", "npm run lint && npm run format:check", { nice: true }],
  ["examples", "npm run test:examples", { nice: true }],
]);
