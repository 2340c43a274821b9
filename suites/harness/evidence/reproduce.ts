import { freshId } from '../config/run.ts';
import { type SentRequest, toCurl } from './exchange.ts';
import { INT64_MAX, INT64_MIN } from './json.ts';

/**
 * Ids of the pets the run's requests created (a 2xx to a POST with that id). A create re-sent as
 * printed would meet the pet it created and get a 409 instead of what the check saw, so its reproduce
 * line sends a fresh id instead; a request whose id had been created before it (a duplicate probe)
 * keeps its id, since re-sending it is exactly what it did.
 */
const created = new Set<string>();

/**
 * The pet id a create body carries: a JSON integer, a string of digits (which a lax server reads as
 * one), or the same under a key a lenient reader takes (unquoted, in single quotes).
 */
const ID_IN_BODY = /(?:"id"|'id'|\bid)\s*:\s*["']?(-?\d+)/;

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
    const fresh = freshDigits(id);
    const swap = (t: string) => t.replace(ID_IN_BODY, (match) => match.replace(id, fresh));
    const body = Buffer.from(swap(text));
    const bodyCommand =
      sent.bodyCommand === undefined ? {} : { bodyCommand: sent.bodyCommand.replace(id, fresh) };
    return `${toCurl({ ...sent, body, ...bodyCommand })}  # a fresh id: pet ${id} exists now`;
  });
}

/** Fresh digits for `id`, of its kind (freshLike), its leading zeros kept (a body that spells 007). */
function freshDigits(id: string): string {
  const zeros = /^-?(0+)\d/.exec(id)?.[1] ?? '';
  const fresh = freshLike(BigInt(id));
  return fresh < 0n ? `-${zeros}${-fresh}` : `${zeros}${fresh}`;
}

/**
 * A fresh id of the same kind as the one the run used up, so that the line shows what the request
 * showed: an id outside int64 stays outside on its side (a create of such an id that was answered 2xx
 * is the fault a line must show again, not an in-range id that a conformant server accepts too), and
 * an int64 keeps its sign and its size (freshId).
 */
function freshLike(id: bigint): bigint {
  if (id > INT64_MAX) return INT64_MAX + 1n + freshId();
  if (id < INT64_MIN) return INT64_MIN - 1n - freshId();
  return freshId(id);
}

/** How many times a script of answers that differ sends its request before it gives up. */
const TRIES = 10;

/**
 * The few lines that show a request answered two ways, which one curl cannot: the request sent up to
 * TRIES times, each curl on a connection of its own, and the first answer of each status printed,
 * `last` last (a deployment answering from more than one store finds a pet on some connections only).
 */
export function answeredBothWays(curl: string, first: number, last: number, said: string): string {
  return [
    '#!/bin/sh',
    `# ${said.replace(/[\r\n]+/g, ' ')}`,
    `# One request cannot show it: the request is sent up to ${TRIES} times, each on a connection of its own, and the first ${first} and the first ${last} are printed.`,
    `a=; b=; i=0; while [ "$i" -lt ${TRIES} ] && { [ -z "$a" ] || [ -z "$b" ]; }; do i=$((i + 1)); out=$(${curl}); case "$(printf '%s\\n' "$out" | head -n 1)" in 'HTTP/'*' ${first} '*) a=\${a:-$out} ;; 'HTTP/'*' ${last} '*) b=\${b:-$out} ;; esac; done; printf '%s\\n' "$a" "$b"`,
  ].join('\n');
}
