/** Keeps the last bytes a process wrote to a stream, so errors can quote them. */
export class StreamTail {
  private text = "";
  private dropped = false;

  constructor(private readonly limit = 64 * 1024) {}

  append(chunk: Buffer | string): void {
    this.text += chunk.toString();
    if (this.text.length > this.limit) {
      this.text = this.text.slice(this.text.length - this.limit);
      this.dropped = true;
    }
  }

  /** The last `lines` lines (without a trailing newline). */
  tail(lines = 20): string {
    const all = this.text.replace(/\s+$/, "").split("\n");
    const kept = all.slice(-lines);
    const cut = this.dropped || kept.length < all.length;
    return (cut && kept.length > 0 ? "…\n" : "") + kept.join("\n");
  }
}
