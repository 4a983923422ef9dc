// A provider vendor of the tests' own, behind a provider tap.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ProviderTap } from "@jest-m3/core";

/**
 * A loopback vendor answering with `answer` (given the request's whole body), and a provider
 * tap of the Responses API in front of it, for `use`; both are closed after.
 */
export async function throughTap(
  answer: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void,
  use: (tap: ProviderTap) => Promise<void>,
): Promise<void> {
  const vendor = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => answer(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve) => vendor.listen(0, "127.0.0.1", resolve));
  const { port } = vendor.address() as AddressInfo;
  const tap = await ProviderTap.start({
    name: "vendor",
    baseUrl: `http://127.0.0.1:${port}/v1`,
    wireApi: "responses",
  });
  try {
    await use(tap);
  } finally {
    await tap.close();
    await new Promise<void>((resolve) => vendor.close(() => resolve()));
  }
}
