import type { Trace } from "../evidence/trace.js";
import type { ManagedProcess } from "../processes/managed-process.js";

/** Something the kit releases when it closes. */
export interface OwnedResource {
  close(): Promise<void>;
}

/** What a kit gives the objects it creates: ownership, settings, and the closed check. */
export interface KitContext {
  /** Where relative paths resolve. */
  readonly cwd: string;
  /** How long a stopped process gets between SIGTERM and SIGKILL. */
  readonly killGraceMs: number;
  /** A new connection id for `server`, unique within the kit (`shipping#3`). */
  connectionId(server: string): string;
  /** Throws {@link KitClosed} when the kit is closed. */
  assertOpen(what: string): void;
  /** Registers a resource the kit must release; returns a function that unregisters it. */
  own(resource: OwnedResource): () => void;
  /** Registers a child process so the kit can list and stop it. */
  trackProcess(process: ManagedProcess): void;
  /**
   * Remembers a secret value the kit handed out (a direct client's auth header), by the
   * name it came from, so what the run writes or prints is scrubbed of it (the runtime's).
   */
  registerSecret?(name: string, value: string): void;
  /** A direct client closed after it had connected: its trace is final (for observers). */
  directClosed?(client: DirectClientClosed): void;
}

/** A direct client that closed, as the runtime's observers hear of it. */
export interface DirectClientClosed {
  /** The server's name, from its spec. */
  readonly server: string;
  /** The client's complete trace: every message, the tool calls, the gaps. */
  readonly trace: Trace;
  /** When the client was created and when it closed (epoch ms). */
  readonly createdAt: number;
  readonly finishedAt: number;
}
