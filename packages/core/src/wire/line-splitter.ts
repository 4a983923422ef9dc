import { isUtf8 } from "node:buffer";

/** One line: its text, or, when its bytes are not valid UTF-8, the bytes as they were. */
export type DecodedLine =
  | { readonly valid: true; readonly text: string }
  | { readonly valid: false; readonly bytes: Buffer };

function decode(bytes: Buffer): DecodedLine {
  return isUtf8(bytes)
    ? { valid: true, text: bytes.toString("utf8") }
    : { valid: false, bytes: Buffer.from(bytes) };
}

/**
 * Splits a byte stream into newline-terminated lines, however the bytes arrive: one line
 * across many reads, many lines in one read, lines of many megabytes. Only the newest
 * chunk is scanned for a newline, so a long line costs linear time.
 */
export class LineSplitter {
  private parts: Buffer[] = [];

  /** Feeds a chunk; returns the complete lines it finished (without `\n` or `\r\n`). */
  push(chunk: Buffer): string[] {
    return this.pushBytes(chunk).map((line) => line.toString("utf8"));
  }

  /** Bytes received after the last newline (an unterminated line), if any. */
  rest(): string {
    return Buffer.concat(this.parts).toString("utf8");
  }

  /**
   * Like {@link LineSplitter.push}, decoding strictly: a line that is not valid UTF-8 is
   * given as its bytes, never with replacement characters that no one sent.
   */
  pushLines(chunk: Buffer): DecodedLine[] {
    return this.pushBytes(chunk).map(decode);
  }

  /** Like {@link LineSplitter.rest}, decoding strictly; undefined when nothing is left. */
  restLine(): DecodedLine | undefined {
    const bytes = Buffer.concat(this.parts);
    return bytes.length === 0 ? undefined : decode(bytes);
  }

  private pushBytes(chunk: Buffer): Buffer[] {
    const lines: Buffer[] = [];
    let start = 0;
    let newline = chunk.indexOf(0x0a, start);
    while (newline !== -1) {
      const piece = chunk.subarray(start, newline);
      const whole = this.parts.length > 0 ? Buffer.concat([...this.parts, piece]) : piece;
      this.parts = [];
      const end =
        whole.length > 0 && whole[whole.length - 1] === 0x0d ? whole.length - 1 : whole.length;
      lines.push(whole.subarray(0, end));
      start = newline + 1;
      newline = chunk.indexOf(0x0a, start);
    }
    if (start < chunk.length) this.parts.push(chunk.subarray(start));
    return lines;
  }
}
