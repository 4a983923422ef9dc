import { createHash } from "node:crypto";
import { lstat, readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import type { WorkspaceArtifact } from "./result.js";
import { MAX_TEXT_BYTES, isBinary } from "./snapshot.js";

/** The characters that make an artifact entry a glob rather than a path. */
const GLOB_CHARACTERS = /[*?[\]{}]/;

/** Whether an `artifacts` entry is a glob (`*`, `**`, `?`, `[...]`, `{a,b}`). */
export function isGlob(pattern: string): boolean {
  return GLOB_CHARACTERS.test(pattern);
}

/** The regular-expression text of one path segment of a glob (no `/` in it). */
function segmentSource(segment: string): string {
  let source = "";
  let depth = 0;
  for (let index = 0; index < segment.length; index++) {
    const char = segment[index]!;
    if (char === "*") source += "[^/]*";
    else if (char === "?") source += "[^/]";
    else if (char === "[") {
      const end = segment.indexOf("]", index + 2);
      if (end === -1) {
        source += "\\[";
        continue;
      }
      let body = segment.slice(index + 1, end);
      const negated = body.startsWith("!") || body.startsWith("^");
      if (negated) body = body.slice(1);
      source += `[${negated ? "^/" : ""}${body.replace(/[\\\]]/g, "\\$&")}]`;
      index = end;
    } else if (char === "{") {
      depth++;
      source += "(?:";
    } else if (char === "}" && depth > 0) {
      depth--;
      source += ")";
    } else if (char === "," && depth > 0) source += "|";
    else source += char.replace(/[.+^$()|\\}\]]/g, "\\$&");
  }
  return source + ")".repeat(depth);
}

/**
 * A glob as a regular expression over workspace paths (with `/`): `*` and `?` stay within
 * one segment, a `**` segment spans any number of them (none included), `[...]` is a
 * character class (`[!...]` negated) and `{a,b}` an alternative. Names starting with a dot
 * match like any other.
 */
export function globPattern(glob: string): RegExp {
  const segments = glob.replace(/\/+$/, "").split("/");
  let source = "";
  for (const [index, segment] of segments.entries()) {
    const last = index === segments.length - 1;
    if (segment === "**") source += last ? ".*" : "(?:[^/]+/)*";
    else source += segmentSource(segment) + (last ? "" : "/");
  }
  return new RegExp(`^${source}$`);
}

/** The folder a glob's walk starts in: its leading segments that have no glob character. */
function staticBase(glob: string): string {
  const fixed: string[] = [];
  for (const segment of glob.split("/")) {
    if (isGlob(segment)) break;
    fixed.push(segment);
  }
  return fixed.join("/");
}

/**
 * Whether `relative` names something inside `root` without passing through a symbolic
 * link: every folder on the way is a real folder, so nothing outside the workspace is read.
 */
async function reachableWithoutLinks(root: string, relative: string): Promise<boolean> {
  const parts = relative.split("/").filter((part) => part !== "" && part !== ".");
  let path = root;
  for (const part of parts.slice(0, -1)) {
    path = join(path, part);
    const stats = await lstat(path).catch(() => null);
    if (!stats?.isDirectory()) return false;
  }
  return true;
}

/** Every regular file and link under `relative` (itself, if it is not a folder); links are not entered. */
async function filesUnder(root: string, relative: string): Promise<string[]> {
  const stats = await lstat(join(root, relative)).catch(() => null);
  if (!stats?.isDirectory()) return [relative];
  const names = (await readdir(join(root, relative))).sort();
  const nested = await Promise.all(
    names
      .filter((name) => !(relative === "." && name === ".git"))
      .map((name) => filesUnder(root, relative === "." ? name : `${relative}/${name}`)),
  );
  return nested.flat();
}

/** The regular files below `base` whose paths match `pattern`; links are neither entered nor taken. */
async function filesMatching(root: string, base: string, pattern: RegExp): Promise<string[]> {
  if (base !== "" && !(await reachableWithoutLinks(root, `${base}/x`))) return [];
  const found: string[] = [];
  const walk = async (relative: string): Promise<void> => {
    const names = (await readdir(join(root, relative)).catch(() => [] as string[])).sort();
    for (const name of names) {
      if (relative === "" && name === ".git") continue;
      const path = relative === "" ? name : `${relative}/${name}`;
      const stats = await lstat(join(root, path));
      if (stats.isDirectory()) await walk(path);
      else if (stats.isFile() && pattern.test(path)) found.push(path);
    }
  };
  await walk(base);
  return found;
}

async function artifactOf(root: string, path: string): Promise<WorkspaceArtifact> {
  const inside = await reachableWithoutLinks(root, path);
  const stats = inside ? await lstat(join(root, path)).catch(() => null) : null;
  if (!stats?.isFile()) {
    return { path, exists: false, size: null, sha256: null, binary: false, content: null };
  }
  const bytes = await readFile(join(root, path));
  const binary = isBinary(bytes);
  return {
    path,
    exists: true,
    size: bytes.length,
    sha256: createHash("sha256").update(bytes).digest("hex"),
    binary,
    content: !binary && bytes.length <= MAX_TEXT_BYTES ? bytes.toString("utf8") : null,
  };
}

/**
 * The artifacts `named` select in the workspace at `root`, each file once, in the order
 * named (a glob's files in path order). A path names a file, or a folder of files; a
 * glob (`"out/*.json"`, or `**` for any depth of folders) names the regular files whose
 * paths match it, and none when nothing matches. Symbolic links are never followed: a path through a link reads as
 * missing, and a glob neither enters nor takes one, so nothing outside the workspace is
 * read.
 */
export async function collectArtifacts(
  root: string,
  named: readonly string[],
): Promise<{ artifacts: WorkspaceArtifact[]; problems: string[] }> {
  const artifacts: WorkspaceArtifact[] = [];
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const entry of named) {
    try {
      const paths = isGlob(entry)
        ? await filesMatching(root, staticBase(entry), globPattern(entry))
        : (await reachableWithoutLinks(root, entry))
          ? await filesUnder(root, entry.replace(/\/+$/, ""))
          : [entry.replace(/\/+$/, "")];
      for (const path of paths) {
        if (seen.has(path)) continue;
        seen.add(path);
        artifacts.push(await artifactOf(root, path));
      }
    } catch (error) {
      problems.push(`the artifact ${entry} could not be read: ${(error as Error).message}`);
    }
  }
  return { artifacts, problems };
}
