/**
 * A deployment answering from more than one store (issue 35: Flask under gunicorn with two workers,
 * an in-memory dict each, spread one cause over four requirements, different each run). The model
 * sees it (model.ts moreThanOneStore: a pet the run created, found by one show and not by another);
 * each check leaves that evidence in its meta, and whether its own failure (or what blocked it) was
 * about what the store holds (a pet the run created, the list), so that the roll-up names the cause
 * once, on CREATE-PERSISTED, and blocks by it the failures it explains.
 */
import type { TaskMeta } from 'vitest';
import { isConformanceError } from '../evidence/errors.ts';
import type { ExchangeRecord } from '../evidence/exchange.ts';
import { redact } from '../evidence/redact.ts';
import type { Model } from '../model/model.ts';
import { isBlocked } from './blocked.ts';
import { isExplained } from './second-opinion.ts';

/** Writes into `meta` what the run knows of more than one store, and whether `thrown` was about what the store holds. */
export function recordStores(
  meta: TaskMeta,
  model: Pick<Model, 'moreThanOneStore' | 'isCreated'>,
  thrown: unknown,
): void {
  const stores = model.moreThanOneStore();
  if (stores !== undefined)
    meta.moreThanOneStore = {
      expected: stores.expected,
      received: redact(stores.received),
      reproduce: stores.reproduce,
    };
  // Kept whether or not the stores are known to differ yet: a check of the first phase ends before.
  const exchange = isExplained(thrown)
    ? thrown.failure.exchanges?.at(-1)
    : isBlocked(thrown)
      ? thrown.evidence.exchange
      : isConformanceError(thrown)
        ? thrown.exchanges?.at(-1)
        : undefined;
  if (exchange === undefined) return;
  const id = petIdOf(exchange);
  if ((id !== undefined && model.isCreated(id)) || isTheList(exchange)) meta.aboutStoredPets = true;
}

/** A GET or HEAD of the list: what it holds, and so its length, is the store's that answered it. */
function isTheList(x: ExchangeRecord): boolean {
  return (x.method === 'GET' || x.method === 'HEAD') && /\/pets\/?$/.test(pathOf(x));
}

/** The path of an exchange's URL, without its origin and query. */
function pathOf(x: ExchangeRecord): string {
  return x.url.replace(/^https?:\/\/[^/]+/, '').split('?')[0] ?? '';
}

/** The pet an exchange is about: the id of its path (/pets/{id}), or of a create's body. */
function petIdOf(x: ExchangeRecord): string | undefined {
  const inPath = /\/pets\/(-?\d+)$/.exec(pathOf(x))?.[1];
  if (inPath !== undefined) return inPath;
  if (x.method !== 'POST' || x.requestBody?.encoding === 'base64') return undefined;
  return /"id"\s*:\s*(-?\d+)/.exec(x.requestBody?.text ?? '')?.[1];
}
