import { STATUS_CODES } from 'node:http';
import type { Status } from 'allure-js-commons';
import type {
  RuntimeAttachmentContentMessage,
  RuntimeMessage,
  RuntimeMetadataMessage,
  RuntimeStartStepMessage,
  RuntimeStopStepMessage,
} from 'allure-js-commons/sdk';
import type { Requirement } from '../../catalog/catalog.ts';
import type { ExchangeRecord } from './exchange.ts';
import { redact } from './redact.ts';

/**
 * What the Allure report shows of a check, as allure-js-commons' runtime messages: its requirement's
 * labels, its notes, and its last exchanges. They are made on the main thread, by the reporter
 * (suites/reporter.ts), from what the check left in its task's meta (requirementId, case, notes,
 * evidence), and not in the worker through allure-vitest's runtime: that runtime keeps each
 * concurrent test's context in an AsyncLocalStorage, whose hooks run on every promise of every
 * check, and its messages are written, encoded and copied while the checks keep the worker busy
 * (about a sixth of a default run's time, docs/benchmarks.md).
 */

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

/** A check's requirement as labels: id, severity from the level, operation, source and RFC links. */
export function requirementMessages(r: Requirement, caseLabel?: string): RuntimeMetadataMessage[] {
  const metadata = (data: RuntimeMetadataMessage['data']): RuntimeMetadataMessage => ({
    type: 'metadata',
    data,
  });
  const label = (name: string, value: string) => metadata({ labels: [{ name, value }] });
  const description = [
    `**${r.id}** (${r.level}, ${r.basis}): ${r.title}`,
    '',
    `> ${r.source.text.trim().split('\n').join('\n> ')}`,
    '',
    `spec/service.md, section "${r.source.section}"`,
    ...(r.rationale ? ['', r.rationale] : []),
  ].join('\n');
  return [
    label('requirement', r.id),
    label('level', r.level),
    label('severity', SEVERITY[r.level]),
    label('epic', r.operation),
    label('feature', `${r.id} ${r.title}`),
    ...(caseLabel ? [metadata({ parameters: [{ name: 'case', value: caseLabel }] })] : []),
    metadata({ description }),
    ...rfcLinks(r.rationale ?? '').map((link) => metadata({ links: [{ url: link.url, name: link.name }] })),
  ];
}

/** How many of a check's last exchanges its report shows: a failed check's, a passed check's. */
export const FAILED_EVIDENCE = 10;
export const PASSED_EVIDENCE = 2;

/**
 * A check's exchanges as attachments, in the order sent, that read as HTTP (request line or status
 * line, headers, the body indented when it is JSON, sizes), at `at` (ms since the epoch). A failed
 * check's request and response are two attachments each, each in a step of its own; a passed
 * check's exchanges are one attachment, request after response after request (`together`): each
 * attachment is a file of the report, and a file costs a run more than its bytes (about 0.85 ms of
 * the machine's time each; a passed run wrote some 270 of them). The records are masked already;
 * the text is masked again for safety.
 */
export function evidenceMessages(
  exchanges: readonly ExchangeRecord[],
  at: number,
  together = false,
): RuntimeAttachmentContentMessage[] {
  const attachment = (name: string, text: string): RuntimeAttachmentContentMessage => ({
    type: 'attachment_content',
    data: {
      name,
      // As text: base64 would be encoded here only to be decoded by Allure's runtime.
      content: redact(text),
      encoding: 'utf8',
      contentType: 'text/plain',
      wrapInStep: true,
      timestamp: at,
    },
  });
  if (together && exchanges.length > 0) {
    const titles = exchanges.map((x) => `${requestTitle(x)} → ${responseTitle(x)}`);
    const name =
      exchanges.length > 1
        ? `last ${exchanges.length} exchanges: ${titles.join('; ')}`
        : `exchange: ${titles[0]}`;
    const text = exchanges
      .map((x, i) => {
        const heading = exchanges.length > 1 ? `── ${i + 1}/${exchanges.length} ──\n` : '';
        return `${heading}${formatRequest(x)}\n\n${formatResponse(x)}`;
      })
      .join('\n\n');
    return [attachment(name, text)];
  }
  return exchanges.flatMap((x, i) => {
    const n = exchanges.length > 1 ? ` ${i + 1}/${exchanges.length}` : '';
    return [
      attachment(`request${n}: ${requestTitle(x)}`, formatRequest(x)),
      attachment(`response${n}: ${responseTitle(x)}`, formatResponse(x)),
    ];
  });
}

/**
 * A check's notes (what it observed: how many requests its generated sequences sent), masked in the
 * worker, each a passed step at `at`.
 */
export function noteMessages(notes: readonly string[], at: number): RuntimeMessage[] {
  return notes.flatMap((note): [RuntimeStartStepMessage, RuntimeStopStepMessage] => [
    { type: 'step_start', data: { name: note, start: at } },
    { type: 'step_stop', data: { stop: at, status: 'passed' as Status } },
  ]);
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
 * it goes. Undefined when the text does not start as a JSON object or array. One pass, strings and
 * other tokens copied whole: a list of a hundred pets is indented as fast as it is read.
 */
export function indentJson(text: string): string | undefined {
  const source = text.trim();
  if (!/^[[{]/.test(source)) return undefined;
  const out: string[] = [];
  const n = source.length;
  let depth = 0;
  const newline = () => `\n${'  '.repeat(depth)}`;
  let i = 0;
  while (i < n) {
    const c = source.charCodeAt(i);
    if (c === QUOTE) {
      // A string, escapes and all, to its closing quote (or to the end of a cut body).
      let j = i + 1;
      while (j < n && source.charCodeAt(j) !== QUOTE) j += source.charCodeAt(j) === BACKSLASH ? 2 : 1;
      out.push(source.slice(i, j + 1));
      i = j + 1;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      // An empty object or array stays on one line.
      const close = c === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY;
      let next = i + 1;
      while (next < n && isSpace(source.charCodeAt(next))) next++;
      if (source.charCodeAt(next) === close) {
        out.push(String.fromCharCode(c, close));
        i = next + 1;
        continue;
      }
      depth++;
      out.push(source[i] + newline());
      i++;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth = Math.max(0, depth - 1);
      out.push(newline() + source[i]);
      i++;
    } else if (c === COMMA) {
      out.push(`,${newline()}`);
      i++;
    } else if (c === COLON) {
      out.push(': ');
      i++;
    } else if (isSpace(c)) {
      i++;
    } else {
      // A number or a literal: up to the next character that ends it.
      let j = i + 1;
      while (j < n && !isDelimiter(source.charCodeAt(j))) j++;
      out.push(source.slice(i, j));
      i = j;
    }
  }
  return out.join('');
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/** White space as JavaScript's \s has it, the JSON four first. */
function isSpace(c: number): boolean {
  return (
    c === 0x20 ||
    c === 0x0a ||
    c === 0x0d ||
    c === 0x09 ||
    (c >= 0x0b && c <= 0x0c) ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

function isDelimiter(c: number): boolean {
  return (
    c === QUOTE ||
    c === OPEN_OBJECT ||
    c === CLOSE_OBJECT ||
    c === OPEN_ARRAY ||
    c === CLOSE_ARRAY ||
    c === COMMA ||
    c === COLON ||
    isSpace(c)
  );
}
