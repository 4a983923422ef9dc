#!/usr/bin/env node
// The package's install step: Pi 1.6 needs Node >= 22.19, and jest-m3 runs on the Node users
// have. The adapter kit's installer puts the registry's Node build in @jest-m3/core's
// node-runtime/ folder when no Node new enough is found (one copy for every agent that needs
// it), where the harness looks. Never fails the install.
"use strict";
try {
  require("@jest-m3/core/agent-node-installer").installAgentNode({
    agent: "Pi",
    minimum: "22.19.0",
    packageName: "@jest-m3/harness-pi",
    skipVariable: "M3_PI_SKIP_NODE_INSTALL",
  });
} catch (error) {
  process.stderr.write(
    `@jest-m3/harness-pi: the Node installer did not run (${error && error.message}); ` +
      `Pi's readiness will say what is missing; set M3_PI_NODE to a Node 22 to use one you have.\n`,
  );
}
