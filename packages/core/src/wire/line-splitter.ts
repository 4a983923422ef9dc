/**
 * Splits a byte stream into newline-terminated lines, however the bytes arrive: one line
 * across many reads, many lines in one read, lines of many megabytes. Only the newest
 * chunk is scanned for a newline, so a long line costs linear time.
 */
export class LineSplitter {
  private parts: Buffer[] = [];

  /** Feeds a chunk; returns the complete lines it finished (without `\n` or `\r\n`). */
  push(chunk: Buffer): string[] {
    const lines: string[] = [];
    let start = 0;
    let newline = chunk.indexOf(0x0a, start);
    while (newline !== -1) {
      const piece = chunk.subarray(start, newline);
      const whole = this.parts.length > 0 ? Buffer.concat([...this.parts, piece]) : piece;
      this.parts = [];
      const end =
        whole.length > 0 && whole[whole.length - 1] === 0x0d ? whole.length - 1 : whole.length;
      lines.push(whole.toString("utf8", 0, end));
      start = newline + 1;
      newline = chunk.indexOf(0x0a, start);
    }
    if (start < chunk.length) this.parts.push(chunk.subarray(start));
    return lines;
  }

  /** Bytes received after the last newline (an unterminated line), if any. */
  rest(): string {
    return Buffer.concat(this.parts).toString("utf8");
  }
}
