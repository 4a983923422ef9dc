import { InvalidArgument } from "../errors.js";

/** What a user answers to an elicitation: accept (with the form's content), decline, cancel. */
export type ElicitationAnswer =
  | {
      readonly action: "accept";
      /** The form's values (form mode); omitted for URL mode. */
      readonly content?: Readonly<Record<string, string | number | boolean | readonly string[]>>;
    }
  | { readonly action: "decline" }
  | { readonly action: "cancel" };

/** An elicitation the server asked for, as a plan's rule sees it. */
export interface ElicitationRequest {
  /** `form` (a schema to fill in) or `url` (a page to open). */
  readonly mode: "form" | "url";
  readonly message: string;
  /** Form mode: the schema of the requested content. */
  readonly requestedSchema?: Readonly<Record<string, unknown>>;
  /** URL mode: the page the user should open. */
  readonly url?: string;
  /** URL mode: the server's id for this elicitation. */
  readonly elicitationId?: string;
}

/** Which elicitations a rule answers; every given field must match. */
export interface ElicitationMatch {
  /** A substring of the message, or a pattern it must match. */
  readonly message?: string | RegExp;
  readonly mode?: "form" | "url";
  /** URL mode: a substring of the URL, or a pattern. */
  readonly url?: string | RegExp;
}

/** One rule of an {@link ElicitationPlan}. */
export interface ElicitationRule {
  /** Which elicitations it answers; omitted: any. */
  readonly when?: ElicitationMatch;
  /** The answer, or a function of the request that gives it. */
  readonly answer:
    | ElicitationAnswer
    | ((request: ElicitationRequest) => ElicitationAnswer | Promise<ElicitationAnswer>);
  /** How many elicitations this rule may answer (default: any number). */
  readonly times?: number;
}

/**
 * What the test answers when the server asks for input. Rules are tried in order; the first
 * that matches (and is not used up) answers. An elicitation no rule answers is answered with
 * an error and fails the operation with `ElicitationUnexpected`; more than `roundLimit`
 * elicitations in one operation fail it with `ElicitationRoundLimit`.
 *
 * @example
 * ```ts
 * const plan: ElicitationPlan = {
 *   rules: [
 *     { when: { message: "inputs" }, answer: { action: "accept", content: { name: "Ada" } }, times: 1 },
 *     { when: { mode: "url" }, answer: { action: "decline" } },
 *   ],
 *   roundLimit: 3,
 * };
 * ```
 */
export interface ElicitationPlan {
  readonly rules: readonly ElicitationRule[];
  /** The most elicitations one operation may ask for (default 10). */
  readonly roundLimit?: number;
}

/** A plan, or one answer for every elicitation. */
export type ElicitationPlanInput = ElicitationPlan | ElicitationAnswer;

/** The default {@link ElicitationPlan.roundLimit}. */
export const DEFAULT_ROUND_LIMIT = 10;

const ACTIONS = new Set(["accept", "decline", "cancel"]);

function checkAnswer(answer: unknown, where: string): void {
  if (typeof answer === "function") return;
  if (typeof answer !== "object" || answer === null) {
    throw new InvalidArgument(
      `${where}: an answer must be { action: "accept" | "decline" | "cancel" } or a function; got ${JSON.stringify(answer)}.`,
    );
  }
  const { action, content } = answer as { action?: unknown; content?: unknown };
  if (typeof action !== "string" || !ACTIONS.has(action)) {
    throw new InvalidArgument(
      `${where}.action must be "accept", "decline" or "cancel"; got ${JSON.stringify(action)}.`,
    );
  }
  if (
    content !== undefined &&
    (action !== "accept" ||
      typeof content !== "object" ||
      content === null ||
      Array.isArray(content))
  ) {
    throw new InvalidArgument(
      `${where}.content is only for action "accept", and must be an object of the form's values.`,
    );
  }
}

/**
 * Checks a plan (or a single answer) and returns it as a plan. Called when the plan is
 * given, so a mistake fails before anything starts.
 */
export function parseElicitationPlan(input: unknown, where: string): ElicitationPlan {
  if (typeof input !== "object" || input === null) {
    throw new InvalidArgument(
      `${where} must be an elicitation plan ({ rules: [...] }) or an answer ({ action: ... }); got ${JSON.stringify(input)}.`,
    );
  }
  if ("action" in input) {
    checkAnswer(input, where);
    return { rules: [{ answer: input as ElicitationAnswer }] };
  }
  const { rules, roundLimit } = input as { rules?: unknown; roundLimit?: unknown };
  if (!Array.isArray(rules)) {
    throw new InvalidArgument(
      `${where}.rules must be an array of rules ({ when?, answer, times? }).`,
    );
  }
  if (roundLimit !== undefined && (!Number.isInteger(roundLimit) || (roundLimit as number) < 1)) {
    throw new InvalidArgument(
      `${where}.roundLimit must be a whole number ≥ 1; got ${JSON.stringify(roundLimit)}.`,
    );
  }
  rules.forEach((rule: unknown, index) => {
    const at = `${where}.rules[${index}]`;
    if (typeof rule !== "object" || rule === null)
      throw new InvalidArgument(`${at} must be an object.`);
    const { when, answer, times } = rule as { when?: unknown; answer?: unknown; times?: unknown };
    checkAnswer(answer, `${at}.answer`);
    if (times !== undefined && (!Number.isInteger(times) || (times as number) < 1)) {
      throw new InvalidArgument(
        `${at}.times must be a whole number ≥ 1; got ${JSON.stringify(times)}.`,
      );
    }
    if (when !== undefined) {
      if (typeof when !== "object" || when === null)
        throw new InvalidArgument(`${at}.when must be an object.`);
      for (const key of Object.keys(when)) {
        if (!["message", "mode", "url"].includes(key)) {
          throw new InvalidArgument(
            `${at}.when has an unknown key "${key}" (known: message, mode, url).`,
          );
        }
      }
      const { mode } = when as { mode?: unknown };
      if (mode !== undefined && mode !== "form" && mode !== "url") {
        throw new InvalidArgument(
          `${at}.when.mode must be "form" or "url"; got ${JSON.stringify(mode)}.`,
        );
      }
    }
  });
  return input as ElicitationPlan;
}

function textMatches(expected: string | RegExp | undefined, actual: string | undefined): boolean {
  if (expected === undefined) return true;
  if (actual === undefined) return false;
  return typeof expected === "string" ? actual.includes(expected) : expected.test(actual);
}

/** True when `request` fits `match`. */
export function elicitationMatches(
  match: ElicitationMatch | undefined,
  request: ElicitationRequest,
): boolean {
  if (!match) return true;
  return (
    (match.mode === undefined || match.mode === request.mode) &&
    textMatches(match.message, request.message) &&
    textMatches(match.url, request.url)
  );
}

/** A plan in use: which rules were used how often, and the rounds of the current operation. */
export class ActivePlan {
  private readonly uses: number[];
  private rounds = 0;

  constructor(readonly plan: ElicitationPlan) {
    this.uses = plan.rules.map(() => 0);
  }

  get roundLimit(): number {
    return this.plan.roundLimit ?? DEFAULT_ROUND_LIMIT;
  }

  /** Starts counting rounds afresh (a new operation, or a new agent turn); rule uses stay. */
  resetRounds(): void {
    this.rounds = 0;
  }

  /** Counts a round; false once the limit is passed. */
  countRound(): boolean {
    this.rounds += 1;
    return this.rounds <= this.roundLimit;
  }

  /** The first rule that matches and is not used up (marked used), or undefined. */
  take(request: ElicitationRequest): { rule: ElicitationRule; index: number } | undefined {
    for (const [index, rule] of this.plan.rules.entries()) {
      if (rule.times !== undefined && (this.uses[index] ?? 0) >= rule.times) continue;
      if (!elicitationMatches(rule.when, request)) continue;
      this.uses[index] = (this.uses[index] ?? 0) + 1;
      return { rule, index };
    }
    return undefined;
  }
}
