/**
 * The preset's transform for TypeScript: ts-jest, transpiling each file on its own, behind a
 * cache key computed without ts-jest. ts-jest computes its own key by building its whole
 * configuration, which loads the TypeScript compiler: a few hundred milliseconds in every
 * run, even when Jest's cache already holds every file. This key covers what ts-jest's
 * output depends on in transpile mode (the file, its path, the options, Jest's project
 * configuration, the tsconfig files ts-jest reads, the versions of ts-jest and TypeScript),
 * so ts-jest is loaded only when a file really has to be compiled.
 *
 * Type errors are not this transform's business: `tsc --noEmit` reports them (see
 * docs/performance.md).
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";

/** The part of Jest's transform options this transform reads. */
interface TransformOptions {
  readonly configString: string;
  readonly config: { readonly rootDir: string };
  readonly instrument?: boolean;
  readonly supportsStaticESM?: boolean;
  readonly transformerConfig?: unknown;
}

/** Jest's synchronous transformer, as ts-jest implements it. */
interface Transformer {
  process(source: string, path: string, options: TransformOptions): unknown;
  processAsync?(source: string, path: string, options: TransformOptions): Promise<unknown>;
}

// Bump when this key's recipe changes, so entries cached by an older recipe are not reused.
const RECIPE = "jest-m3 ts-transform 1";

const versionOf = (packageJson: string): string => {
  try {
    return (JSON.parse(readFileSync(packageJson, "utf8")) as { version?: string }).version ?? "?";
  } catch {
    return "?";
  }
};

let versions: string | undefined;
/** ts-jest's version and that of the TypeScript it loads (its peer, resolved from it). */
function compilerVersions(): string {
  if (versions === undefined) {
    const tsJest = createRequire(__filename).resolve("ts-jest/package.json");
    let typescript = "?";
    try {
      typescript = versionOf(createRequire(tsJest).resolve("typescript/package.json"));
    } catch {
      // ts-jest will say TypeScript is missing when it compiles.
    }
    versions = `ts-jest ${versionOf(tsJest)}, typescript ${typescript}`;
  }
  return versions;
}

const read = (file: string): string | undefined => {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
};

/** The `extends` of a tsconfig file, as written (a string or a list), without parsing JSONC. */
function extendsOf(text: string): string[] {
  const match = /"extends"\s*:\s*("(?:[^"\\]|\\.)*"|\[[^\]]*\])/.exec(text);
  if (!match) return [];
  try {
    const value = JSON.parse(match[1]!) as unknown;
    return (Array.isArray(value) ? value : [value]).filter(
      (entry): entry is string => typeof entry === "string",
    );
  } catch {
    return [match[1]!];
  }
}

function resolveExtends(from: string, specifier: string): string | undefined {
  if (specifier.startsWith(".") || specifier.startsWith("/")) {
    const path = resolve(dirname(from), specifier);
    return path.endsWith(".json") ? path : `${path}.json`;
  }
  const require = createRequire(from);
  for (const candidate of [specifier, `${specifier}/tsconfig.json`, `${specifier}.json`]) {
    try {
      return require.resolve(candidate);
    } catch {
      // try the next form
    }
  }
  return undefined;
}

const tsconfigTexts = new Map<string, string>();
/**
 * The text of the tsconfig.json ts-jest reads for `rootDir` (the nearest one at or above
 * it, as TypeScript finds it) and of every file it extends.
 */
function tsconfigText(rootDir: string): string {
  let cached = tsconfigTexts.get(rootDir);
  if (cached !== undefined) return cached;
  const parts: string[] = [];
  let found: string | undefined;
  for (let dir = resolve(rootDir); ; dir = dirname(dir)) {
    if (read(join(dir, "tsconfig.json")) !== undefined) {
      found = join(dir, "tsconfig.json");
      break;
    }
    if (dirname(dir) === dir) break;
  }
  const queue = found ? [found] : [];
  const seen = new Set<string>();
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = read(file);
    parts.push(`${file}\n${text ?? "(unreadable)"}`);
    if (text === undefined) continue;
    for (const specifier of extendsOf(text)) {
      const next = resolveExtends(file, specifier);
      if (next) queue.push(next);
      else parts.push(`(unresolved extends ${specifier})`);
    }
  }
  cached = parts.join("\n\0");
  tsconfigTexts.set(rootDir, cached);
  return cached;
}

/** Creates the transform for one `transform` entry; `options` go to ts-jest unchanged. */
function createTransformer(options: unknown): Transformer & {
  getCacheKey(source: string, path: string, transformOptions: TransformOptions): string;
} {
  let tsJest: Transformer | undefined;
  const compiler = (): Transformer => {
    tsJest ??= (
      createRequire(__filename)("ts-jest") as {
        default: { createTransformer(options: unknown): Transformer };
      }
    ).default.createTransformer(options);
    return tsJest;
  };
  const settings = JSON.stringify(options ?? null);
  return {
    getCacheKey(source, path, transformOptions) {
      return createHash("sha1")
        .update(RECIPE)
        .update("\0")
        .update(compilerVersions())
        .update("\0")
        .update(settings)
        .update("\0")
        .update(transformOptions.configString)
        .update("\0")
        .update(tsconfigText(transformOptions.config.rootDir))
        .update("\0")
        .update(`instrument:${transformOptions.instrument === true}`)
        .update(`esm:${transformOptions.supportsStaticESM === true}`)
        .update("\0")
        .update(path)
        .update("\0")
        .update(source)
        .digest("hex");
    },
    process: (source, path, transformOptions) => compiler().process(source, path, transformOptions),
    processAsync: (source, path, transformOptions) => {
      const transformer = compiler();
      return transformer.processAsync
        ? transformer.processAsync(source, path, transformOptions)
        : Promise.resolve(transformer.process(source, path, transformOptions));
    },
  };
}

/** Jest's transformer factory: `transform: { "^.+\\.tsx?$": [this file, ts-jest options] }`. */
const transform = { createTransformer };

export = transform;
