// `npm run bench`: every benchmark, one after another (the machine has two cores).
import { benchDirect } from "./direct";

async function main(): Promise<void> {
  await benchDirect();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
