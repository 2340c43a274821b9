import type { TaskMeta } from 'vitest';
import { describe, expect, test } from 'vitest';
import { ConformanceError } from '../../suites/harness/evidence/errors.ts';
import type { ExchangeRecord } from '../../suites/harness/evidence/exchange.ts';
import { recordStores } from '../../suites/harness/requirement/stores.ts';

const model = { moreThanOneStore: () => undefined, isCreated: (id: string) => id === '7' };
const failedOn = (method: string, url: string) =>
  new ConformanceError({
    expected: 'e',
    received: 'r',
    reproduce: 'curl',
    exchanges: [{ method, url, requestHeaders: {}, status: 200, durationMs: 1 } satisfies ExchangeRecord],
  });
const about = (thrown: unknown) => {
  const meta = {} as TaskMeta;
  recordStores(meta, model, thrown);
  return meta.aboutStoredPets === true;
};

describe('a failure about what the store holds, which another store may hold otherwise', () => {
  test('a show of a pet the run created is about the store', () => {
    expect(about(failedOn('GET', 'http://h/v1/pets/7'))).toBe(true);
  });
  test('a HEAD or GET of the list is about the store (two stores hold two lists)', () => {
    expect(about(failedOn('HEAD', 'http://h/v1/pets'))).toBe(true);
    expect(about(failedOn('GET', 'http://h/v1/pets?limit=5'))).toBe(true);
  });
  test('a show of a pet the run never created, or a create of the list, is not', () => {
    expect(about(failedOn('GET', 'http://h/v1/pets/8'))).toBe(false);
    expect(about(failedOn('POST', 'http://h/v1/pets'))).toBe(false);
    expect(about(new Error('no exchange'))).toBe(false);
  });
});
