import * as allure from 'allure-js-commons';
import type { Requirement } from '../../spec/catalog.ts';
import { type ExchangeRecord, formatExchange } from './exchange.ts';
import { redact } from './redact.ts';

/**
 * Allure labels and attachments of a check. They are no-ops unless allure-vitest's setup file has
 * installed a test runtime (the CLI and suites/vitest.config.ts list it in setupFiles); without one,
 * allure-js-commons would print a warning per call, so nothing is called.
 */
function active(): boolean {
  // allure-js-commons keeps its runtime under this global (sdk/runtime: setGlobalTestRuntime).
  return typeof (globalThis as { allureTestRuntime?: unknown }).allureTestRuntime === 'function';
}

const SEVERITY = { MUST: 'critical', SHOULD: 'normal', MAY: 'minor' } as const;

/** https links for every "RFC 9110 §15.5" a text cites. */
export function rfcLinks(text: string): { url: string; name: string }[] {
  const links = new Map<string, string>();
  for (const m of text.matchAll(/RFC (\d{3,5})(?: §([\d.]+\d))?/g)) {
    const [name, rfc, section] = m;
    links.set(name, `https://www.rfc-editor.org/rfc/rfc${rfc}.html${section ? `#section-${section}` : ''}`);
  }
  return [...links].map(([name, url]) => ({ name, url }));
}

/** Labels a check with its requirement: id, severity from the level, operation, source and RFC links. */
export async function labelRequirement(r: Requirement, caseLabel?: string): Promise<void> {
  if (!active()) return;
  await allure.label('requirement', r.id);
  await allure.label('level', r.level);
  await allure.severity(SEVERITY[r.level]);
  await allure.epic(r.operation);
  await allure.feature(`${r.id} ${r.title}`);
  if (caseLabel) await allure.parameter('case', caseLabel);
  const description = [
    `**${r.id}** (${r.level}, ${r.basis}): ${r.title}`,
    '',
    `> ${r.source.text.trim().split('\n').join('\n> ')}`,
    '',
    `spec/service.md, section "${r.source.section}"`,
    ...(r.rationale ? ['', r.rationale] : []),
  ].join('\n');
  await allure.description(description);
  for (const link of rfcLinks(r.rationale ?? '')) await allure.link(link.url, link.name);
}

/** Attaches the exchanges of a failed check (already masked; masked again for safety). */
export async function attachExchanges(exchanges: readonly ExchangeRecord[]): Promise<void> {
  if (!active() || exchanges.length === 0) return;
  const text = exchanges.map(formatExchange).join('\n\n----\n\n');
  await allure.attachment('exchanges', redact(text), 'text/plain');
}
