/** Core's tests take their process checks from the shared test support. */
export {
  childrenOf,
  closeAndExpectNoProcessLeft,
  isRunning,
  procStat,
} from "@jest-m3/test-support";
