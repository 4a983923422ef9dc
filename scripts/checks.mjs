// The static checks in two lanes at once, one per core: the type check (which builds the
// packages) beside lint and format, which read only sources (`npm run checks`). `npm test`
// runs the same checks beside the tests (scripts/test.mjs). `npm run typecheck`,
// `npm run lint` and `npm run format:check` still run each check alone.
import { runLanes } from "./lanes.mjs";

await runLanes([
  ["checks: typecheck", "npm run typecheck"],
  ["checks: lint and format", "npm run lint && npm run format:check"],
]);
