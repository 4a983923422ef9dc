#!/usr/bin/env node
// The package's install step: Qwen Code 0.24 needs Node >= 22 (its engines), and jest-m3
// runs on the Node users have. The adapter kit's installer puts the registry's Node build in
// @jest-m3/core's node-runtime/ folder when no Node new enough is found (one copy for every
// agent that needs it), where the qwen-code harness looks. Never fails the install.
"use strict";
try {
  require("@jest-m3/core/agent-node-installer").installAgentNode({
    agent: "Qwen Code",
    minimum: "22.0.0",
    packageName: "@jest-m3/harness-acp",
    skipVariable: "M3_SKIP_NODE_INSTALL",
  });
} catch (error) {
  process.stderr.write(
    `@jest-m3/harness-acp: the Node installer did not run (${error && error.message}); ` +
      `Qwen Code's readiness will say what is missing; set M3_QWEN_NODE to a Node 22 to use one you have.\n`,
  );
}
