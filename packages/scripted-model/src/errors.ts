/**
 * Errors thrown by the scripted model. Each has a stable `name` to match on, a message that
 * says what to do, and the data a caller needs as properties.
 *
 * @packageDocumentation
 */

/** Base class of every error the scripted model throws on purpose. */
export class ScriptedModelError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * A script is malformed: an unknown step kind, a tool reference that is not `server:tool`, a
 * matcher of the wrong type, a JSON script file that cannot be read. Thrown before the server
 * starts listening.
 */
export class InvalidScript extends ScriptedModelError {
  /** Where the problem is, e.g. `rule "quote" step 2` or `script file ./model.json`. */
  readonly location: string;
  /** What is wrong there, without the location. */
  readonly problem: string;
  constructor(location: string, problem: string, options?: { cause?: unknown }) {
    super(`Invalid scripted-model script: ${location}: ${problem}`, options);
    this.location = location;
    this.problem = problem;
  }
}

/** A cassette file is missing, is not JSON, or does not have the cassette format. */
export class InvalidCassette extends ScriptedModelError {
  /** The cassette file as given. */
  readonly file: string;
  /** What is wrong with it. */
  readonly problem: string;
  constructor(file: string, problem: string, options?: { cause?: unknown }) {
    super(`Cassette ${file}: ${problem}`, options);
    this.file = file;
    this.problem = problem;
  }
}

/**
 * Record mode was told to authenticate with an environment variable that is not set. Only the
 * variable's name appears here, never a value.
 */
export class MissingApiKey extends ScriptedModelError {
  /** The environment variable name that was expected to hold the upstream API key. */
  readonly variable: string;
  constructor(variable: string) {
    super(
      `Record mode needs the upstream API key in the environment variable ${variable}, which is ` +
        `not set (or empty). Set it before starting the recording, or omit \`apiKeyEnv\` for an ` +
        `upstream that needs no key.`,
    );
    this.variable = variable;
  }
}

/** The server could not listen, e.g. because the requested port is taken. */
export class ServerStartFailed extends ScriptedModelError {
  /** The port that was asked for (0 = any free port). */
  readonly port: number;
  constructor(port: number, reason: string, options?: { cause?: unknown }) {
    super(
      `The scripted model could not listen on 127.0.0.1:${port}: ${reason}. ` +
        `Pass another \`port\`, or omit it to take any free port.`,
      options,
    );
    this.port = port;
  }
}

/**
 * Thrown by {@link Journal.assertNoProblems}: at least one request got an answer the script
 * did not intend (nothing matched, a tool was not offered, a replay diverged, ...).
 */
export class ScriptedModelProblems extends ScriptedModelError {
  /** One line per problem, each naming the request it happened on. */
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(
      `The scripted model saw ${problems.length} problem(s):\n` +
        problems.map((p) => `  - ${p}`).join("\n") +
        `\nSee model.journal.entries for the full requests.`,
    );
    this.problems = problems;
  }
}
