// The provider tap keeps its connections to the provider alive. A provider that closes an
// idle kept-alive connection just as the tap reuses it (the request fails with ECONNRESET
// before any answer) must not cost the agent a 502: the tap sends that request again, once,
// on a new connection. The vendor here drops every second request on a reused connection.
import { request, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { throughTap } from "./support/provider-vendor";

function post(baseUrl: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${baseUrl}/responses`,
      { method: "POST", headers: { "content-type": "application/json", connection: "close" } },
      (res: IncomingMessage) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

test("a request on a connection the provider dropped is sent again on a new one", async () => {
  const served = new WeakMap<Socket, number>();
  const seen: string[] = [];
  const vendor = (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    const count = (served.get(req.socket) ?? 0) + 1;
    served.set(req.socket, count);
    seen.push(`${count}:${body.toString()}`);
    // A reused connection is dropped before it answers: the race of an idle close.
    if (count > 1) {
      req.socket.destroy();
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ id: "r", output: [], usage: { input_tokens: 1, output_tokens: 1 } }));
  };
  await throughTap(vendor, async (tap) => {
    const first = await post(tap.provider.baseUrl, '{"model":"m","input":"one"}');
    const second = await post(tap.provider.baseUrl, '{"model":"m","input":"two"}');
    expect([first.status, second.status]).toEqual([200, 200]);
    // The vendor's own record: the second request was dropped on the reused connection,
    // then served once on a new one.
    expect(seen).toEqual([
      '1:{"model":"m","input":"one"}',
      '2:{"model":"m","input":"two"}',
      '1:{"model":"m","input":"two"}',
    ]);
  });
});
