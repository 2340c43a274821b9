/**
 * What a run sent a deployment, counted from its exchange log (exchanges.har holds the same entries):
 * every request, and the creates the deployment answered 2xx, each a pet the run left behind (the
 * service has no delete). summary.json's `traffic`, the console's last lines and summary.md say it.
 */
import type { LoggedExchange } from './exchanges.ts';

export interface Traffic {
  /** Every request sent, each attempt counted (a 429 waited out and sent again is two). */
  readonly requests: number;
  /** Creates (POST /pets, createPets) answered 2xx: the pets this run left in the deployment. */
  readonly creates: number;
}

/** The operationId of a create (spec/openapi.yaml). */
const CREATE = 'createPets';

export function trafficOf(exchanges: readonly LoggedExchange[]): Traffic {
  let creates = 0;
  for (const x of exchanges) {
    const status = x.response?.status;
    if (x.operation?.operationId === CREATE && status !== undefined && status >= 200 && status <= 299)
      creates++;
  }
  return { requests: exchanges.length, creates };
}

/** "612 requests, 171 pets created" for the console and summary.md. */
export function trafficText(traffic: Traffic): string {
  return `${traffic.requests} request${traffic.requests === 1 ? '' : 's'}, ${traffic.creates} pet${traffic.creates === 1 ? '' : 's'} created`;
}
