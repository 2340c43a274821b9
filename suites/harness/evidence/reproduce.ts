import { freshId } from '../config/run.ts';
import { type SentRequest, toCurl } from './exchange.ts';

/**
 * Ids of the pets the run's requests created (a 2xx to a POST with that id). A create re-sent as
 * printed would meet the pet it created and get a 409 instead of what the check saw, so its reproduce
 * line sends a fresh id instead; a request whose id had been created before it (a duplicate probe)
 * keeps its id, since re-sending it is exactly what it did.
 */
const created = new Set<string>();

/** The pet id a create body carries: a JSON integer, or a string of digits (which a lax server reads as one). */
const ID_IN_BODY = /"id"\s*:\s*"?(-?\d+)/;

/** The curl line that reproduces a request which got `status` (undefined: no answer). */
export function reproduceOf(sent: SentRequest, status: number | undefined): string {
  return reproducer(sent, status)();
}

/**
 * reproduceOf(), with the line written when first asked for: which pets exist is noted now, in the
 * order the answers come, and the line (masked, with a fresh id where one is needed) only when a
 * check shows it, which few do.
 */
export function reproducer(sent: SentRequest, status: number | undefined): () => string {
  let line: string | undefined;
  const once = (write: () => string) => () => {
    line ??= write();
    return line;
  };
  if (sent.method !== 'POST' || !sent.body || status === undefined) return once(() => toCurl(sent));
  const text = Buffer.from(sent.body).toString('utf8');
  const id = ID_IN_BODY.exec(text)?.[1];
  if (id === undefined) return once(() => toCurl(sent));
  const before = created.has(id);
  if (status < 200 || status > 299) return once(() => toCurl(sent));
  created.add(id);
  if (before) return once(() => toCurl(sent));
  return once(() => {
    const fresh = freshId(BigInt(id)).toString();
    const swap = (t: string) => t.replace(ID_IN_BODY, (match) => match.replace(id, fresh));
    const body = Buffer.from(swap(text));
    const bodyCommand =
      sent.bodyCommand === undefined ? {} : { bodyCommand: sent.bodyCommand.replace(id, fresh) };
    return `${toCurl({ ...sent, body, ...bodyCommand })}  # a fresh id: pet ${id} exists now`;
  });
}
