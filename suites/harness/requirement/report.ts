/**
 * What a check's Allure result shows, recorded from inside its test through allure-js-commons'
 * runtime API, which allure-vitest's reporter writes into allure-results/ (in a run of the CLI and
 * in a plain `vitest run --config suites/vitest.config.ts` alike). requirement.ts calls it twice:
 *
 * - as the test starts (reportRequirement): its requirement as labels (requirement, level,
 *   severity, operation, basis, whether a failure of it gates), the catalog's quote as its
 *   description, links to the service document's section and to the RFCs it cites, and the row of
 *   its table as a parameter;
 * - as the check ends (reportEnding): its notes as steps, what it saw that breaks other requirements
 *   as failed steps (the CLI's roll-up judges those), and its last exchanges as attachments that
 *   read as HTTP.
 *
 * Everything recorded here was masked where it entered the run (evidence/redact.ts): the exchanges
 * as they were recorded, the notes and findings as the check kept them. The checks themselves call
 * no Allure API.
 */
import { pathToFileURL } from 'node:url';
import * as allure from 'allure-js-commons';
import type { TaskMeta } from 'vitest';
import type { Requirement } from '../../../catalog/catalog.ts';
import { specFiles } from '../../../catalog/paths.ts';
import type { Config } from '../config/config.ts';
import type { Contract } from '../contract/contract.ts';
import {
  type ExchangeRecord,
  formatRequest,
  formatResponse,
  requestTitle,
  responseTitle,
} from '../evidence/exchange.ts';
import type { Client } from '../http/client.ts';
import { type Ending, SkipCheck } from './outcome.ts';

/** How many of a failed (or blocked) check's last exchanges its result attaches. */
export const FAILED_EVIDENCE = 10;

/** Allure's severity of each level. */
const SEVERITY = { MUST: 'critical', SHOULD: 'normal', MAY: 'minor' } as const;

/** A requirement's labels, description, links and its row's case, as its test starts. */
export async function reportRequirement(
  r: Requirement,
  caseLabel: string | undefined,
  config: Config,
  contract: Contract,
): Promise<void> {
  await allure.labels(...requirementLabels(r, config, contract));
  await allure.description(describeRequirement(r));
  await allure.links(sectionLink(r), ...rfcLinks(r.rationale ?? '').map((l) => ({ ...l, type: 'link' })));
  if (caseLabel !== undefined) await allure.parameter('case', caseLabel);
}

/**
 * What a check that threw `thrown` (undefined: it passed) and ended as `ending` leaves in its result,
 * besides its status: what it saw that breaks other requirements (from its meta, outcome.ts), the last
 * exchanges of a check that failed or was blocked (its client's records, masked), and a tag when it
 * was blocked or passed only after retries. Its notes were recorded as it made them (requirement.ts).
 *
 * A passed check attaches no exchange (exchanges.har holds every one, tagged with its check): each
 * attachment is a file allure-vitest writes and syncs to disk as the run ends, and a passed run's
 * hundred-odd of them made it about a fifth longer (docs/benchmarks.md).
 */
export async function reportEnding(
  thrown: unknown,
  ending: Ending,
  meta: TaskMeta,
  api: Client,
): Promise<void> {
  if (meta.blockedBy) await allure.tag('blocked');
  if (ending.kind === 'passed' && meta.retried) await allure.tag('flaky');
  for (const seen of seenForOthers(meta)) await allure.logStep(seen, allure.Status.FAILED);
  // Nor does a check skipped for its own reason (SkipCheck): that is the data's, not an answer's.
  if (thrown === undefined || thrown instanceof SkipCheck) return;
  for (const { name, text } of evidenceAttachments(api.exchanges.slice(-FAILED_EVIDENCE)))
    await allure.attachment(name, text, allure.ContentType.TEXT);
}

/** The labels of a requirement's checks: the tree, the categories and the filters read them. */
export function requirementLabels(r: Requirement, config: Config, contract: Contract): allure.Label[] {
  const gates = r.level === 'MUST' || (r.level === 'SHOULD' && config.strict);
  return [
    { name: 'operation', value: operationGroup(r, contract) },
    { name: 'requirement', value: r.id },
    // The tree's second level: the requirement, named as a reader knows it.
    { name: 'story', value: `${r.id} (${r.level}) ${r.title}` },
    { name: 'level', value: r.level },
    { name: 'severity', value: SEVERITY[r.level] },
    { name: 'basis', value: r.basis },
    // Whether a failure of it decides the verdict: the categories sort failures by it.
    { name: 'gating', value: gates ? 'yes' : 'no' },
  ];
}

/**
 * The tree's first level: the operation ("GET /pets (listPets)"); requirements of any operation are
 * split by the topic their id starts with ("auth (any operation)"), ANY-* staying "any operation".
 */
export function operationGroup(r: Pick<Requirement, 'id' | 'operation'>, contract: Contract): string {
  if (r.operation !== 'any') {
    const op = contract.operation(r.operation);
    return `${op.method} ${op.path} (${r.operation})`;
  }
  const topic = r.id.split('-')[0]?.toLowerCase() ?? 'any';
  return topic === 'any' ? 'any operation' : `${topic} (any operation)`;
}

/** The catalog entry as Markdown: the quote, its section and basis, the reasoning. */
export function describeRequirement(r: Requirement): string {
  const basis = {
    quoted: 'quoted: the document says it',
    derived: 'derived: it follows from the document and HTTP',
    unspecified: `unspecified: the document is silent (${r.unspecified ?? 'see the catalog'}); the suite checks a tolerant reading`,
  }[r.basis];
  const lines = [
    `**${r.id}** · ${r.level}`,
    '',
    r.title,
    '',
    `> ${r.source.text.trim().split('\n').join('\n> ')}`,
    '',
    `spec/service.md, section "${r.source.section}" · basis ${basis}`,
  ];
  if (r.rationale) lines.push('', r.rationale);
  return lines.join('\n');
}

/** The section of spec/service.md the requirement quotes, in the package installed. */
export function sectionLink(r: Requirement): allure.Link {
  const heading = r.source.section.split(' > ').at(-1) ?? r.source.section;
  const anchor = heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} -]/gu, '')
    .replace(/ /g, '-');
  return {
    name: `spec/service.md: ${r.source.section}`,
    url: `${pathToFileURL(specFiles.service).href}#${anchor}`,
    type: 'link',
  };
}

/** https links for every "RFC 9110 §15.5" a text cites. */
export function rfcLinks(text: string): { url: string; name: string }[] {
  const links = new Map<string, string>();
  for (const m of text.matchAll(/RFC (\d{3,5})(?: §([\d.]+\d))?/g)) {
    const [name, rfc, section] = m;
    links.set(name, `https://www.rfc-editor.org/rfc/rfc${rfc}.html${section ? `#section-${section}` : ''}`);
  }
  return [...links].map(([name, url]) => ({ name, url }));
}

/**
 * What a check saw that breaks other requirements' rules: the roll-up fails those requirements on
 * them (ANY-NO-5XX on a 5xx, ANY-RESPONSE-TIME on a slow answer, the model's findings), whatever this
 * check's own verdict. Each as one line: the requirement, what was expected and received, the curl.
 */
export function seenForOthers(meta: TaskMeta): string[] {
  return [
    ...(meta.serverErrors ?? []).map(
      (e) => `seen for ANY-NO-5XX: ${e.method} ${e.url} answered ${e.status} · reproduce: ${e.reproduce}`,
    ),
    ...(meta.slowAnswers ?? []).map(
      (a) =>
        `seen for ANY-RESPONSE-TIME: ${a.method} ${a.url} answered ${a.status} after ${a.ms} ms (budget ${a.budgetMs} ms) · reproduce: ${a.reproduce}`,
    ),
    ...(meta.findings ?? []).map(
      (f) =>
        `seen for ${f.requirementId}: expected ${f.expected}; received ${f.received} · reproduce: ${f.reproduce}`,
    ),
  ];
}

/**
 * A check's exchanges as attachments, in the order sent, that read as HTTP (exchange.ts: request
 * line or status line, headers, the body as it came, its size): its request and its response, each an
 * attachment of its own.
 */
export function evidenceAttachments(exchanges: readonly ExchangeRecord[]): { name: string; text: string }[] {
  return exchanges.flatMap((x, i) => {
    const n = exchanges.length > 1 ? ` ${i + 1}/${exchanges.length}` : '';
    return [
      { name: `request${n}: ${requestTitle(x)}`, text: formatRequest(x) },
      { name: `response${n}: ${responseTitle(x)}`, text: formatResponse(x) },
    ];
  });
}
