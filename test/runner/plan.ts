/**
 * What the runner needs to know of a test file before it runs it, read from a marker in the
 * file's header (the first 60 lines), so that the knowledge sits with the test:
 *
 * - `@test-kind pure`: no Elasticsearch, no Redis, no server, no child process, no change to
 *   process-wide state: the file runs with other pure files in one process (test/runner/batch.ts).
 * - `@test-lock <name>`: the file starts something heavy (Elasticsearch nodes, a Redis Cluster);
 *   of the files holding the same lock, one runs at a time across every lane of the run.
 *
 * Every other file runs alone in its own process, in its lane's namespace.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** How a file is run. */
export interface FilePlan {
  file: string;
  pure: boolean;
  /** The lock it takes, or null. */
  lock: string | null;
  /** It reads a shared data set (test/helpers/datasets.ts): the runner makes the files ready first. */
  datasets: boolean;
}

const HEADER_LINES = 60;
/** A marker starts a comment line (`// @test-kind pure`, ` * @test-lock es-nodes`): not text inside a string. */
const KIND = /^\s*(?:\/\/|\/?\*+)\s*@test-kind\s+([a-z0-9-]+)/m;
const LOCK = /^\s*(?:\/\/|\/?\*+)\s*@test-lock\s+([a-z0-9-]+)/m;

/** Reads the markers of one file (`root`-relative path). */
export async function planFile(root: string, file: string): Promise<FilePlan> {
  const text = await readFile(join(root, file), 'utf8');
  const head = text.split('\n').slice(0, HEADER_LINES).join('\n');
  const kind = KIND.exec(head)?.[1] ?? null;
  if (kind !== null && kind !== 'pure') throw new Error(`${file}: unknown @test-kind ${kind} (the only kind is "pure")`);
  const lock = LOCK.exec(head)?.[1] ?? null;
  if (kind === 'pure' && lock) throw new Error(`${file}: a pure file takes no lock`);
  return { file, pure: kind === 'pure', lock, datasets: /\buseDataset\(/.test(text) };
}

/** The plans of `files`, in their order. */
export function planFiles(root: string, files: string[]): Promise<FilePlan[]> {
  return Promise.all(files.map((f) => planFile(root, f)));
}
