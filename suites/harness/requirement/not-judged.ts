/**
 * NotJudged: a check that met a cause of the deployment's which no requirement's rule names, and
 * which keeps it from judging its own: a key the deployment asks for and the run was not given, a
 * store that takes no more pets. Like a rate limit it could not wait out (RateLimited), the check is
 * neither passed nor failed: requirement() reports it skipped "not judged: …", the roll-up names the
 * cause once, and a run with gating requirements left so is "could not judge" (exit 2), keeping what
 * it judged.
 */
import type { ExchangeRecord } from '../evidence/exchange.ts';
import { redact } from '../evidence/redact.ts';
import type { Model } from '../model/model.ts';

/**
 * The causes a check is not judged for, as the roll-up groups them (any cause is named once there):
 * a key the deployment asks for and the run was not given, a store that takes no more pets.
 */
export type NotJudgedCause = 'api-key' | 'store-full';

export class NotJudged extends Error {
  constructor(
    readonly kind: NotJudgedCause,
    /** What the deployment did, in one line: "GET /pets answered 401: …". Masked as the server's text. */
    message: string,
    /** The curl line that shows it. */
    readonly reproduce: string,
  ) {
    super(redact(message));
    this.name = 'NotJudged';
  }
}

/** Whether a value is a NotJudged, also across module copies (isolated test files). */
export function isNotJudged(value: unknown): value is NotJudged {
  return (
    value instanceof NotJudged || (value instanceof Error && value.name === 'NotJudged' && 'kind' in value)
  );
}

/** What the run says of a deployment that refuses creates for want of room. */
export function noRoomLine(received: string): string {
  return `the deployment takes no more pets: POST /pets of a valid pet with a new id answered ${received}`;
}

/**
 * NotJudged when the deployment refuses creates for want of room (model.ts RoomRefusal) and this
 * check's own creates met that refusal; undefined otherwise. What such a check needed was a pet, and
 * the deployment takes none: its own rule is not judged, whatever it threw or passed (a 409 where
 * CREATE-OK wants 201, a precondition blocked by CREATE-OK, a 409 that looks like a refusal).
 */
export function roomRefusedIn(
  model: Pick<Model, 'roomRefusal'>,
  exchanges: readonly ExchangeRecord[],
): NotJudged | undefined {
  const room = model.roomRefusal();
  if (room === undefined) return undefined;
  const met = exchanges.some(
    (x) => x.method === 'POST' && x.status === room.status && /\/pets\/?(\?|$)/.test(x.url),
  );
  return met ? new NotJudged('store-full', noRoomLine(room.received), room.reproduce) : undefined;
}
