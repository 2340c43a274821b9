import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { readChecked } from './checked.ts';
import { specFiles } from './paths.ts';

export type Level = 'MUST' | 'SHOULD' | 'MAY';
/**
 * What a check needs from the run: writes (off under --read-only), a key, --auth-required, or a
 * response-time budget (--max-response-time).
 */
export type Need = 'write' | 'key' | 'auth-required' | 'max-response-time';
export type Operation = 'any' | 'listPets' | 'createPets' | 'showPetById' | 'listStoreOrders';

export interface Requirement {
  readonly id: string;
  readonly level: Level;
  /** A sentence: what a conformant server does. */
  readonly title: string;
  readonly operation: Operation;
  /** The sentence of spec/service.md the requirement comes from, word for word. */
  readonly source: { readonly section: string; readonly text: string };
  /** quoted: the document says it; derived: it follows from the document and HTTP; unspecified: the document is silent. */
  readonly basis: 'quoted' | 'derived' | 'unspecified';
  /** For basis unspecified: the topic of the catalog's `unspecified` list. */
  readonly unspecified?: string;
  readonly rationale?: string;
  readonly needs: readonly Need[];
  readonly retired?: boolean;
}

export interface UnspecifiedTopic {
  readonly topic: string;
  readonly section: string;
  readonly text: string;
  /** What the suite accepts where the document is silent. */
  readonly tolerated: string;
}

export interface Catalog {
  readonly version: 1;
  /** In catalog order, retired ones left out. */
  readonly requirements: readonly Requirement[];
  readonly unspecified: readonly UnspecifiedTopic[];
  /** The requirement of an id, or undefined. */
  get(id: string): Requirement | undefined;
}

/** Raised when spec/requirements.yaml is not a valid catalog: the suite cannot judge anything then. */
export class CatalogError extends Error {
  override name = 'CatalogError';
}

let cached: Catalog | undefined;

/**
 * Reads, validates and freezes spec/requirements.yaml (once per process); as the build already
 * validated it when that still holds (checked.ts).
 */
export function loadCatalog(): Catalog {
  if (!cached) {
    const checked = readChecked()?.catalog as CatalogData | undefined;
    cached = checked ? freeze(checked) : parseCatalog(readFileSync(specFiles.requirements, 'utf8'));
  }
  return cached;
}

/** Validates catalog text against spec/requirements.schema.json and the rules a schema cannot say. */
export function parseCatalog(text: string): Catalog {
  // Loaded here rather than with the module: a run whose catalog the build checked needs neither.
  const require = createRequire(import.meta.url);
  const { parse } = require('yaml') as typeof import('yaml');
  const { Ajv } = require('ajv') as typeof import('ajv');
  const data: unknown = parse(text);
  const schema = JSON.parse(readFileSync(specFiles.requirementsSchema, 'utf8'));
  const validate = new Ajv({ allErrors: true }).compile(schema);
  if (!validate(data)) {
    const details = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ');
    throw new CatalogError(`spec/requirements.yaml is not a valid catalog: ${details}`);
  }
  const raw = data as { version: 1; requirements: Requirement[]; unspecified: UnspecifiedTopic[] };
  const seen = new Set<string>();
  for (const r of raw.requirements) {
    if (seen.has(r.id)) throw new CatalogError(`spec/requirements.yaml: id ${r.id} appears twice`);
    seen.add(r.id);
  }
  const topics = new Set(raw.unspecified.map((u) => u.topic));
  for (const r of raw.requirements) {
    if (r.unspecified && !topics.has(r.unspecified)) {
      throw new CatalogError(
        `spec/requirements.yaml: ${r.id} names unspecified topic "${r.unspecified}", which is not listed`,
      );
    }
  }
  return freeze(raw);
}

/** The catalog's data as validated, before retired requirements are left out. */
type CatalogData = Pick<Catalog, 'version' | 'requirements' | 'unspecified'>;

/** The catalog of validated data: retired requirements left out, everything frozen. */
function freeze(raw: CatalogData): Catalog {
  const requirements = Object.freeze(raw.requirements.filter((r) => !r.retired).map((r) => deepFreeze(r)));
  const byId = new Map(requirements.map((r) => [r.id, r]));
  return Object.freeze({
    version: raw.version,
    requirements,
    unspecified: Object.freeze(raw.unspecified.map((u) => deepFreeze(u))),
    get: (id: string) => byId.get(id),
  });
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
