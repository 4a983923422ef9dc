/** Where a command of the command line writes, and its folder; a test passes its own. */
export interface CliIo {
  readonly cwd: string;
  out(text: string): void;
  err(text: string): void;
}
