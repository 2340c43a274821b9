/**
 * The conformance suite against the reference, in each configuration whose code the others do not
 * reach. One file, so that a mutant's run starts one test worker, whatever configurations cover it;
 * each configuration gets fresh instances of the suite's modules (vi.resetModules), hence a Config
 * of its own, and the checks of a configuration are named after it ("key in a header > AUTH-…").
 */
import { LosslessNumber } from 'lossless-json';
import { describe, vi } from 'vitest';
import { type Configuration, checkReference } from './reference.ts';

const apiKey = 'mutation-run-key';

const configurations: Configuration[] = [
  // No key: every write and read of the suite.
  { name: 'no key', server: () => ({}) },
  // A key required in the default header (--api-key, --auth-required): the checks of the key too.
  { name: 'key in a header', server: () => ({ apiKey }), client: { apiKey, authRequired: true } },
  // A key in a query parameter (--api-key-query): the other way a key travels.
  {
    name: 'key in a query parameter',
    server: () => ({ apiKey, apiKeyQuery: 'api_key' }),
    client: { apiKey, apiKeyQuery: 'api_key', authRequired: true },
  },
  // Pets given as a library (`store`, ids of every type PetStore.add takes, a property whose value is
  // undefined, which JSON leaves out), read with --read-only.
  {
    name: 'a given store, read only',
    server: ({ PetStore }) => {
      const store = new PetStore({ maxPets: 50 });
      store.add({ id: 9223372036854775807n, name: 'Zoë at the top of int64', status: 'available' });
      store.add({ id: -9223372036854775808n, name: '日本 at the bottom', tag: 'cat' });
      store.add({ id: 4_503_599_627_370_496, name: 'a safe integer', status: 'pending', extra: [1, 'two'] });
      store.add({ id: '-1234567890123456789', name: ' spaces at both ends ', tag: '', lost: undefined });
      const digits = new LosslessNumber('1234567890123456789');
      store.add({ id: digits, name: 'digits kept', status: 'sold', weight: new LosslessNumber('1.50') });
      return { store };
    },
    client: { readOnly: true },
  },
];

for (const configuration of configurations) {
  describe(configuration.name, async () => {
    vi.resetModules();
    await checkReference(configuration);
  });
}
