/**
 * When the checks of a run ran, for the reports that give a time per requirement (JUnit, CTRF): a
 * requirement's span runs from its first check's start to its last check's end, an operation's
 * covers its requirements'. The checks of a file run at the same time, so a sum of their durations
 * would outlast the run; a span never does, and every span lies within the run's own start and
 * duration (the record's startedAt and durationMs, which every report gives as the run's time).
 */
import type { RunRecord } from './record.ts';
import type { TestOutcome } from './results.ts';

/** From `start` to `end`, in milliseconds since the epoch. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

/** The run's own span: its startedAt, and its durationMs later. */
export function runSpan(record: Pick<RunRecord, 'startedAt' | 'durationMs'>): Span {
  const start = record.startedAt.getTime();
  return { start, end: start + record.durationMs };
}

/**
 * Each requirement's span, by id, from the outcomes of its checks that ran (those with a start),
 * kept within `run` (against a clock that stepped while the run ran).
 */
export function requirementSpans(outcomes: readonly TestOutcome[], run: Span): Map<string, Span> {
  const spans = new Map<string, Span>();
  for (const o of outcomes) {
    if (o.requirementId === undefined || o.startedAt === undefined) continue;
    const start = Math.min(Math.max(o.startedAt, run.start), run.end);
    const end = Math.min(Math.max(o.startedAt + o.durationMs, start), run.end);
    spans.set(o.requirementId, cover([spans.get(o.requirementId), { start, end }])!);
  }
  return spans;
}

/** The span that covers all of `spans`; undefined when none is given. */
export function cover(spans: readonly (Span | undefined)[]): Span | undefined {
  const given = spans.filter((s): s is Span => s !== undefined);
  if (given.length === 0) return undefined;
  return {
    start: Math.min(...given.map((s) => s.start)),
    end: Math.max(...given.map((s) => s.end)),
  };
}

/** A span's length in milliseconds; 0 for none. */
export function lengthOf(span: Span | undefined): number {
  return span === undefined ? 0 : span.end - span.start;
}
