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

/**
 * Progress by requirement: one line when every check of a requirement has finished, counted against
 * the requirements selected, a total known before the first check runs. Provisional: the roll-up
 * decides (a 5xx seen elsewhere still fails ANY-NO-5XX).
 */
export class Progress {
  private readonly expected = new Map<string, number>();
  private readonly finished = new Map<string, TestOutcome[]>();
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
    this.done += 1;
    const total = String(this.selected.length);
    const counter = this.p.dim(`[${String(this.done).padStart(total.length)}/${total}]`);
    const { p } = this;
    const failed = list.filter((t) => t.state === 'failed').length;
    const blocked = list.filter((t) => t.blockedBy !== undefined);
    const head = `${r.id} ${r.title}`;
    const room = this.width - total.length * 2 - 6;
    if (failed > 0) return `${counter} ${p.red('✗')} ${clipTo(head, room)}`;
    if (blocked.length > 0) {
      const by = [...new Set(blocked.flatMap((t) => t.blockedBy ?? []))].join(', ');
      return `${counter} ${p.yellow('◌')} ${clipTo(`${r.id} blocked by ${by}`, room)}`;
    }
    if (list.some((t) => t.state === 'passed')) return `${counter} ${p.green('✓')} ${clipTo(head, room)}`;
    const why = [...new Set(list.map((t) => t.note ?? 'skipped'))].join('; ');
    return `${counter} ${p.dim(`- ${clipTo(`${r.id} skipped: ${why}`, room)}`)}`;
  }
}
