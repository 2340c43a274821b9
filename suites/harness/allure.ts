import { STATUS_CODES } from 'node:http';
import * as allure from 'allure-js-commons';
import type { Requirement } from '../../catalog/catalog.ts';
import type { ExchangeRecord } from './exchange.ts';
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

/** How many of a check's last exchanges its report shows: a failed check's, a passed check's. */
export const FAILED_EVIDENCE = 10;
export const PASSED_EVIDENCE = 2;

/**
 * Attaches the exchanges of a check, in the order sent: for each, the request and the response as
 * two text attachments that read as HTTP (request line or status line, headers, the body indented
 * when it is JSON, sizes). The records are masked already; the text is masked again for safety.
 */
export async function attachExchanges(exchanges: readonly ExchangeRecord[]): Promise<void> {
  if (!active() || exchanges.length === 0) return;
  for (const [i, x] of exchanges.entries()) {
    const n = exchanges.length > 1 ? ` ${i + 1}/${exchanges.length}` : '';
    await allure.attachment(`request${n}: ${requestTitle(x)}`, redact(formatRequest(x)), 'text/plain');
    await allure.attachment(`response${n}: ${responseTitle(x)}`, redact(formatResponse(x)), 'text/plain');
  }
}

/** "GET /v1/pets?limit=101": the method and the URL without its scheme and host. */
export function requestTitle(x: ExchangeRecord): string {
  return `${x.method} ${x.url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '') || '/'}`;
}

/** "200 OK · 9031 bytes · 12 ms", or "no response · timeout after 5000 ms". */
export function responseTitle(x: ExchangeRecord): string {
  if (x.status === undefined) return `no response · ${x.error ?? 'unknown error'} · after ${x.durationMs} ms`;
  const parts = [statusLine(x.status)];
  if (x.responseBytes !== undefined) parts.push(sizeOf(x.responseBytes, x.truncated));
  parts.push(`${x.durationMs} ms`);
  return parts.join(' · ');
}

/** The request as sent: request line, headers, body (indented when JSON) and its size. */
export function formatRequest(x: ExchangeRecord): string {
  const lines = [`${x.method} ${x.url}`];
  for (const [k, v] of Object.entries(x.requestHeaders)) lines.push(`${k}: ${v}`);
  lines.push('');
  if (x.requestBody === undefined) lines.push('(no body)');
  else lines.push(bodyText(x.requestBody, x.requestHeaders), '', `body: ${sizeOf(x.requestBytes ?? 0)}`);
  return lines.join('\n');
}

/** The response as received: status line, headers, body (indented when JSON) and its size; or why none came. */
export function formatResponse(x: ExchangeRecord): string {
  if (x.status === undefined) {
    return `(no response: ${x.error ?? 'unknown error'}) after ${x.durationMs} ms`;
  }
  const lines = [
    `HTTP ${statusLine(x.status)}  (${x.durationMs} ms${x.retries ? `, after ${x.retries} 429 retries` : ''})`,
  ];
  const headers = x.responseHeaders ?? {};
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  lines.push('');
  if (!x.responseBody) lines.push('(no body)');
  else
    lines.push(bodyText(x.responseBody, headers), '', `body: ${sizeOf(x.responseBytes ?? 0, x.truncated)}`);
  if (x.error) lines.push(`then: ${x.error}`);
  return lines.join('\n');
}

function statusLine(status: number): string {
  const reason = STATUS_CODES[status];
  return reason ? `${status} ${reason}` : String(status);
}

/** "57 bytes", "9050 bytes (8.8 KiB)". */
function sizeOf(bytes: number, truncated?: boolean): string {
  const size = bytes < 1024 ? `${bytes} bytes` : `${bytes} bytes (${kib(bytes)})`;
  return truncated ? `${size}, reading stopped at the size cap` : size;
}

function kib(bytes: number): string {
  return bytes >= 1024 * 1024
    ? `${(bytes / 1024 / 1024).toFixed(1)} MiB`
    : `${(bytes / 1024).toFixed(1)} KiB`;
}

/** The note excerpt() adds to a body it cut: "… (cut at 4 KiB of 9031 bytes)". */
const CUT_NOTE = /… \(cut at [^()]+ of [^()]+\)$/;

/** A body excerpt, indented when it is JSON (even cut), with the cut note on a line of its own. */
function bodyText(excerpt: string, headers: Readonly<Record<string, string>>): string {
  const note = CUT_NOTE.exec(excerpt);
  const body = note ? excerpt.slice(0, note.index) : excerpt;
  const type = Object.entries(headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? '';
  const json = /\bjson\b|\+json/i.test(type) || /^\s*[[{]/.test(body) ? indentJson(body) : undefined;
  return `${json ?? body}${note ? `\n${note[0]}` : ''}`;
}

/**
 * JSON text re-indented by two spaces, token for token: numbers, strings and escapes are kept as
 * written (no parse, so no int64 loses digits), and a body cut in the middle is indented as far as
 * it goes. Undefined when the text does not start as a JSON object or array.
 */
export function indentJson(text: string): string | undefined {
  const source = text.trim();
  if (!/^[[{]/.test(source)) return undefined;
  let out = '';
  let depth = 0;
  let inString = false;
  const newline = () => `\n${'  '.repeat(depth)}`;
  for (let i = 0; i < source.length; i++) {
    const c = source[i] as string;
    if (inString) {
      out += c;
      if (c === '\\') out += source[++i] ?? '';
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '{' || c === '[') {
      // An empty object or array stays on one line.
      const close = c === '{' ? '}' : ']';
      const next = source.slice(i + 1).trimStart()[0];
      if (next === close) {
        out += `${c}${close}`;
        i = source.indexOf(close, i + 1);
        continue;
      }
      depth++;
      out += c + newline();
    } else if (c === '}' || c === ']') {
      depth = Math.max(0, depth - 1);
      out += newline() + c;
    } else if (c === ',') {
      out += c + newline();
    } else if (c === ':') {
      out += ': ';
    } else if (!/\s/.test(c)) {
      out += c;
    }
  }
  return out;
}
