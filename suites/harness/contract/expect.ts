import { bodyExcerpt, bodyInline, formatBytes } from '../evidence/body.ts';
import { ConformanceError } from '../evidence/errors.ts';
import { parseBody } from '../evidence/json.ts';
import type { ApiResponse } from '../http/client.ts';
import { type Contract, formatIssues } from './contract.ts';

/**
 * Checks on one response. Each throws a ConformanceError carrying what was expected, what came back
 * (status and a short account of the body) and the curl line of the request; none returns silently
 * on a response it could not judge.
 */

/** A parsed JSON body: `value` as JSON.parse reads it, `exact` with numbers kept digit for digit. */
export interface JsonBody<T = unknown> {
  readonly value: T;
  readonly exact: unknown;
}

/** Throws a ConformanceError about a response: what was expected, and what came back. */
export function fail(res: ApiResponse, expected: string, received = describeResponse(res)): never {
  throw new ConformanceError({ expected, received, reproduce: res.reproduce, exchanges: [res.exchange] });
}

/** "200, JSON array of 100 items", "201, empty body", "500, text/html body of 12 bytes: <h1>oops</h1>". */
export function describeResponse(res: ApiResponse): string {
  const retried = res.retries
    ? `, after ${res.retries} refusal${res.retries > 1 ? 's' : ''} (429, 503) waited out`
    : '';
  return `${res.status}, ${describeBody(res)}${retried}`;
}

/**
 * A short account of a body: its JSON shape and its first 200 bytes as they came, or its media type
 * and its first bytes quoted (body.ts: masked, cut where it says).
 */
export function describeBody(res: ApiResponse): string {
  if (res.truncated) {
    return `a body that exceeded ${formatBytes(res.body.length)} (reading stopped there), starting ${bodyInline(bodyExcerpt(res.body, 120), { quoted: true })}`;
  }
  if (res.body.length === 0) return 'empty body';
  const type = res.headers['content-type'];
  const shown = bodyExcerpt(res.body, 200);
  try {
    const value: unknown = JSON.parse(res.text);
    const label = type && !isJsonMediaType(type) ? ` labelled ${type}` : '';
    if (Array.isArray(value))
      return `JSON array of ${value.length} item${value.length === 1 ? '' : 's'}${label}: ${bodyInline(shown)}`;
    if (value && typeof value === 'object') return `JSON object${label} ${bodyInline(shown)}`;
    return `JSON ${value === null ? 'null' : typeof value}${label} ${bodyInline(shown)}`;
  } catch {
    return `${type ?? 'no Content-Type'} body of ${res.body.length} bytes that is not JSON: ${bodyInline(shown, { quoted: true })}`;
  }
}

/** Whether a Content-Type is JSON: application/json or any +json type, parameters allowed (RFC 9110 §8.3.1). */
export function isJsonMediaType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const essence = contentType.split(';')[0]!.trim().toLowerCase();
  return essence === 'application/json' || /^application\/[\w.!#$&^-]+\+json$/.test(essence);
}

/** Whether a Content-Type is exactly application/json (parameters such as charset allowed). */
export function isApplicationJson(contentType: string | undefined): boolean {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase() === 'application/json';
}

/** "status 200", "status 400–499", "status 400 or 404". */
export function describeStatuses(statuses: readonly number[] | { min: number; max: number }): string {
  if (!Array.isArray(statuses)) {
    const { min, max } = statuses as { min: number; max: number };
    return `status ${min}–${max}`;
  }
  return `status ${statuses.length > 1 ? `${statuses.slice(0, -1).join(', ')} or ${statuses.at(-1)}` : statuses[0]}`;
}

/** The status is one of `statuses`. */
export function expectStatus(res: ApiResponse, ...statuses: number[]): void {
  if (!statuses.includes(res.status)) fail(res, describeStatuses(statuses));
}

/** The status lies in min–max, both included (400, 499 for "any 4xx"). */
export function expectStatusBetween(res: ApiResponse, min: number, max: number): void {
  if (res.status < min || res.status > max) fail(res, describeStatuses({ min, max }));
}

/** The status is not one of `statuses` (e.g. not 401 or 403). */
export function expectStatusNot(res: ApiResponse, statuses: readonly number[], expected: string): void {
  if (statuses.includes(res.status)) fail(res, expected);
}

/** The body parsed as JSON, twice: as JSON.parse reads it and without loss. Throws when it is not JSON. */
export function readJson<T = unknown>(res: ApiResponse, expected = 'a JSON body'): JsonBody<T> {
  if (res.truncated) fail(res, expected);
  if (res.body.length === 0) fail(res, expected);
  const parsed = parseBody(res.body, res.text);
  if (!parsed.ok && parsed.valueError)
    fail(res, expected, `${res.status}, ${describeBody(res)} (${parsed.valueError.message})`);
  if (!parsed.ok)
    fail(
      res,
      expected,
      `${res.status}, JSON that cannot be read without loss: ${parsed.exactError?.message}`,
    );
  return { value: parsed.value as T, exact: parsed.exact };
}

/** The body is a JSON array; returns it both ways. */
export function expectJsonArray(res: ApiResponse, expected = 'a JSON array'): JsonBody<unknown[]> {
  const body = readJson<unknown[]>(res, expected);
  if (!Array.isArray(body.value)) fail(res, expected);
  return body;
}

/** The body is a JSON object; returns it both ways. */
export function expectJsonObject(
  res: ApiResponse,
  expected = 'a JSON object',
): JsonBody<Record<string, unknown>> {
  const body = readJson<Record<string, unknown>>(res, expected);
  if (!body.value || typeof body.value !== 'object' || Array.isArray(body.value)) fail(res, expected);
  return body;
}

/** The response is labelled application/json (charset and other parameters allowed). */
export function expectApplicationJson(res: ApiResponse, what = 'Content-Type application/json'): void {
  const type = res.headers['content-type'];
  if (!isApplicationJson(type))
    fail(
      res,
      what,
      `${res.status} with ${type ? `Content-Type ${type}` : 'no Content-Type'}, ${describeBody(res)}`,
    );
}

/**
 * The body matches the schema the contract documents for this operation and status; ints checked
 * to int64 exactly. The message names the operation, the JSON pointer, the shape expected there and
 * what was found. Returns the body both ways.
 */
export function expectSchema(contract: Contract, res: ApiResponse, operationId: string): JsonBody {
  const schema = contract.responseSchema(operationId, res.status);
  if (!schema) fail(res, `a status for which ${operationId} documents a body schema`);
  const shape = contract.describe(schema);
  const expected = `the ${operationId} ${res.status} body to match ${shape}`;
  const body = readJson(res, expected);
  const issues = contract.validate(schema, body.value, body.exact);
  if (issues.length > 0) {
    fail(
      res,
      expected,
      `${res.status}, ${formatIssues(issues)}; body: ${bodyInline(bodyExcerpt(res.body, 300))}`,
    );
  }
  return body;
}
