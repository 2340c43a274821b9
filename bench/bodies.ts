/**
 * The costliest request bodies the reference's limits let through (MAX_BODY_BYTES, MAX_DEPTH): what
 * the event-loop benchmark sends, and what test/reference-impl/limits.test.ts checks are answered.
 * Each fills the body limit with the shape that costs the most to read, validate or serialise.
 */
import { MAX_BODY_BYTES, MAX_DEPTH } from '../reference-impl/index.ts';

export interface HostileBody {
  name: string;
  body: string;
}

/** `head`, then `item` repeated (joined by `sep`) as often as fits MAX_BODY_BYTES, then `tail`. */
function fill(head: string, item: string, sep: string, tail: string): string {
  const room = MAX_BODY_BYTES - Buffer.byteLength(head) - Buffer.byteLength(tail);
  const count = Math.floor((room + sep.length) / (Buffer.byteLength(item) + sep.length));
  return head + Array(count).fill(item).join(sep) + tail;
}

/** As many distinct keys `"k0":1,"k1":1,…` after `head` as fit MAX_BODY_BYTES. */
function keys(head: string): string {
  const items: string[] = [];
  let size = Buffer.byteLength(head) + 1;
  for (let i = 0; ; i++) {
    const item = `"k${i}":1`;
    if (size + item.length + 1 > MAX_BODY_BYTES) break;
    items.push(item);
    size += item.length + 1;
  }
  return `${head}${items.join(',')}}`;
}

/** The bodies, each exactly at or just under MAX_BODY_BYTES, each a pet with an id from `nextId`. */
export function hostileBodies(nextId: () => bigint): HostileBody[] {
  const pet = () => `{"id":${nextId()},"name":"x",`;
  const nest = `${'['.repeat(MAX_DEPTH - 2)}${']'.repeat(MAX_DEPTH - 2)}`; // inside the pet and its array
  const atCap = `{"id":${nextId()},"name":"`;
  return [
    // read twice (lossless-json, and JSON.parse for the validator), validated, serialised and
    // stored (201), as every body under the limit is: 409 once the store is full
    { name: 'numbers', body: fill(`${pet()}"a":[`, '1', ',', ']}') },
    { name: 'long numbers', body: fill(`${pet()}"a":[`, '-1234567890123456789.5e-300', ',', ']}') },
    { name: 'empty objects', body: fill(`${pet()}"a":[`, '{}', ',', ']}') },
    { name: 'keys', body: keys(pet()) },
    { name: 'nesting at the depth limit', body: fill(`${pet()}"a":[`, nest, ',', ']}') },
    // stored (201): each escape is 6 bytes in the body, 2 in the pet
    { name: 'escapes', body: fill(`${pet()}"a":"`, '\\u00e9', '', '"}') },
    // refused before parsing: too deep
    {
      name: 'nesting past the depth limit',
      body: `${'['.repeat(MAX_BODY_BYTES / 2)}${']'.repeat(MAX_BODY_BYTES / 2)}`,
    },
    // stored (201), 409 once the store is full
    {
      name: 'a pet at the body limit',
      body: `${atCap}${'x'.repeat(MAX_BODY_BYTES - Buffer.byteLength(`${atCap}"}`))}"}`,
    },
  ];
}
