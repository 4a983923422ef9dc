import { LineSplitter } from "../src/wire/line-splitter";

describe("LineSplitter", () => {
  test("a line split across many reads", () => {
    const lines = new LineSplitter();
    expect(lines.push(Buffer.from('{"a":'))).toEqual([]);
    expect(lines.push(Buffer.from("1"))).toEqual([]);
    expect(lines.push(Buffer.from("}\n"))).toEqual(['{"a":1}']);
  });

  test("several lines in one read, CRLF, and a trailing partial line", () => {
    const lines = new LineSplitter();
    expect(lines.push(Buffer.from("one\r\ntwo\nthr"))).toEqual(["one", "two"]);
    expect(lines.rest()).toBe("thr");
    expect(lines.push(Buffer.from("ee\n"))).toEqual(["three"]);
  });

  test("a multi-byte character split between reads", () => {
    const lines = new LineSplitter();
    const bytes = Buffer.from("prix: 5 €\n");
    expect(lines.push(bytes.subarray(0, bytes.length - 3))).toEqual([]);
    expect(lines.push(bytes.subarray(bytes.length - 3))).toEqual(["prix: 5 €"]);
  });

  test("a 10 MB line in 64 KiB chunks", () => {
    const lines = new LineSplitter();
    const line = "y".repeat(10 * 1024 * 1024);
    const bytes = Buffer.from(line + "\n");
    const out: string[] = [];
    for (let offset = 0; offset < bytes.length; offset += 65536) {
      out.push(...lines.push(bytes.subarray(offset, offset + 65536)));
    }
    expect(out).toHaveLength(1);
    expect(out[0]?.length).toBe(line.length);
  });
});
