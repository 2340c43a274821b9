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
 * A check's exchanges as attachments, in the order sent: for each, the request and the response as
 * two text attachments that read as HTTP (request line or status line, headers, the body indented
 * when it is JSON, sizes), each in a step of its own, at `at` (ms since the epoch). The records are
 * masked already; the text is masked again for safety.
 */
export function evidenceMessages(
  exchanges: readonly ExchangeRecord[],
  at: number,
): RuntimeAttachmentContentMessage[] {
  const attachment = (name: string, text: string): RuntimeAttachmentContentMessage => ({
    type: 'attachment_content',
    data: {
      name,
      content: Buffer.from(redact(text)).toString('base64'),
      encoding: 'base64',
      contentType: 'text/plain',
      wrapInStep: true,
      timestamp: at,
    },
  });
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
