/**
 * What the run prints while it runs: its first lines (the target, the seed, what is checked), then
 * one line per requirement as its checks finish.
 */
import type { Requirement } from '../../catalog/catalog.ts';
import { type Config, keyCarrier } from '../../suites/harness/config/config.ts';
import type { TestOutcome } from '../record/rollup.ts';
import { optionsText } from '../record/views.ts';
import { clipTo, type Paint } from './terminal.ts';

/** The lines printed before the suite starts. */
export function startLines(
  version: string,
  config: Config,
  targetFrom: string,
  selected: number,
  total: number,
  p: Paint,
): string[] {
  const key = config.apiKey ? `API key: set, sent in ${keyCarrier(config)}` : 'API key: none';
  const options = optionsText(config);
  return [
    p.bold(`petstore-conformance ${version}`),
    `target:  ${config.baseUrl} ${p.dim(`(${targetFrom})`)}`,
    `seed:    ${config.seed} ${p.dim('(reuse with --seed to reproduce)')}`,
    ...(config.traceId === undefined
      ? []
      : [
          `trace:   ${config.traceId} ${p.dim(`(the traceparent of every request${config.requestIdHeader === undefined ? '' : `; each exchange's id in ${config.requestIdHeader}`})`)}`,
        ]),
    `${key} · timeout ${config.timeoutMs} ms per request${options ? ` · ${options}` : ''}`,
    ...(config.rateLimit === undefined ? [] : [paceLine(config, selected, total)]),
    selected === total ? `checking ${total} requirements…` : `checking ${selected} of ${total} requirements…`,
    '',
  ];
}

/**
 * Requests a default run sends (every requirement selected, writes allowed), for the time a paced run
 * announces: test/cli/rate-limits.test.ts holds it within a quarter of what a run sends.
 */
export const DEFAULT_RUN_REQUESTS = 610;

/** "pace:    at most 50 requests a second (--rate-limit): about 610 requests, at least 13 s". */
export function paceLine(config: Pick<Config, 'rateLimit'>, selected: number, total: number): string {
  const requests = Math.round((DEFAULT_RUN_REQUESTS * selected) / Math.max(1, total));
  const seconds = Math.ceil(requests / (config.rateLimit ?? 1));
  return `pace:    at most ${config.rateLimit} requests a second (--rate-limit): about ${requests} requests, at least ${seconds} s`;
}

/** What a requirement's checks so far come to, as its progress line marks it. */
type Mark = 'failed' | 'blocked' | 'not judged' | 'passed' | 'skipped';

/**
 * Progress by requirement: one line when every check of a requirement collected so far has finished,
 * counted against the requirements selected, a total known before the first check runs. Each
 * requirement is counted once: the suite files are collected one after another, and a requirement
 * whose later file holds more of its checks (CREATE-PERSISTED's that create alone run in the second)
 * is not counted again; its line is printed again, with its first count, only when those checks
 * change its mark. A cause that keeps checks from being judged (a key not given, a full store) is
 * printed once, with the first requirement it keeps unjudged: the end of the run names it. Provisional:
 * the roll-up decides (a 5xx seen elsewhere still fails ANY-NO-5XX).
 */
export class Progress {
  private readonly expected = new Map<string, number>();
  private readonly finished = new Map<string, TestOutcome[]>();
  /** Each requirement counted so far: its count and the mark its line showed. */
  private readonly shown = new Map<string, { count: number; mark: Mark }>();
  /** The causes of checks not judged, by their message, already printed once. */
  private readonly causesShown = new Set<string>();
  private done = 0;

  constructor(
    private readonly selected: readonly Requirement[],
    private readonly p: Paint,
    private readonly width = 100,
  ) {}

  /** A suite file's tests were collected: how many checks each requirement has. */
  collected(requirementIds: readonly (string | undefined)[]): void {
    for (const id of requirementIds) if (id) this.expected.set(id, (this.expected.get(id) ?? 0) + 1);
  }

  /** A check finished; returns the line to print when it was its requirement's last. */
  outcome(o: TestOutcome): string | undefined {
    const r = this.selected.find((x) => x.id === o.requirementId);
    if (!r) return undefined;
    const list = [...(this.finished.get(r.id) ?? []), o];
    this.finished.set(r.id, list);
    if (list.length !== this.expected.get(r.id)) return undefined;
    const mark = markOf(list);
    const before = this.shown.get(r.id);
    if (before !== undefined && before.mark === mark) return undefined;
    const count = before?.count ?? ++this.done;
    this.shown.set(r.id, { count, mark });
    const unjudged = list.map(unjudgedOf).find((u) => u !== undefined);
    if (mark === 'not judged' && unjudged !== undefined) {
      if (this.causesShown.has(unjudged.message)) return undefined;
      this.causesShown.add(unjudged.message);
    }
    return this.line(r, list, mark, count);
  }

  private line(r: Requirement, list: readonly TestOutcome[], mark: Mark, count: number): string {
    const { p } = this;
    const total = String(this.selected.length);
    const counter = p.dim(`[${String(count).padStart(total.length)}/${total}]`);
    const head = `${r.id} ${r.title}`;
    const room = this.width - total.length * 2 - 6;
    switch (mark) {
      case 'failed':
        return `${counter} ${p.red('✗')} ${clipTo(head, room)}`;
      case 'blocked': {
        const by = [...new Set(list.flatMap((t) => t.blockedBy ?? []))].join(', ');
        return `${counter} ${p.yellow('◌')} ${clipTo(`${r.id} blocked by ${by}`, room)}`;
      }
      case 'not judged': {
        const message = list.map(unjudgedOf).find((u) => u !== undefined)?.message ?? '';
        return `${counter} ${p.yellow('◌')} ${clipTo(`${r.id} not judged: ${message}`, room)}`;
      }
      case 'passed':
        return `${counter} ${p.green('✓')} ${clipTo(head, room)}`;
      case 'skipped': {
        const why = [...new Set(list.map((t) => t.note ?? 'skipped'))].join('; ');
        return `${counter} ${p.dim(`- ${clipTo(`${r.id} skipped: ${why}`, room)}`)}`;
      }
    }
  }
}

/** The mark of a requirement's finished checks: a failure first, then a block, then a cause not judged. */
function markOf(list: readonly TestOutcome[]): Mark {
  if (list.some((t) => t.state === 'failed')) return 'failed';
  if (list.some((t) => t.blockedBy !== undefined)) return 'blocked';
  if (list.some((t) => unjudgedOf(t) !== undefined)) return 'not judged';
  if (list.some((t) => t.state === 'passed')) return 'passed';
  return 'skipped';
}

/** The cause a check was not judged for: a rate limit it could not wait out, or another (a key, a full store). */
function unjudgedOf(t: TestOutcome): { readonly message: string } | undefined {
  return t.rateLimited ?? t.notJudged;
}
