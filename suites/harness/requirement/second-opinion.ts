/**
 * A 5xx is ANY-NO-5XX's to judge, whichever check met it (issue 35: a server that starts answering
 * every fifth request 500 after its 400th turned 12 requirements red). Whether it is also the fault
 * of the check that met it depends on whether it is that request's: a server that answers 500 to a
 * limit that is not an integer does so every time (LIST-LIMIT-NOT-INTEGER fails, and ANY-NO-5XX),
 * one that fails now and then does not. So a check that failed, or was blocked, on a 5xx sends that
 * same request again (twice at most): answered otherwise, the 5xx was not the request's, and the
 * check is blocked by ANY-NO-5XX, which fails on it; answered 5xx again, the check fails as it did.
 *
 * 503 is left out: it is the deployment's overload, which the run's pace meets (http/pace.ts).
 */
import type { ConformanceError } from '../evidence/errors.ts';
import { isBrokenMessage, isConformanceError } from '../evidence/errors.ts';
import type { ExchangeRecord } from '../evidence/exchange.ts';
import { MASK } from '../evidence/redact.ts';
import type { Client, RequestOptions } from '../http/client.ts';
import { Blocked, isBlocked } from './blocked.ts';

/** The requirement every 5xx fails. */
export const NO_5XX = 'ANY-NO-5XX';
/** How many times a request answered 5xx is sent again to see whether the 5xx is its own. */
const AGAIN = 2;

/** A 5xx that the same request, sent again, did not get: the deployment fails now and then. */
export interface ComeAndGo {
  readonly method: string;
  /** Masked. */
  readonly url: string;
  readonly status: number;
  /** What the same request got when sent again. */
  readonly again: number;
}

/**
 * A failure that another requirement's failure explains: the check that met it is reported blocked
 * by that requirement, with the failure as its evidence (outcome.ts).
 */
export class Explained extends Error {
  constructor(
    readonly by: readonly string[],
    readonly failure: ConformanceError,
    why: string,
  ) {
    super(`blocked by ${by.join(', ')}: ${failure.received} (${why})`);
    this.name = 'Explained';
  }
}

/** Whether a value is an Explained, also across module copies. */
export function isExplained(value: unknown): value is Explained {
  return (
    value instanceof Explained || (value instanceof Error && value.name === 'Explained' && 'failure' in value)
  );
}

/**
 * What a check ended with, once a 5xx it failed or was blocked on has been sent again (by `client()`,
 * made only then): blocked by ANY-NO-5XX when the same request was then answered otherwise
 * (`comeAndGo` says how), else as it was.
 */
export async function secondOpinion(
  client: () => Client,
  thrown: unknown,
): Promise<{ thrown: unknown; comeAndGo?: ComeAndGo }> {
  const met = fiveHundredOf(thrown);
  if (met === undefined) return { thrown };
  // A client of its own: what it sends is logged as the check's, but is not the check's evidence.
  const api = client();
  const resend = resendable(api, met);
  if (resend === undefined) return { thrown };
  for (let i = 0; i < AGAIN; i++) {
    const again = await api.request(met.method, resend.url, resend.options).catch(() => undefined);
    if (again === undefined || again.status >= 500) continue;
    const comeAndGo = { method: met.method, url: met.url, status: met.status!, again: again.status };
    const why = `sent again, the same request was answered ${again.status}: the ${met.status} was not this request's, and ${NO_5XX} judges it`;
    if (isBlocked(thrown))
      return { thrown: new Blocked([NO_5XX], thrown.needed, thrown.evidence, thrown.received), comeAndGo };
    return { thrown: new Explained([NO_5XX], thrown as ConformanceError, why), comeAndGo };
  }
  return { thrown };
}

/** The exchange a failure or a block ended on, when it was answered 5xx (but 503). */
function fiveHundredOf(thrown: unknown): ExchangeRecord | undefined {
  // An answer that is not a complete message is ANY-HTTP-MESSAGE's, whatever its status.
  if (isBrokenMessage(thrown)) return undefined;
  const exchange = isBlocked(thrown)
    ? thrown.evidence.exchange
    : isConformanceError(thrown)
      ? thrown.exchanges?.at(-1)
      : undefined;
  const status = exchange?.status;
  return status !== undefined && status >= 500 && status <= 599 && status !== 503 ? exchange : undefined;
}

/**
 * The same request as the client sends it again, the key where the run puts it: none when what was
 * kept of it cannot send it again as it was (a body cut, a path spelled so that a URL would resolve
 * it, the key masked in the URL where the run does not put it).
 */
function resendable(api: Client, x: ExchangeRecord): { url: string; options: RequestOptions } | undefined {
  if (x.requestBody?.cut) return undefined;
  const { apiKeyQuery } = api.config;
  let url = x.url;
  if (apiKeyQuery !== undefined) {
    const parsed = new URL(url);
    parsed.searchParams.delete(apiKeyQuery);
    url = parsed.toString();
  }
  const path = url.replace(/^https?:\/\/[^/]+/, '').split('?')[0] ?? '';
  if (url.includes(MASK) || /\/\.{1,2}(\/|$)|\/\//.test(path)) return undefined;
  const body = x.requestBody?.text;
  const type = Object.entries(x.requestHeaders).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
  return {
    url,
    options: {
      ...(body === undefined
        ? {}
        : { body: Buffer.from(body, x.requestBody?.encoding === 'base64' ? 'base64' : 'utf8') }),
      ...(type === undefined ? {} : { headers: { 'content-type': type } }),
    },
  };
}
