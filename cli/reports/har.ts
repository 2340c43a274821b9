/**
 * exchanges.har: every exchange of the run as an HTTP Archive (HAR 1.2), for a browser's network
 * panel (open it in devtools), a HAR viewer or a bug report. Made from the run's exchange log
 * (record/exchanges.ts), masked there already and again on the way into the folder. Each entry names
 * the requirement and the check that sent it in the custom fields `_requirement` and `_check`
 * (HAR 1.2 lets custom fields start with "_"), and the operation in `_operation`.
 */
import { STATUS_CODES } from 'node:http';
import type { Entry, Har, Header, QueryString } from 'har-format';
import { formatBytes, keptBytes } from '../../suites/harness/evidence/body.ts';
import { parseTraceparent } from '../../suites/harness/http/trace.ts';
import { type LoggedBody, type LoggedExchange, operationName } from '../record/exchanges.ts';
import type { RunRecord } from '../record/record.ts';
import type { Writer } from './writer.ts';

export const HAR_FILE = 'exchanges.har';

/** exchanges.har, for every run that got as far as its checks (judged or not), unless --no-har. */
export const harFile: Writer = {
  name: HAR_FILE,
  write(record, { folder, har }) {
    if (har === false || folder === undefined || record.exchanges === undefined) return;
    folder.write(HAR_FILE, harText(record, record.exchanges));
  },
};

/** The HAR of a run's exchanges, as text. */
export function harText(
  record: Pick<RunRecord, 'version' | 'target' | 'config'>,
  exchanges: readonly LoggedExchange[],
): string {
  const har: Har = {
    log: {
      version: '1.2',
      creator: { name: 'petstore-conformance', version: record.version },
      pages: [],
      entries: exchanges.map(entryOf),
      comment: `petstore-conformance: every exchange of a run against ${record.target} (seed ${record.config.seed}); secrets masked as ***; _requirement and _check name what sent each, _traceId and _spanId the exchange in the deployment's traces.`,
    },
  };
  return `${JSON.stringify(har)}\n`;
}

/**
 * One exchange as a HAR entry. Name/value pairs are written value first: the redaction pass every
 * report file goes through masks the value after an "authorization" key, and a name first would
 * put the key "value" there.
 */
/** `_traceId` and `_spanId` of an exchange sent with a traceparent (suites/harness/http/trace.ts). */
function spanOf(x: LoggedExchange): { _traceId?: string; _spanId?: string } {
  const header = headerValue(x.request.headers, 'traceparent');
  const ids = header === undefined ? undefined : parseTraceparent(header);
  return ids === undefined ? {} : { _traceId: ids.traceId, _spanId: ids.spanId };
}

function entryOf(x: LoggedExchange): Entry {
  const url = new URL(x.request.url);
  const requestType = headerValue(x.request.headers, 'content-type');
  const response = x.response;
  const entry: Entry & Record<`_${string}`, unknown> = {
    startedDateTime: x.startedAt,
    time: Math.round((x.timings.blocked + x.timings.wait + x.timings.receive) * 100) / 100,
    request: {
      method: x.request.method,
      url: x.request.url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: pairs(x.request.headers),
      queryString: [...url.searchParams].map(([name, value]): QueryString => ({ value, name })),
      ...(x.request.body
        ? { postData: { mimeType: requestType ?? '', text: bodyText(x.request.body) } }
        : {}),
      headersSize: -1,
      bodySize: x.request.body?.size ?? 0,
      ...(x.request.body ? bodyNotes(x.request.body) : {}),
    },
    response: response
      ? {
          status: response.status,
          statusText: STATUS_CODES[response.status] ?? '',
          httpVersion: 'HTTP/1.1',
          cookies: [],
          headers: pairs(response.headers),
          content: {
            size: response.body?.size ?? 0,
            mimeType: headerValue(response.headers, 'content-type') ?? 'x-unknown',
            ...(response.body?.text === undefined ? {} : { text: response.body.text }),
            ...(response.body?.encoding ? { encoding: response.body.encoding } : {}),
            ...(response.body ? bodyNotes(response.body) : {}),
          },
          redirectURL: headerValue(response.headers, 'location') ?? '',
          headersSize: -1,
          bodySize: response.body?.size ?? 0,
          ...(response.truncated
            ? {
                _readStopped: true,
                comment: 'the body was longer than the client reads (1 MiB); reading stopped there',
              }
            : {}),
          ...(x.error === undefined ? {} : { _error: x.error }),
        }
      : // No status line came: as browsers export a request that failed (status 0, the error in _error).
        {
          status: 0,
          statusText: '',
          httpVersion: '',
          cookies: [],
          headers: [],
          content: { size: 0, mimeType: 'x-unknown' },
          redirectURL: '',
          headersSize: -1,
          bodySize: -1,
          _error: x.error ?? 'no response',
        },
    cache: {},
    timings: {
      blocked: x.timings.blocked,
      dns: -1,
      connect: -1,
      send: 0,
      wait: x.timings.wait,
      receive: x.timings.receive,
      ssl: -1,
    },
    _requirement: x.requirement,
    _check: x.check,
    _operation: operationName(x),
    // The exchange as the deployment's logs and traces know it: its span of the run's trace.
    ...spanOf(x),
    ...(x.retries ? { _retries: x.retries } : {}),
    // Sent again after it: refused for now, not taken by the deployment, its body unread, or spoiled.
    ...(x.resent === undefined ? {} : { _resent: x.resent }),
    ...(x.error === undefined ? {} : { comment: x.error }),
  };
  return entry;
}

/**
 * A body's text as HAR's postData holds it: as it came (suites/harness/evidence/body.ts, as every report
 * keeps a body), base64 for a body that is not UTF-8 text.
 */
function bodyText(body: LoggedBody): string {
  return body.text ?? '';
}

/** What HAR cannot say of a body in its own fields: that only its first bytes are kept, or none. */
function bodyNotes(body: LoggedBody): { comment?: string; _truncated?: true; _encoding?: 'base64' } {
  const kept = keptBytes(body);
  const notes: { comment?: string; _truncated?: true; _encoding?: 'base64' } = {};
  if (body.cut || (body.text === undefined && body.size > 0)) {
    notes._truncated = true;
    notes.comment = `truncated: the first ${formatBytes(kept)} of ${formatBytes(body.size)} kept`;
  }
  if (body.encoding === 'base64') notes._encoding = 'base64';
  return notes;
}

function pairs(headers: Readonly<Record<string, string>>): Header[] {
  return Object.entries(headers).map(([name, value]) => ({ value, name }));
}

function headerValue(headers: Readonly<Record<string, string>>, name: string): string | undefined {
  return Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1];
}
