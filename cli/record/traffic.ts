/**
 * What a run sent a deployment, counted from its exchange log (exchanges.har holds the same entries):
 * every request, those answered and those refused for now (429, 503: waited out and sent again, never
 * judged), and the creates the deployment answered 2xx, each a pet the run left behind (the service
 * has no delete). summary.json's `traffic`, the console's last lines and summary.md say it.
 */
import type { LoggedExchange } from './exchanges.ts';

export interface Traffic {
  /** Every request sent, each attempt counted (a 429 waited out and sent again is two). */
  readonly requests: number;
  /** Attempts answered, refusals aside: the answers the checks judged. */
  readonly answered: number;
  /** Attempts refused for now (429, 503), waited out and sent again. */
  readonly refused: number;
  /** Creates (POST /pets, createPets) answered 2xx: the pets this run left in the deployment. */
  readonly creates: number;
}

/** The operationId of a create (spec/openapi.yaml). */
const CREATE = 'createPets';

export function trafficOf(exchanges: readonly LoggedExchange[]): Traffic {
  let creates = 0;
  let answered = 0;
  let refused = 0;
  for (const x of exchanges) {
    const status = x.response?.status;
    if (x.resent === 'refused') refused++;
    else if (status !== undefined) answered++;
    if (x.operation?.operationId === CREATE && status !== undefined && status >= 200 && status <= 299)
      creates++;
  }
  return { requests: exchanges.length, answered, refused, creates };
}

/** "612 requests (40 refused for now), 171 pets created" for the console and summary.md. */
export function trafficText(traffic: Traffic): string {
  const refused = traffic.refused > 0 ? ` (${traffic.refused} refused for now, waited out)` : '';
  return `${traffic.requests} request${traffic.requests === 1 ? '' : 's'}${refused}, ${traffic.creates} pet${traffic.creates === 1 ? '' : 's'} created`;
}
