// `npm run bench`: every benchmark, one after another (the machine has two cores).
import { benchDirect } from "./direct";
import { benchSession } from "./session";
import { benchClaudeCodeSession } from "./claude-code-session";
import { benchAcpSession } from "./acp-session";
import { benchWire } from "./wire";
import { benchRelay } from "./relay";
import { benchWarm } from "./warm";
import { benchValidation } from "./validation";

async function main(): Promise<void> {
  await benchValidation();
  await benchDirect();
  await benchWire();
  await benchRelay();
  await benchSession();
  await benchWarm();
  await benchClaudeCodeSession();
  await benchAcpSession();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
