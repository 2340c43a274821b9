/**
 * The answers of the service: JSON, and errors as RFC 9457 problem details. The service document
 * shows no error body ("Error status codes, error body shape and error codes: not shown"), so an
 * error is the plainest problem, built here and nowhere else: type, title, status and a detail.
 */
import { type OutgoingHttpHeaders, type ServerResponse, STATUS_CODES } from 'node:http';

/** Answers with a JSON body (ANY-JSON-CONTENT-TYPE). HEAD requests get the headers only (node:http). */
export function sendJson(res: ServerResponse, status: number, json: string, headers?: OutgoingHttpHeaders) {
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(json),
  });
  res.end(json);
}

/**
 * Answers an error as application/problem+json (ANY-ERROR-JSON): `detail` says what was wrong, where
 * the status's reason phrase (the title) and the headers do not say it all.
 */
export function sendProblem(
  res: ServerResponse,
  status: number,
  detail?: string,
  headers?: OutgoingHttpHeaders,
) {
  const body = problemJson(status, detail);
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/problem+json',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}

/**
 * The body of an RFC 9457 problem: the status and its reason phrase as the title, and what went
 * wrong. No `type` member: absent, it is about:blank (RFC 9457 §3.1.1), a problem that the status
 * says all about.
 */
export function problemJson(status: number, detail?: string): string {
  // Stryker disable next-line ObjectLiteral: the members of an error body: the service document shows none (unspecified error-codes)
  return JSON.stringify({ title: STATUS_CODES[status], status, detail });
}
