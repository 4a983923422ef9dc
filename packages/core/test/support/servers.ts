/** Core's tests take their servers from the shared test support. */
import { fixturePath } from "@jest-m3/test-support";

export {
  faultServer,
  shipping,
  SHIPPING_SCRIPT as shippingScript,
  startHttpShipping,
} from "@jest-m3/test-support";

/** The fault server's script (flags on its command line choose the fault). */
export const faultScript = fixturePath("fault-server.mjs");
