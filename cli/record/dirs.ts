/**
 * Folders a command creates (the report folder, compare's --markdown, merge's --out), made without
 * Node's recursive mkdir: on some file systems (/proc, where mkdir answers ENOENT for a parent that
 * exists) it loops forever at full CPU, in a call that no signal handler can interrupt. Here the
 * missing folders are made one at a time, a bounded walk, and any refusal is an error that names
 * the folder.
 */
import { mkdirSync, mkdtempSync, rmdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** What stat says of a path, or undefined when nothing is there (a file on the way counts as nothing). */
function statOf(at: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(at);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}

/** The folder and each missing folder above it, created one by one; throws what mkdir throws. */
export function makeDirs(dir: string): void {
  const missing: string[] = [];
  let at = path.resolve(dir);
  for (;;) {
    // A file where a folder should be: mkdir below says ENOTDIR, naming the folder.
    if (statOf(at) !== undefined) break;
    missing.push(at);
    const parent = path.dirname(at);
    if (parent === at) break;
    at = parent;
  }
  for (const folder of missing.reverse()) {
    try {
      mkdirSync(folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/**
 * Why `dir` could not be created, or undefined when it can: the nearest folder above it that exists
 * must be a folder that takes a new one (checked by creating an empty folder there and removing it
 * at once). Nothing is left behind.
 */
export function whyNotCreatable(dir: string): string | undefined {
  let at = path.dirname(path.resolve(dir));
  for (;;) {
    const stat = statOf(at);
    if (stat !== undefined) {
      if (!stat.isDirectory()) return `${at} is not a folder`;
      break;
    }
    const parent = path.dirname(at);
    if (parent === at) return `no folder above it exists`;
    at = parent;
  }
  let probe: string;
  try {
    probe = mkdtempSync(path.join(at, '.petstore-conformance-'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return `${at} does not take new folders (${code ?? (error as Error).message})`;
  }
  rmdirSync(probe);
  return undefined;
}
