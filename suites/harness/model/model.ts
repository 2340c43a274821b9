import { isUtf8 } from 'node:buffer';
import type { Config } from '../config/config.ts';
import { isFreshId } from '../config/run.ts';
import { type Contract, loadContract, type Schema } from '../contract/contract.ts';
import { bodyExcerpt, bodyInline } from '../evidence/body.ts';
import type { SentRequest } from '../evidence/exchange.ts';
import { clip, shownUrl, toCurl } from '../evidence/exchange.ts';
import type { Finding } from '../evidence/finding.ts';
import { exactInteger, INT64_MAX, INT64_MIN, isExactNumber, parseBody } from '../evidence/json.ts';
import { answeredBothWays } from '../evidence/reproduce.ts';
import { pathAndQuery, splitUrl } from '../evidence/url.ts';

/*
 * The run's model of the service (issue 18): what the run created through it (each create as
 * sent, byte for byte, and how it was answered), which creates were refused, and, read-only, the
 * pets it saw. Every client of a check reports its exchanges here (client.ts), and every answer to a
 * show or a list is held against it:
 *
 * - a pet the run created (answered 2xx before the read was sent) comes back with every field it was
 *   sent with, equal: strings code point for code point, the id digit for digit; a field that was not
 *   sent may be absent or hold any valid value (the document leaves that open); properties the Pet
 *   schema does not declare are not compared (the document does not say they are kept), nor is a
 *   string JSON leaves to the reader (readersAgreeOn);
 * - where the same id was sent more than once (a duplicate, whose outcome is CREATE-DUPLICATE-ID's to
 *   judge), the pet may equal any of the bodies sent with that id before the read was answered;
 * - an id whose pet the server may have made something else of (a 2xx to an invalid body, or to any
 *   method that is not safe: a PUT, PATCH, DELETE, WebDAV's MOVE) is not judged any more;
 * - read-only, a pet shown by GET /pets/{id} agrees with what an earlier answer showed of it (pets
 *   cannot change: the contract has no operation that changes one).
 *
 * An answer that disagrees is a Finding for the requirement whose rule it breaks (CREATE-PERSISTED
 * for the fields of a pet read back, SHOW-OK for a show that answers with another pet, or
 * CREATE-INT64-EXACT when that other id is the same beyond 2^53), whichever check received it: the
 * roll-up fails that requirement, and the check that saw it keeps its own result. Only answers the
 * Pet schema accepts are compared (a malformed pet is ANY-PET-SCHEMA's), and a pet that is not found
 * (404) after its create was answered 2xx is a pet lost: CREATE-PERSISTED's, or CREATE-CONCURRENT's
 * when every create of it overlapped another (judgeMissing).
 *
 * The model also knows which creates overlapped: a pet created while no other write of the run (a
 * request of a method that is not safe, to any path, with or without the key) was in flight is one
 * the server had to itself, so losing it is CREATE-PERSISTED's fault and not CREATE-CONCURRENT's;
 * `alone` creates wait for that (see admit()). Every write counts, not only the creates the model
 * follows: a server may count a POST to /pets/ or one it refuses for its key among the creates it
 * is busy with.
 */

/** The fields of a Pet the model compares, besides the id. */
export const PET_FIELDS = ['name', 'tag', 'status'] as const;
export type PetFields = Partial<Record<(typeof PET_FIELDS)[number], string>>;

/** One create as sent and answered. */
export interface Attempt {
  /** The id's canonical digits. */
  readonly id: string;
  /** The Pet fields sent; undefined when the body was not a valid Pet. */
  readonly fields: PetFields | undefined;
  readonly sent: SentRequest;
  readonly sentAt: number;
  readonly answeredAt?: number;
  /** Undefined until answered, and when no answer came. */
  readonly status?: number;
  /** Another write of the run (a create among them) was in flight while this one was. */
  readonly overlapped: boolean;
}

/**
 * A create the model follows. Its body is read after it was sent (flush()), so that creates sent
 * together leave together: the model costs them nothing on the way out.
 */
class Create {
  id?: string;
  fields?: PetFields;
  answeredAt?: number;
  status?: number;
  overlapped = false;
  read = false;
  constructor(
    readonly sent: SentRequest,
    readonly sentAt: number,
  ) {}
}

interface Entry {
  readonly attempts: Create[];
  /** Why the pet is no longer judged: the server may have made something else of it. */
  unknown?: string;
  /** Read-only: the fields first seen, and where. */
  seen?: { readonly fields: PetFields; readonly where: string };
  /** A pet the run created: the first show that found it (200), and the first that did not (404). */
  found?: Watch;
  lost?: Watch;
}

/** A request the model follows, from its sending to its answer. */
export interface Watch {
  readonly sent: SentRequest;
  readonly sentAt: number;
  readonly kind: 'create' | 'show' | 'list' | 'change' | 'other';
  /** The id of a show or of a change, as the path gives it (decoded). */
  readonly id?: string;
  readonly create?: Create;
  /**
   * Set for a request of a method that is not safe (RFC 9110, 9.2.1), a write: what stands for it
   * among the writes in flight (its Create, for a create the model follows).
   */
  readonly write?: Create | object;
  /** Waits, for a write, until the model lets it go (see admit()). */
  readonly admitted: Promise<void>;
}

/** The methods RFC 9110 (9.2.1) defines as safe: a request of any other may change what is stored. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

/** Create bodies larger than this are not read by the model (CREATE-BODY-TOO-LARGE's 4 MiB). */
const MAX_MODELLED_BODY = 64 * 1024;
const TWO_TO_53 = 2n ** 53n;

/**
 * The page size a list request asks for: its limit when it is given once as the digits of 1 to 100,
 * 100 (the declared default) when none is given; undefined for any other limit (not judged).
 */
function pageLimit(url: string): number | undefined {
  const limits = new URLSearchParams(splitUrl(url).search).getAll('limit');
  if (limits.length === 0) return 100;
  const [limit] = limits;
  if (limits.length > 1 || limit === undefined || !/^[1-9]\d{0,2}$/.test(limit)) return undefined;
  const n = Number(limit);
  return n <= 100 ? n : undefined;
}

/** The canonical digits of an int64, or undefined. */
function int64Digits(value: unknown): string | undefined {
  const n = exactInteger(value);
  return n !== undefined && n >= INT64_MIN && n <= INT64_MAX ? n.toString() : undefined;
}

/** Whether a value is a JSON object (not an array, not null). */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function fieldsOf(pet: Record<string, unknown>): PetFields {
  const out: PetFields = {};
  for (const key of PET_FIELDS) if (typeof pet[key] === 'string') out[key] = pet[key];
  return out;
}

/** A surrogate code unit not in a pair: a string JSON leaves to the reader (RFC 8259 §8.2). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The fields every reader reads alike: a string holding a lone surrogate is unpredictable (RFC 8259
 * §8.2; Go reads it as U+FFFD, JavaScript keeps it), and in a body that is not UTF-8 a string read
 * with U+FFFD holds bytes each reader decodes its own way (JSONTestSuite's i_ cases). Those are left
 * out of what is compared.
 */
function readersAgreeOn(fields: PetFields, utf8: boolean): PetFields {
  const out: PetFields = {};
  for (const key of PET_FIELDS) {
    const value = fields[key];
    if (value === undefined || LONE_SURROGATE.test(value) || (!utf8 && value.includes('\uFFFD'))) continue;
    out[key] = value;
  }
  return out;
}

/**
 * A string as a person fixing a server needs to see it: as JSON, and where invisible differences hide
 * (white space at an end, characters outside printable ASCII) its code points too.
 */
export function showString(s: string | undefined): string {
  if (s === undefined) return '(absent)';
  const json = JSON.stringify(s);
  if (!/^\S(.*\S)?$|^$/su.test(s) || /[^\x20-\x7e]/.test(s)) {
    const points = [...s].map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`);
    const shown = points.length > 16 ? [...points.slice(0, 16), `… (${points.length} code points)`] : points;
    return `${json} [${shown.join(' ')}]`;
  }
  return json;
}

/** The fields sent that do not come back equal: [] when the pet shown has each of them. */
export function differences(sent: PetFields, shown: Record<string, unknown>): string[] {
  const diffs: string[] = [];
  for (const key of PET_FIELDS) {
    const want = sent[key];
    if (want === undefined) continue;
    const got = shown[key];
    if (got !== want)
      diffs.push(
        `${key} ${typeof got === 'string' ? showString(got) : '(absent)'} where ${showString(want)} was sent`,
      );
  }
  return diffs;
}

/** The pet's fields, as the expected side of a message. */
function describeSent(id: string, fields: PetFields): string {
  const parts = PET_FIELDS.filter((k) => fields[k] !== undefined).map((k) => `${k} ${showString(fields[k])}`);
  return `pet ${id} with the fields it was created with (${parts.join(', ') || 'name only'})`;
}

/**
 * The deployment refusing a create for want of room: 507 (Insufficient Storage, RFC 4918 §11.5), or
 * 409 to a valid pet whose id the run drew fresh and sent once (no pet can have it, so the conflict is
 * with the store, not with a pet: the reference answers so when it holds all it may).
 */
export interface RoomRefusal {
  readonly status: number;
  /** "409, {"detail":"the store is full…"}": the answer, masked and cut. */
  readonly received: string;
  readonly reproduce: string;
}

export class Model {
  private readonly entries = new Map<string, Entry>();
  /** The first create refused for want of room (RoomRefusal), when one was. */
  private room?: RoomRefusal;
  /** The first answer no one store gives (stores()), when one came. */
  private manyStores?: Finding;
  private clock = 0;
  /** When a create was last answered: what was judged before may be judged otherwise now. */
  private lastCreateAnswered = 0;
  /** Listed pets judged without a finding: their id's text → what was listed, and when. */
  private readonly listedBefore = new Map<string, { signature: string; clock: number }>();
  /** The writes in flight: the creates the model follows, and a token for each other write. */
  private readonly inFlight = new Set<Create | object>();
  /** Creates sent whose bodies the model has not read yet. */
  private unread: Create[] = [];
  /** Writes admitted and not yet answered. */
  private writing = 0;
  private aloneWaiting = 0;
  private aloneRunning = false;
  private wake: (() => void)[] = [];

  constructor(
    private readonly config: Pick<Config, 'baseUrl' | 'readOnly'>,
    private readonly contract: Contract,
    private readonly petSchema: Schema = contract.schema('Pet'),
  ) {}

  /** The creates sent with this id, oldest first (each as sent, and its answer). */
  attemptsOf(id: string): readonly Attempt[] {
    this.flush();
    return (this.entries.get(id)?.attempts ?? []) as Attempt[];
  }

  /** The creates of this id answered 2xx with a valid Pet before `before` (the model's clock). */
  private createdBefore(id: string, before: number): Create[] {
    return ((this.entries.get(id)?.attempts ?? []) as Create[]).filter(
      (a) => a.fields && isSuccess(a.status) && (a.answeredAt ?? Number.POSITIVE_INFINITY) < before,
    );
  }

  /** Whether a create of this id was answered 2xx with a valid Pet, and nothing since made it unknown. */
  isCreated(id: string, before = Number.POSITIVE_INFINITY): boolean {
    this.flush();
    return this.entries.get(id)?.unknown === undefined && this.createdBefore(id, before).length > 0;
  }

  /** How many pets the run has created so far: ids whose create was answered 2xx, none made unknown since. */
  createdCount(): number {
    this.flush();
    let count = 0;
    for (const id of this.entries.keys()) if (this.isCreated(id)) count++;
    return count;
  }

  /**
   * Follows a request: call when it is about to be sent; `alone` for a create that must not overlap,
   * `foreign` for one sent without the configured key (not judged).
   */
  watch(sent: SentRequest, alone = false, foreign = false): Watch {
    const sentAt = ++this.clock;
    // `foreign`: sent without the configured key; its answer says nothing of the run's pets.
    const route = foreign ? { kind: 'other' as const } : this.route(sent);
    if (route.kind === 'create') {
      const create = new Create(sent, sentAt);
      this.unread.push(create);
      return { sent, sentAt, kind: 'create', create, write: create, admitted: this.admit(create, alone) };
    }
    if (SAFE_METHODS.has(sent.method.toUpperCase()))
      return { sent, sentAt, ...route, admitted: Promise.resolve() };
    const write = {};
    return { sent, sentAt, ...route, write, admitted: this.admit(write, false) };
  }

  /**
   * Takes the answer (undefined: none came) to a request it watched, and returns the findings: the
   * rules the answer breaks, each for the requirement whose rule it is.
   */
  settle(w: Watch, status: number | undefined, body?: Buffer, text?: string): Finding[] {
    const answeredAt = ++this.clock;
    this.flush();
    if (w.write) {
      this.writing--;
      this.inFlight.delete(w.write);
      if (this.aloneRunning && this.writing === 0) this.aloneRunning = false;
      this.notify();
    }
    if (w.kind === 'create') {
      this.lastCreateAnswered = answeredAt;
      const c = w.create!;
      c.answeredAt = answeredAt;
      if (status !== undefined) c.status = status;
      if (c.id !== undefined && isSuccess(status) && !c.fields)
        this.forget(c.id, 'a create of it with a body that is not a valid Pet was answered 2xx');
      if (!this.room && this.refusedForRoom(c, status))
        this.room = {
          status: status!,
          received: `${status}, ${text === undefined || text === '' ? 'empty body' : clip(text, 300)}`,
          reproduce: toCurl(c.sent),
        };
      return [];
    }
    if (w.kind === 'change') this.lastCreateAnswered = answeredAt;
    if (w.kind === 'change' && w.id !== undefined && isSuccess(status)) {
      this.forget(w.id, `${w.sent.method} of it was answered ${status}`);
      return [];
    }
    if (w.kind === 'show' && status === 404) {
      const finding = this.judgeMissing(w);
      return finding ? [finding] : [];
    }
    if (status !== 200 || body === undefined || (w.kind !== 'show' && w.kind !== 'list')) return [];
    const parsed = parseBody(body, text ?? body.toString('utf8'));
    if (!parsed.ok) return [];
    if (w.kind === 'show') {
      const finding = this.judgeShown(w, parsed.value, parsed.exact, status);
      return finding ? [finding] : [];
    }
    if (!Array.isArray(parsed.value) || !Array.isArray(parsed.exact)) return [];
    const findings: Finding[] = [];
    const exact = parsed.exact as unknown[];
    parsed.value.forEach((item, i) => {
      const finding = this.judgeListed(w, item, exact[i]);
      if (finding) findings.push(finding);
    });
    const left = this.judgeLeftOut(w, parsed.value, exact);
    if (left) findings.push(left);
    return findings;
  }

  /** The first create the deployment refused for want of room (RoomRefusal), if any so far. */
  roomRefusal(): RoomRefusal | undefined {
    return this.room;
  }

  /** Whether a create's answer refuses it for want of room (RoomRefusal). */
  private refusedForRoom(c: Create, status: number | undefined): boolean {
    if (status === 507) return true;
    if (status !== 409 || !c.fields || c.id === undefined) return false;
    return this.entries.get(c.id)?.attempts.length === 1 && isFreshId(BigInt(c.id));
  }

  /** The id of an answered pet, when it is a Pet by the schema; undefined otherwise. */
  private petId(value: unknown, exact: unknown): string | undefined {
    if (!isObject(value) || !isObject(exact)) return undefined;
    if (this.contract.validate(this.petSchema, value, exact).length > 0) return undefined;
    return int64Digits(exact.id);
  }

  private judgeShown(w: Watch, value: unknown, exact: unknown, status: number): Finding | undefined {
    const shownId = this.petId(value, exact);
    // Only an id in its canonical digits names one pet for certain ("007" is left to the server).
    const asked = w.id !== undefined && int64Digits(integerOfDigits(w.id)) === w.id ? w.id : undefined;
    if (asked === undefined || shownId === undefined) return undefined;
    const pet = value as Record<string, unknown>;
    if (this.isCreated(asked, w.sentAt)) {
      if (shownId === asked) {
        const entry = this.entryOf(asked);
        entry.found ??= w;
        if (entry.lost !== undefined) this.stores(w, entry.lost, asked, 'found');
      }
      if (shownId !== asked) {
        const beyond = BigInt(asked) >= TWO_TO_53 || BigInt(asked) <= -TWO_TO_53;
        return this.finding(w, beyond ? 'CREATE-INT64-EXACT' : 'SHOW-OK', {
          expected: `pet ${asked}, which the run created, shown with its id digit for digit`,
          received: `${status} with id ${shownId}`,
          petId: asked,
        });
      }
      return this.judgeFields(w, asked, pet, `${status}`);
    }
    if (shownId !== asked) return undefined;
    const conflict = this.seenConflict(asked, pet);
    if (conflict)
      return this.finding(w, 'SHOW-OK', {
        expected: `pet ${asked} as ${conflict.where} showed it (a pet cannot change: the contract has no operation that changes one)`,
        received: `${status} with ${conflict.diffs}`,
      });
    this.noteSeen(asked, pet, w);
    return undefined;
  }

  /**
   * A 404 to the show of a pet the run created (2xx, before the show was sent, nothing since making
   * it unknown) is a pet lost, whichever check met it: CREATE-PERSISTED's when a create of it had the
   * server to itself, CREATE-CONCURRENT's when every create of it overlapped another. The check that
   * met it is then blocked by that requirement (pets.ts) rather than blamed for a precondition.
   */
  private judgeMissing(w: Watch): Finding | undefined {
    const asked = w.id !== undefined && int64Digits(integerOfDigits(w.id)) === w.id ? w.id : undefined;
    if (asked === undefined || !this.isCreated(asked, w.sentAt)) return undefined;
    const entry = this.entryOf(asked);
    entry.lost ??= w;
    if (entry.found !== undefined) {
      this.stores(w, entry.found, asked, 'lost');
      return undefined;
    }
    const created = this.createdBefore(asked, w.sentAt);
    const alone = created.find((a) => !a.overlapped);
    const by = alone ?? created[created.length - 1]!;
    return this.finding(w, alone ? 'CREATE-PERSISTED' : 'CREATE-CONCURRENT', {
      expected: alone
        ? `status 200 and pet ${asked}, which this run created (answered ${by.status}) while no other write was in flight`
        : `status 200 and pet ${asked}, which this run created (answered ${by.status}) while other writes were in flight`,
      received: '404: the pet is lost',
      createdBy: by,
      petId: asked,
      // Lost among others: a fault of concurrency, unless the server loses pets created alone too.
      // A negative id not found: a class of ids the server never routes, unless SHOW-OK shows pets
      // with such ids (its own check creates one of each sign and shows both).
      ...unlessOf(alone ? [] : ['CREATE-PERSISTED'], asked),
    });
  }

  /**
   * A pet the run created, found by one show and not by another, each after its create was answered:
   * no one store answers so. The deployment answers from more than one (workers with a store each,
   * replicas out of step): CREATE-PERSISTED's, named once by the roll-up, which blocks by it what that
   * explains (moreThanOneStore()). The first such answer is kept as its evidence.
   */
  private stores(w: Watch, other: Watch, id: string, now: 'found' | 'lost'): void {
    const where = (x: Watch) => `${x.sent.method} ${pathAndQuery(shownUrl(x.sent))}`;
    const said =
      'the deployment answers from more than one store (workers or replicas that do not share their pets)';
    if (this.manyStores) return;
    const found = this.finding(w, 'CREATE-PERSISTED', {
      expected: `pet ${id}, which this run created, shown by every show after its create was answered`,
      received:
        now === 'found'
          ? `200 with the pet, though ${where(other)} answered 404 for it before: ${said}`
          : `404, though ${where(other)} answered 200 with it before: ${said}`,
      petId: id,
    });
    // One show cannot show two stores: the few lines that send it until both answers came.
    const [first, last] = now === 'found' ? [404, 200] : [200, 404];
    const reproduce = answeredBothWays(
      toCurl(w.sent),
      first,
      last,
      `The deployment answers from more than one store: pet ${id} was shown ${last} and ${first} by the same request.`,
    );
    this.manyStores = { ...found, reproduce };
  }

  /** The first answer that shows the deployment answering from more than one store, if one did. */
  moreThanOneStore(): Finding | undefined {
    return this.manyStores;
  }

  /**
   * LIST-LIMIT-FILLS: a page with room (fewer pets than its limit, 100 when none is asked) holds every
   * pet the run created before the list was sent; one it leaves out is hidden from a client that reads
   * the first page. Unless the pet was lost (CREATE-PERSISTED, CREATE-CONCURRENT judge that).
   */
  private judgeLeftOut(w: Watch, value: unknown[], exact: unknown[]): Finding | undefined {
    const limit = pageLimit(w.sent.url);
    if (limit === undefined || exact.length >= limit) return undefined;
    // A page with an item that is not a Pet by the schema is ANY-PET-SCHEMA's (ids as strings).
    const ids = value.map((item, i) => this.petId(item, exact[i]));
    if (ids.some((id) => id === undefined)) return undefined;
    const listed = new Set(ids);
    // An id listed with digits lost (the same as a double) is CREATE-INT64-EXACT's, not left out.
    const asDoubles = new Set(ids.map(Number));
    const beyond = (id: string) => BigInt(id) >= TWO_TO_53 || BigInt(id) <= -TWO_TO_53;
    for (const id of this.entries.keys()) {
      if (listed.has(id) || !this.isCreated(id, w.sentAt) || (beyond(id) && asDoubles.has(Number(id))))
        continue;
      const by = this.createdBefore(id, w.sentAt)[0]!;
      return this.finding(w, 'LIST-LIMIT-FILLS', {
        expected: `a page that holds pet ${id}, which this run created (answered ${by.status}) before the list was sent, since the page has room (${exact.length} pet(s) of at most ${limit})`,
        received: `200 with ${exact.length} pet(s), pet ${id} not among them`,
        createdBy: by,
        petId: id,
        unless: ['CREATE-PERSISTED', 'CREATE-CONCURRENT'],
      });
    }
    return undefined;
  }

  private judgeListed(w: Watch, value: unknown, exact: unknown): Finding | undefined {
    // Lists show the same pets again and again: a pet listed as it was already listed, with no create
    // of its id since, was judged then (a Pet by the schema, equal to what was sent, or not created).
    const memo = isObject(value) && isObject(exact) ? listedMemo(value, exact) : undefined;
    const known = memo === undefined ? undefined : this.listedBefore.get(memo.id);
    if (memo && known && known.signature === memo.signature && known.clock >= this.lastCreateAnswered)
      return undefined;
    const finding = this.judgeListedItem(w, value, exact);
    if (memo && !finding) this.listedBefore.set(memo.id, { signature: memo.signature, clock: this.clock });
    return finding;
  }

  private judgeListedItem(w: Watch, value: unknown, exact: unknown): Finding | undefined {
    const id = this.petId(value, exact);
    if (id === undefined) return undefined;
    const pet = value as Record<string, unknown>;
    if (this.isCreated(id, w.sentAt)) return this.judgeFields(w, id, pet, `200 listing pet ${id}`);
    const rounded = this.roundedFrom(id, pet, w.sentAt);
    if (rounded)
      return this.finding(w, 'CREATE-INT64-EXACT', {
        expected: `pet ${rounded.id}, which the run created, listed with its id digit for digit`,
        received: `200 listing pet ${id}, the same as a double, with the fields pet ${rounded.id} was created with`,
        createdBy: rounded.by,
        petId: rounded.id,
      });
    this.noteSeen(id, pet, w);
    return undefined;
  }

  /**
   * A pet the run created whose id is `id` once both pass through a double, and whose fields `pet`
   * shows: an id that lost digits on the way (beyond 2^53) where it is listed, not where it is shown.
   */
  private roundedFrom(
    id: string,
    pet: Record<string, unknown>,
    before: number,
  ): { id: string; by: Create } | undefined {
    const n = BigInt(id);
    if (n < TWO_TO_53 && n > -TWO_TO_53) return undefined;
    for (const [created, entry] of this.entries) {
      if (created === id || Number(created) !== Number(id) || !this.isCreated(created, before)) continue;
      const by = entry.attempts.find(
        (a) => a.fields && isSuccess(a.status) && differences(a.fields, pet).length === 0,
      );
      if (by) return { id: created, by: by as Create };
    }
    return undefined;
  }

  /** CREATE-PERSISTED: every field sent comes back equal, against any body sent with this id so far. */
  private judgeFields(
    w: Watch,
    id: string,
    shown: Record<string, unknown>,
    how: string,
  ): Finding | undefined {
    const entry = this.entries.get(id)!;
    // A body refused with 409 (its id was taken) is not what the server keeps of that id.
    const candidates = entry.attempts.filter((a) => a.fields && a.status !== 409);
    if (candidates.some((a) => differences(a.fields!, shown).length === 0)) return undefined;
    const created = [...candidates].reverse().find((a) => isSuccess(a.status)) ?? candidates[0]!;
    const conflicted = entry.attempts.find(
      (a) => a.fields && a.status === 409 && differences(a.fields, shown).length === 0,
    );
    if (conflicted)
      return this.finding(w, 'CREATE-DUPLICATE-ID', {
        expected: `${describeSent(id, created.fields!)}: a second create of this id was refused with 409, and the first is left unchanged`,
        received: `${how} with the fields of the create refused with 409 (${differences(created.fields!, shown).join(', ')})`,
        createdBy: conflicted as Create,
        petId: id,
      });
    const diffs = differences(created.fields!, shown);
    const others =
      candidates.length > 1
        ? ` (nor any of the ${candidates.length - 1} other bodies sent with this id)`
        : '';
    return this.finding(w, 'CREATE-PERSISTED', {
      expected: describeSent(id, created.fields!),
      received: `${how} with ${diffs.join(', ')}${others}`,
      createdBy: created,
      petId: id,
    });
  }

  /** Read-only: what was first seen of a pet, and where. */
  private noteSeen(id: string, pet: Record<string, unknown>, w: Watch): void {
    if (!this.config.readOnly) return;
    const entry = this.entryOf(id);
    entry.seen ??= { fields: fieldsOf(pet), where: `${w.sent.method} ${pathAndQuery(shownUrl(w.sent))}` };
  }

  /** Read-only: how a pet shown now differs from what was first seen of it (fields present in both). */
  private seenConflict(
    id: string,
    pet: Record<string, unknown>,
  ): { where: string; diffs: string } | undefined {
    const seen = this.config.readOnly ? this.entries.get(id)?.seen : undefined;
    if (!seen) return undefined;
    const now = fieldsOf(pet);
    const keys = PET_FIELDS.filter(
      (k) => seen.fields[k] !== undefined && now[k] !== undefined && seen.fields[k] !== now[k],
    );
    if (keys.length === 0) return undefined;
    return {
      where: seen.where,
      diffs: keys
        .map((k) => `${k} ${showString(now[k])} where it showed ${showString(seen.fields[k])}`)
        .join(', '),
    };
  }

  private finding(
    w: Watch,
    requirementId: string,
    what: { expected: string; received: string; createdBy?: Create; petId?: string; unless?: string[] },
  ): Finding {
    const by = what.createdBy;
    // On the same server the read shows it again; the comment says how the pet was made.
    const made = by
      ? `  # pet ${by.id} was created by this run: ${by.sent.method} ${pathAndQuery(shownUrl(by.sent))} ${bodyInline(bodyExcerpt(by.sent.body ?? new Uint8Array(), 300, false))} answered ${by.status ?? 'nothing'}`
      : '';
    return {
      requirementId,
      // The client masks `received` as it keeps the finding (Client.report); the rest is the suite's.
      expected: what.expected,
      received: `${w.sent.method} ${pathAndQuery(shownUrl(w.sent))} answered ${what.received}`,
      reproduce: `${toCurl(w.sent)}${made.replace(/[\r\n]+/g, ' ')}`,
      ...(what.petId === undefined ? {} : { petId: what.petId }),
      ...(what.unless === undefined ? {} : { unless: what.unless }),
    };
  }

  private entryOf(id: string): Entry {
    let entry = this.entries.get(id);
    if (!entry) {
      entry = { attempts: [] };
      this.entries.set(id, entry);
    }
    return entry;
  }

  private forget(id: string, why: string): void {
    this.entryOf(id).unknown ??= why;
  }

  /** What a request is, relative to the base URL. */
  private route(sent: SentRequest): { kind: Watch['kind']; id?: string } {
    const base = this.config.baseUrl.replace(/\/+$/, '');
    if (!sent.url.startsWith(`${base}/`)) return { kind: 'other' };
    const rest = sent.url.slice(base.length);
    const q = rest.indexOf('?');
    const path = q < 0 ? rest : rest.slice(0, q);
    if (path === '/pets') {
      if (sent.method === 'POST') return { kind: 'create' };
      return sent.method === 'GET' ? { kind: 'list' } : { kind: 'other' };
    }
    const m = /^\/pets\/([^/]+)$/.exec(path);
    if (!m) return { kind: 'other' };
    let id: string;
    try {
      id = decodeURIComponent(m[1]!);
    } catch {
      return { kind: 'other' };
    }
    if (sent.method === 'GET') return { kind: 'show', id };
    // Any method that is not safe may have changed the pet (PUT, PATCH, DELETE, POST, WebDAV's MOVE).
    return SAFE_METHODS.has(sent.method.toUpperCase()) ? { kind: 'other' } : { kind: 'change', id };
  }

  /** Reads the bodies of the creates sent so far, in the order they were sent. */
  private flush(): void {
    if (this.unread.length === 0) return;
    const unread = this.unread;
    this.unread = [];
    for (const c of unread) this.read(c);
  }

  /** What a create body holds, when it carries an int64 id the model can follow. */
  private read(c: Create): void {
    if (c.read) return;
    c.read = true;
    const body = c.sent.body;
    if (!body || body.length > MAX_MODELLED_BODY) return;
    const parsed = parseBody(body, Buffer.from(body).toString('utf8'));
    if (!parsed.ok || !isObject(parsed.value) || !isObject(parsed.exact)) return;
    const id = int64Digits(parsed.exact.id);
    if (id === undefined) return;
    c.id = id;
    if (this.contract.validate(this.petSchema, parsed.value, parsed.exact).length === 0)
      c.fields = readersAgreeOn(fieldsOf(parsed.value), isUtf8(body));
    this.entryOf(id).attempts.push(c);
  }

  /**
   * Lets a write go. An `alone` create waits until no other write of the run is in flight, and holds
   * back those that come after it until it is answered; the others wait only for an `alone` one
   * (waiting or running). Each create in flight with another write is marked overlapped.
   */
  private async admit(write: Create | object, alone: boolean): Promise<void> {
    if (alone) {
      this.aloneWaiting++;
      while (this.aloneRunning || this.writing > 0) await this.changed();
      this.aloneWaiting--;
      this.aloneRunning = true;
    } else {
      while (this.aloneRunning || this.aloneWaiting > 0) await this.changed();
    }
    this.writing++;
    if (this.inFlight.size > 0) {
      for (const other of [write, ...this.inFlight]) if (other instanceof Create) other.overlapped = true;
    }
    this.inFlight.add(write);
  }

  private changed(): Promise<void> {
    return new Promise((resolve) => this.wake.push(resolve));
  }

  private notify(): void {
    const waiting = this.wake;
    this.wake = [];
    for (const resolve of waiting) resolve();
  }
}

/**
 * What a listed item shows, as a key: its id as written and its fields. Two items alike in these are
 * judged alike (other properties are neither compared nor constrained by the Pet schema).
 */
function listedMemo(
  value: Record<string, unknown>,
  exact: Record<string, unknown>,
): { id: string; signature: string } | undefined {
  if (!isExactNumber(exact.id)) return undefined;
  const parts = PET_FIELDS.map((k) => {
    const v = value[k];
    return v === undefined ? '\u0001' : typeof v === 'string' ? v : `\u0002${JSON.stringify(v)}`;
  });
  return { id: exact.id.value, signature: parts.join('\u0000') };
}

/** A lost pet's `unless`: `given`, and SHOW-OK for a negative id (a class a route may not match). */
function unlessOf(given: readonly string[], id: string): { unless?: string[] } {
  const all = id.startsWith('-') ? [...given, 'SHOW-OK'] : [...given];
  return all.length === 0 ? {} : { unless: all };
}

function isSuccess(status: number | undefined): boolean {
  return status !== undefined && status >= 200 && status <= 299;
}

function integerOfDigits(text: string): bigint | undefined {
  return /^-?\d{1,20}$/.test(text) ? BigInt(text) : undefined;
}

/**
 * The run's model against a base URL: one for every check of every file (a run has one worker,
 * suites/vitest.shared.ts; the model is kept on globalThis, which outlives a module instance where
 * vitest isolates files, as in the harness's own tests).
 */
export async function runModel(config: Pick<Config, 'baseUrl' | 'readOnly'>): Promise<Model> {
  const key = Symbol.for('petstore-conformance.model');
  const holder = globalThis as { [key]?: Map<string, Promise<Model>> };
  holder[key] ??= new Map();
  const models = holder[key];
  let model = models.get(config.baseUrl);
  if (!model) {
    model = loadContract().then((contract) => new Model(config, contract));
    models.set(config.baseUrl, model);
  }
  return model;
}
