/** The answers of the service: JSON, and errors as RFC 9457 problem details. */
import { type OutgoingHttpHeaders, type ServerResponse, STATUS_CODES } from 'node:http';

/** One entry of a problem's `errors` member (RFC 9457 §3): what is wrong, and where. */
export interface FieldError {
  detail: string;
  /** A JSON Pointer into the request body, as a URI fragment (`#/status`). */
  pointer?: string;
  /** The query parameter at fault. */
  parameter?: string;
}

/** Answers with a JSON body (ANY-JSON-CONTENT-TYPE). HEAD requests get the headers only (node:http). */
export function sendJson(res: ServerResponse, status: number, json: string, headers?: OutgoingHttpHeaders) {
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(json),
  });
  res.end(json);
}

/** Answers an error as application/problem+json (ANY-ERROR-JSON). */
export function sendProblem(
  res: ServerResponse,
  status: number,
  detail: string,
  errors?: FieldError[],
  headers?: OutgoingHttpHeaders,
) {
  const body = problemJson(status, detail, errors);
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/problem+json',
    'Content-Length': Buffer.byteLength(body),
  });
  res.end(body);
}

/** 400 for a request that breaks the contract: each error says which field and how. */
export function invalid(res: ServerResponse, errors: FieldError[]) {
  sendProblem(res, 400, errors.map((error) => error.detail).join('; '), errors);
}

/** The body of an RFC 9457 problem: a plain type, the status and its reason, what went wrong, which fields. */
export function problemJson(status: number, detail: string, errors?: FieldError[]): string {
  const problem = { type: 'about:blank', title: STATUS_CODES[status] ?? 'Error', status, detail };
  return JSON.stringify(errors && errors.length > 0 ? { ...problem, errors } : problem);
}

/** Request text quoted in a message, cut to a readable length. */
export function excerpt(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}
