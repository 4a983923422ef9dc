// zstd bodies through the provider tap: the request and the answer are forwarded byte for
// byte with their content-encoding, whatever this Node can decode. On Node 20 (no zstd in
// zlib) the record says "not decoded (zstd)" and its usage is Unavailable saying so; where
// zlib has zstd, the tap reads the answer's usage. Real zstd frames (made by the zstd tool).
import {
  request,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import * as zlib from "node:zlib";
import { isUnavailable } from "@jest-m3/core";
import { throughTap } from "./support/provider-vendor";

// {"model":"m1","input":[{"role":"user","content":"hi"}],"stream":false}
const REQUEST = Buffer.from(
  "KLUv/SRG5QEAYgQOEaBtDIXn1MwurDYCcLIUqMpCdeMqSMzKQhkHpK7SYtlWNmcGw41z8S4Hp0Ms52tqcGCL1x7HpgEAXNl3cA==",
  "base64",
);
// A non-streamed Responses answer: "zstd ok", usage 321 in / 12 out.
const ANSWER = Buffer.from(
  "KLUv/WQgADUFALKLIBeAT2PQrSaIqEEQKcjBN6JyI6doIjI9Atc1DI7b3JkQBMLQ1odNvmWrSbOrINr6clm3+Z6b3SSQrFa32TvhGg/3JTJ7n1tdVN1tdDKqDEUfNipOFZ/bCFG7RbRXglbK2cFz28Ekn9kJLjrQk8htldatzkZ9uQgyR86uDEgxup0sWwEMAEltd8Pg9hr6KvpgrkEOnOryGVmoCm44AR4xBhxVNps5stZj",
  "base64",
);
const hasZstd =
  typeof (zlib as unknown as { zstdDecompressSync?: unknown }).zstdDecompressSync === "function";

test("zstd request and answer: forwarded byte for byte; decoded where Node can, else noted", async () => {
  const received: { body: Buffer; headers: IncomingHttpHeaders }[] = [];
  const vendorAnswer = (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    received.push({ body, headers: req.headers });
    res.writeHead(200, { "content-type": "application/json", "content-encoding": "zstd" });
    res.end(ANSWER);
  };
  await throughTap(vendorAnswer, async (tap) => {
    tap.beginTurn("turn-1");
    const answer = await new Promise<{
      status: number;
      headers: IncomingHttpHeaders;
      body: Buffer;
    }>((resolve, reject) => {
      const out = request(
        `${tap.provider.baseUrl}/responses`,
        {
          method: "POST",
          headers: { "content-type": "application/json", "content-encoding": "zstd" },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () =>
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: Buffer.concat(chunks),
            }),
          );
        },
      );
      out.on("error", reject);
      out.end(REQUEST);
    });
    const [record] = await tap.endTurn();

    // What went through is exactly what was sent, both ways, encoding named.
    expect(received).toHaveLength(1);
    expect(received[0]!.body.equals(REQUEST)).toBe(true);
    expect(received[0]!.headers["content-encoding"]).toBe("zstd");
    expect(answer.status).toBe(200);
    expect(answer.headers["content-encoding"]).toBe("zstd");
    expect(answer.body.equals(ANSWER)).toBe(true);

    expect(record).toMatchObject({ status: 200, error: null, generation: true });
    expect(record!.request.bytes).toBe(REQUEST.length);
    expect(record!.response.bytes).toBe(ANSWER.length);
    if (hasZstd) {
      expect(record!.request.decoding).toBeUndefined();
      expect(record!.model).toBe("m1");
      expect(record!.response.decoding).toBeUndefined();
      expect(record!.usage).toMatchObject({ inputTokens: 321, outputTokens: 12 });
    } else {
      expect(record!.request.decoding).toMatch(/^not decoded \(zstd\)/);
      expect(record!.response.decoding).toMatch(/^not decoded \(zstd\)/);
      expect(record!.model).toBeNull();
      expect(isUnavailable(record!.usage)).toBe(true);
      expect(isUnavailable(record!.usage) && record!.usage.reason).toMatch(/not decoded \(zstd\)/);
    }
  });
});

test("a body whose encoding lies is noted, not thrown, and still forwarded", async () => {
  const lying = (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
    res.end("not gzip at all");
  };
  await throughTap(lying, async (tap) => {
    tap.beginTurn("turn-1");
    // fetch itself refuses the lying gzip; the tap must not.
    await fetch(`${tap.provider.baseUrl}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m1", input: "hi" }),
    })
      .then((res) => res.arrayBuffer())
      .catch(() => null);
    const [record] = await tap.endTurn();
    expect(record).toMatchObject({ status: 200, error: null, model: "m1" });
    expect(record!.response.decoding).toMatch(/^not decoded \(gzip\)/);
    expect(isUnavailable(record!.usage)).toBe(true);
  });
});
