// The reference serving pets it was given as a library (`store`, with ids of every type PetStore.add
// takes), checked with --read-only: the suite only reads, and judges what it lists and shows.
import { LosslessNumber } from 'lossless-json';
import { checkReference } from './reference.ts';

await checkReference(
  ({ PetStore }) => {
    const store = new PetStore({ maxPets: 50 });
    store.add({ id: 9223372036854775807n, name: 'Zoë at the top of int64', status: 'available' });
    store.add({ id: -9223372036854775808n, name: '日本 at the bottom', tag: 'cat' });
    store.add({ id: 4_503_599_627_370_496, name: 'a safe integer', status: 'pending', extra: [1, 'two'] });
    store.add({ id: '-1234567890123456789', name: ' spaces at both ends ', tag: '' });
    const digits = new LosslessNumber('1234567890123456789');
    store.add({ id: digits, name: 'digits kept', status: 'sold', weight: new LosslessNumber('1.50') });
    return { store };
  },
  { readOnly: true },
);
