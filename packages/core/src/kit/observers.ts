import type { ExecutionResult } from "../agents/results.js";

/**
 * Hooks for test-runner integrations (the jest-m3 preset uses them for transcripts and for
 * its orphan check). Observers must be quick and must not throw.
 */
export interface KitObserver {
  /** A kit started a child process. */
  processStarted?(process: {
    readonly pid: number;
    readonly label: string;
    readonly command: string;
  }): void;
  /** A kit created a temporary directory (removed when the kit closes). */
  tempDirCreated?(path: string): void;
  /** An agent session finished; its result is final. */
  executionFinished?(result: ExecutionResult): void;
}

const observers = new Set<KitObserver>();

/** Registers an observer of every kit in this process; returns a function that removes it. */
export function observeKits(observer: KitObserver): () => void {
  observers.add(observer);
  return () => observers.delete(observer);
}

/** @internal Tells every observer. */
export function notifyObservers(event: (observer: KitObserver) => void): void {
  for (const observer of observers) {
    try {
      event(observer);
    } catch {
      // An observer's failure must never fail the test's own work.
    }
  }
}
