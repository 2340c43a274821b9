/**
 * The run's first look: GET {base}/pets, once per run and base URL, sent as the first check starts.
 * A 404 there means the API is not served under the base URL (a wrong prefix), and a 401 or 403 that
 * the key is not let through. Every other check, when it ends, is then blocked by VERSION-V1-PREFIX
 * or AUTH-KEY-ACCEPTED instead of failing (or passing) on its own 404s or 401s. Any other answer, or
 * none, lets the checks judge for themselves. No check waits for it before sending.
 */
import type { Requirement } from '../../../catalog/catalog.ts';
import { type Config, keyCarrier } from '../config/config.ts';
import { type ExchangeLogSettings, exchangeSink } from '../evidence/exchange-log.ts';
import { type ApiResponse, Client } from '../http/client.ts';
import { blocked } from './blocked.ts';
import { NotJudged } from './not-judged.ts';

/** The requirement that judges whether the API is served under the base URL at all. */
export const PREFIX_ID = 'VERSION-V1-PREFIX';
/** The requirement that judges whether a request carrying the configured key is let through. */
const KEY_ID = 'AUTH-KEY-ACCEPTED';
/** Checks that send requests without the key, or with a wrong one, on purpose. */
const KEYLESS = new Set(['AUTH-MISSING-KEY-REFUSED', 'AUTH-WRONG-KEY-REFUSED']);

/** The check that sends the first look, as the exchange log names it. */
const FIRST_LOOK = 'first look: GET /pets, once before the checks (VERSION-V1-PREFIX, AUTH-KEY-ACCEPTED)';

/** The first look's answer (undefined when none came); sent by the first caller of the run. */
export function firstLook(
  config: Config,
  exchangeLog: ExchangeLogSettings | undefined,
): Promise<ApiResponse | undefined> {
  const key = Symbol.for('petstore-conformance.first-look');
  const holder = globalThis as { [key]?: Map<string, Promise<ApiResponse | undefined>> };
  holder[key] ??= new Map();
  const looks = holder[key];
  let look = looks.get(config.baseUrl);
  if (!look) {
    const log = exchangeSink(exchangeLog, config.baseUrl, { requirement: PREFIX_ID, check: FIRST_LOOK });
    look = new Client(config, log ? { log } : {})
      .get('/pets')
      .then((res) => res)
      .catch(() => undefined);
    looks.set(config.baseUrl, look);
  }
  return look;
}

/** Throws Blocked when the first look says the API is not there, or the key is not let through. */
export async function requireTheApi(
  r: Requirement,
  config: Config,
  exchangeLog: ExchangeLogSettings | undefined,
): Promise<void> {
  if (r.id === PREFIX_ID) return;
  const res = await firstLook(config, exchangeLog);
  if (res?.status === 404) {
    blocked(
      [PREFIX_ID],
      res,
      `the API served under ${config.baseUrl}`,
      `GET /pets answered 404: nothing is served under ${config.baseUrl}`,
    );
  }
  if ((res?.status === 401 || res?.status === 403) && !KEYLESS.has(r.id)) {
    // No key given: nothing the deployment answers says anything of its rules, and no requirement
    // judges a key the run does not have (AUTH-KEY-ACCEPTED needs one). The run cannot judge, and
    // says once what to give.
    if (!config.apiKey) throw new NotJudged('api-key', noKeyLine(res.status), res.reproduce);
    blocked(
      [KEY_ID],
      res,
      'a request carrying the configured key let through',
      `GET /pets answered ${res.status} to a request carrying the key in ${keyCarrier(config)}`,
    );
  }
}

/**
 * Rejects with NotJudged as soon as the first look says the deployment asks for a key the run was not
 * given; never settles otherwise. Raced against a check (requirement.ts), it ends the check at once:
 * nothing the check would send without the key could be judged, so it need not be sent.
 */
export function keyRefused(
  r: Requirement,
  config: Config,
  exchangeLog: ExchangeLogSettings | undefined,
): Promise<never> {
  if (config.apiKey || r.id === PREFIX_ID || KEYLESS.has(r.id)) return new Promise<never>(() => undefined);
  return firstLook(config, exchangeLog).then((res) => {
    if (res?.status === 401 || res?.status === 403)
      throw new NotJudged('api-key', noKeyLine(res.status), res.reproduce);
    return new Promise<never>(() => undefined);
  });
}

/** What a run without a key says of a deployment that asks for one. */
export function noKeyLine(status: number): string {
  return `the deployment answers ${status} to requests without a key (GET /pets answered ${status}): give --api-key (or PETSTORE_API_KEY)`;
}
