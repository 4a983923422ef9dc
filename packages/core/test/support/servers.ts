/** Core's tests take their servers from the shared test support. */
import type { HarnessLaunch } from "@jest-m3/core/harness";
import { fixturePath } from "@jest-m3/test-support";

export {
  faultServer,
  shipping,
  SHIPPING_SCRIPT as shippingScript,
  startHttpShipping,
} from "@jest-m3/test-support";

/** The fault server's script (flags on its command line choose the fault). */
export const faultScript = fixturePath("fault-server.mjs");

/** Starts a launch's first (captured, stdio) server the way an agent would, for test harnesses. */
export function spawnCapturedServer(launch: HarnessLaunch) {
  const server = launch.servers[0]!;
  if (server.kind !== "stdio") throw new Error("this test harness takes a stdio server");
  return launch.spawn({
    label: server.name,
    command: server.command,
    args: server.args,
    env: { ...launch.env, ...server.env },
    cwd: server.cwd,
  });
}
