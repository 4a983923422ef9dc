/**
 * Reading a shard's blob for `merge-reports`: the file found, parsed, and checked field by
 * field against {@link blobSchema} before anything is merged. Kept apart from blob.ts so
 * the reporter, which only writes blobs, never loads the schema library.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { checkInput } from "@jest-m3/core/lean";
import { BLOB_FILE, BlobInvalid, type RunBlob } from "./blob.js";
import { blobSchema } from "./blob-schema.js";

/** Reads the blob of a run folder (or a blob file). */
export function readBlob(path: string): RunBlob {
  const absolute = resolve(path);
  const file =
    existsSync(absolute) && statSync(absolute).isDirectory() ? join(absolute, BLOB_FILE) : absolute;
  if (!existsSync(file)) {
    throw new BlobInvalid(
      `No blob at ${file}. Give the run folder each shard wrote (.m3/runs/<run-id>, with its ${BLOB_FILE}).`,
    );
  }
  let blob: unknown;
  try {
    blob = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new BlobInvalid(
      `${file} is not valid JSON (${(error as Error).message}): a blob cut short by an interrupted copy? Copy the run folder again.`,
    );
  }
  const head = (typeof blob === "object" && blob !== null ? blob : {}) as Partial<RunBlob>;
  if (head.kind !== "jest-m3-blob") {
    throw new BlobInvalid(`${file} is not a jest-m3 blob (no "kind": "jest-m3-blob").`);
  }
  if (head.schema !== 1) {
    throw new BlobInvalid(
      `${file} has blob schema ${String(head.schema)}; this jest-m3 reads schema 1. Merge with the jest-m3 version that ran the shards.`,
    );
  }
  // Every field, before anything is merged: a blob is another machine's file.
  return checkInput(
    blobSchema,
    blob,
    (problem) =>
      new BlobInvalid(
        `${file} is not a blob this jest-m3 can merge: ${problem.field} ${problem.problem} Merge the run folders the shards wrote, unchanged.`,
      ),
  );
}
