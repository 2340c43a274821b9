import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { runTag } from '../config/run.ts';
import type { Schema } from '../contract/contract.ts';
import { applyMutation, type Mutation, mutationsOf } from '../contract/generate.ts';
import { ConformanceError } from '../evidence/errors.ts';
import { clip, type ExchangeRecord, shownUrl, toCurl } from '../evidence/exchange.ts';
import type { Finding } from '../evidence/finding.ts';
import { INT64_MAX, INT64_MIN, parseBody } from '../evidence/json.ts';
import { pathAndQuery } from '../evidence/url.ts';
import { GENERATED_BUDGET_FACTOR } from '../http/budget.ts';
import type { ApiResponse } from '../http/client.ts';
import { runClock } from '../http/pace.ts';
import { PET_FIELDS } from '../model/model.ts';
import { endsTheCheck } from '../requirement/blocked.ts';
import type { CheckContext } from '../requirement/requirement.ts';
import { freshMutation } from './fresh.ts';
import { petPath } from './pets.ts';

/*
 * Generated sequences of operations, each answer held against a model of what the sequence did
 * (issue 18): creates of valid and invalid pets, shows of pets created, of ids no pet has and of ids
 * that are not integers, and lists with and without a limit, in an order fast-check generates from
 * the seed and shrinks when an answer disagrees. The check belongs to CREATE-PERSISTED, whose rule a
 * sequence judges throughout: a pet created comes back, by show and in lists, with every field it was
 * sent with. What a sequence meets of other requirements' rules (a valid pet refused, an invalid one
 * accepted or kept though refused, an unknown id shown, a malformed id not refused, a list longer than
 * its limit or not a list of Pets) is reported as a finding for that requirement, and the sequence
 * goes on.
 *
 * Every sequence draws a fresh range of ids (B near 2^40, E below 2^32) and creates its pets from it,
 * so that sequences never meet each other, the pets of other checks or those of earlier runs; ids lie
 * near 2^40 (B + n), below -2^40 (-B - n) and at both ends of int64 (2^63 - 1 - E - n, -2^63 + E + n).
 * Sequences run several at once; a pet a sequence finds lost is judged only when its create had the
 * server to itself (model.ts), since one lost to a race is CREATE-CONCURRENT's. A failing sequence is
 * shrunk and shown as a POSIX sh script of curl -i lines that replays it from a range of its own,
 * drawn when the script runs.
 */

/** The requirement whose rule the sequences judge. */
const OWN = 'CREATE-PERSISTED';

export type IdKind = 'low' | 'negative' | 'max-edge' | 'min-edge';

/** Where in a sequence's range an id lies: its kind, and its place there. */
export interface Target {
  readonly kind: IdKind;
  readonly slot: number;
}

const keyOf = (t: Target) => `${t.kind}#${t.slot}`;

/** The ids of one sequence: fresh for every run of it, replays of a shrunk one included. */
export class IdRange {
  constructor(
    /** Near 2^40. */
    readonly base: bigint,
    /** Below 2^32, at least 1: the distance from the ends of int64. */
    readonly edge: bigint,
  ) {}

  static fresh(): IdRange {
    const bytes = randomBytes(12);
    return new IdRange(
      2n ** 40n + (bytes.readBigUInt64BE(0) % 2n ** 42n),
      1n + BigInt(bytes.readUInt32BE(8)),
    );
  }

  id(t: Target): bigint {
    const n = BigInt(t.slot);
    switch (t.kind) {
      case 'low':
        return this.base + n;
      case 'negative':
        return -(this.base + n);
      case 'max-edge':
        return INT64_MAX - this.edge - n;
      case 'min-edge':
        return INT64_MIN + this.edge + n;
    }
  }

  /** The same id as POSIX sh arithmetic on $B and $E (64-bit in every shell that matters). */
  static shell(t: Target): string {
    switch (t.kind) {
      case 'low':
        return `$((B + ${t.slot}))`;
      case 'negative':
        return `$((-B - ${t.slot}))`;
      case 'max-edge':
        return `$((9223372036854775807 - E - ${t.slot}))`;
      case 'min-edge':
        return `$((-9223372036854775807 - 1 + E + ${t.slot}))`;
    }
  }
}

/** What the sequence did to one id of its range. */
interface PetState {
  /** created: some create was answered 2xx; refused: none was, and some was answered otherwise. */
  state: 'created' | 'refused' | 'unknown';
}

interface SequenceModel {
  readonly pets: Map<string, PetState & { target: Target }>;
}

interface Step {
  /**
   * The script line (placeholders already written as sh arithmetic), written only for a sequence
   * that fails: most pass, and writing a line per request cost about 1 % of a run.
   */
  readonly line: () => string;
  readonly label: string;
  readonly exchange: ExchangeRecord;
}

interface SequenceReal {
  readonly ctx: CheckContext;
  readonly range: IdRange;
  readonly steps: Step[];
  readonly petSchema: Schema;
  /** No request is sent after this (on the run's clock, `now`). */
  readonly endsAt: number;
  readonly now: () => number;
}

/** Thrown by a command that would start past the budget: the sequence ends there, unjudged. */
class OutOfTime extends Error {}

/** Sends a request of a sequence, unless the budget is spent (the sequence then ends unjudged). */
function inTime(r: SequenceReal): void {
  if (r.now() >= r.endsAt) throw new OutOfTime();
}

/** Marks an id in a script line: replaced by sh arithmetic when the script is written. */
const placeholder = (t: Target) => `ZZPETID${t.kind.replace('-', '')}${t.slot}ZZ`;

/** The script line of a request that used target `t`'s id (in its path or as the body's first property). */
function scriptLine(res: ApiResponse, t: Target | undefined, id: bigint | undefined): string {
  const sent = res.request;
  if (t === undefined || id === undefined) return toCurl(sent);
  const mark = placeholder(t);
  const digits = id.toString();
  const url = sent.url.replace(new RegExp(`/pets/${digits}$`), `/pets/${mark}`);
  const text = sent.body ? Buffer.from(sent.body).toString('utf8') : undefined;
  const body = text?.replace(new RegExp(`^\\{"id":${digits}(?=[,}])`), `{"id":${mark}`);
  const line = toCurl({ ...sent, url, ...(body === undefined ? {} : { body: Buffer.from(body) }) });
  // '…'"$((B + 1))"'…': the id's digits come from sh; a trailing '' (an empty word) is dropped.
  return line.replaceAll(mark, `'"${IdRange.shell(t)}"'`).replace(/''$/, '');
}

/** The POSIX sh script that replays the steps from a range of its own. */
function script(steps: readonly Step[], heading: string): string {
  return [
    '#!/bin/sh',
    `# ${heading}`,
    '# Each run draws a fresh range of ids (B, E), so that the script can be run again and again.',
    'B=$(( 1099511627776 + ($(date +%s) % 1048576) * 4096 + $$ % 4096 ))',
    'E=$(( ($(date +%s) * 4096 + $$) % 4294967295 + 1 ))',
    // Each answer on lines of its own: curl prints a body without a final newline.
    ...steps.map((s) => `${s.line()}; echo`),
  ].join('\n');
}

/** A finding about an answer of the sequence, for `requirementId`. */
function report(
  r: SequenceReal,
  res: ApiResponse,
  requirementId: string,
  expected: string,
  received?: string,
) {
  const finding: Finding = {
    requirementId,
    expected,
    received: `${res.request.method} ${pathAndQuery(shownUrl(res.request))} answered ${received ?? describe(res)}`,
    reproduce: res.reproduce,
    // A 5xx is ANY-NO-5XX's, which fails on it: the rule named here is judged by its own checks.
    ...(res.status >= 500 && res.status !== 503 ? { unless: ['ANY-NO-5XX'] } : {}),
  };
  r.ctx.api.report(finding);
}

function describe(res: ApiResponse): string {
  const text = clip(res.text, 200, () => '…');
  return `${res.status}${text ? `, ${text}` : ', empty body'}`;
}

const isSuccess = (status: number) => status >= 200 && status <= 299;

/** The sequence's own rule broken: the error that fails the property (and is shrunk). */
class Disagreement extends Error {
  constructor(
    readonly expected: string,
    readonly received: string,
    readonly steps: readonly Step[],
  ) {
    super(`expected: ${expected}\nreceived: ${received}`);
    this.name = 'Disagreement';
  }
}

/** A valid pet of the sequence: the Pet's fields as generated, and the run's mark. */
export interface GeneratedPet {
  readonly name: string;
  readonly tag?: string;
  readonly status?: 'available' | 'pending' | 'sold';
}

/**
 * Text where servers go wrong: empty, white space at either end, accents precomposed and combining,
 * CJK, emoji outside the BMP and joined ones, right-to-left text and its override, quotes,
 * backslashes, control characters (sent as JSON escapes), line and paragraph separators, CR and
 * CRLF, zero-width characters, a soft hyphen and a variation selector, digits and "null" as text, a
 * delimiter, JSON escapes written out as text, and any grapheme fast-check makes.
 */
const FRAGMENTS = [
  '',
  ' ',
  'Rex',
  'a',
  'Zoë',
  'Zoe\u0301',
  'Å',
  '日本',
  '猫',
  '🐈',
  '👩\u200d👩\u200d👧',
  'שלום',
  'مرحبا',
  '\u202e',
  '"',
  '\\',
  "'",
  '\u0000',
  '\u001f',
  '\u007f',
  '\t',
  '\n',
  '\u2028',
  '\u00a0',
  '\ufeff',
  '<b>',
  '%41',
  '{}',
  // Where stores and codecs go wrong beyond the above: line ends a platform rewrites, characters that
  // render as nothing (zero-width, soft hyphen, a variation selector), text that looks like another
  // type or a delimiter, escapes written out that a second unescape would turn into characters.
  '\r\n',
  '\r',
  '\u200b',
  '\u200c',
  '\u2060',
  '\u00ad',
  '❤\ufe0f',
  '007',
  '1.50',
  'null',
  '|',
  '\\n',
  '\\u0041',
];
const core = fc.oneof(
  { weight: 4, arbitrary: fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 4 }).map((a) => a.join('')) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
);
const short = fc
  .tuple(fc.constantFrom('', '', ' ', '  ', '\u00a0', '\t'), core, fc.constantFrom('', '', ' ', '  ', '\n'))
  .map(([before, middle, after]) => `${before}${middle}${after}`);

/**
 * Past this many code points a text is long: longer than the columns servers often keep (64, 100,
 * 255). No length is declared, nor any limit, so a server may refuse a long text; stored, it must
 * come back whole, as any other (CREATE-PERSISTED).
 */
export const LONG_TEXT = 64;

/** A long text: a short one repeated to 65 to 300 code points, around the usual column widths. */
const long = fc
  .tuple(fc.oneof(fc.constantFrom(65, 101, 129, 256, 257, 300), fc.integer({ min: 65, max: 300 })), core)
  .map(([length, unit]) => {
    const points = [...(unit === '' ? 'a' : unit)];
    return Array.from({ length }, (_, i) => points[i % points.length]).join('');
  });

/** A name or tag of the whole declared space: mostly short and awkward, now and then long. */
const text = fc.oneof({ weight: 7, arbitrary: short }, { weight: 1, arbitrary: long });

/** Whether a pet carries a long text, which a server may refuse (LONG_TEXT). */
function hasLongText(pet: GeneratedPet): boolean {
  return [pet.name, pet.tag ?? ''].some((t) => [...t].length > LONG_TEXT);
}

/** Valid pets of a sequence (their id is the command's); `mark` is the run's tag. */
export function petArbitrary(mark: string): fc.Arbitrary<GeneratedPet> {
  // The tag carries the run's mark where it is not itself the value under test (absent, empty or
  // generated); every pet also carries it in a property of its own (conformanceRun).
  const tag = fc.oneof(
    fc.constant(undefined),
    fc.constant(''),
    text,
    fc.constant(mark),
    text.map((t) => `${t} ${mark}`),
    text.map((t) => `${mark}${t}`),
  );
  const status = fc.constantFrom(undefined, 'available' as const, 'pending' as const, 'sold' as const);
  return fc.record({ name: text, tag, status }).map(({ name, tag, status }) => ({
    name,
    ...(tag === undefined ? {} : { tag }),
    ...(status === undefined ? {} : { status }),
  }));
}

const target = fc.record({
  kind: fc.constantFrom<IdKind>('low', 'low', 'negative', 'max-edge', 'min-edge'),
  slot: fc.nat(4),
});

type Cmd = fc.AsyncCommand<SequenceModel, SequenceReal>;

/** The body of a create: the id first (the script finds it there), then the fields and the run's mark. */
function bodyOf(r: SequenceReal, t: Target, pet: GeneratedPet): Record<string, unknown> {
  return { id: r.range.id(t), ...pet, conformanceRun: r.ctx.config.runId };
}

class CreateValid implements Cmd {
  constructor(
    readonly target: Target,
    readonly pet: GeneratedPet,
  ) {}
  check = () => true;
  async run(m: SequenceModel, r: SequenceReal): Promise<void> {
    inTime(r);
    const res = await r.ctx.api.post('/pets', { json: bodyOf(r, this.target, this.pet) });
    r.steps.push({
      line: () => scriptLine(res, this.target, r.range.id(this.target)),
      label: this.toString(),
      exchange: res.exchange,
    });
    const prior = m.pets.get(keyOf(this.target));
    if (isSuccess(res.status)) {
      if (!prior || prior.state === 'refused')
        m.pets.set(keyOf(this.target), { target: this.target, state: 'created' });
      return;
    }
    // A second create of the same id is CREATE-DUPLICATE-ID's to judge.
    if (prior) return;
    m.pets.set(keyOf(this.target), { target: this.target, state: 'refused' });
    // A long text refused is a length of the server's own, which the document leaves open.
    if (hasLongText(this.pet) && res.status >= 400 && res.status <= 499) return;
    report(r, res, 'CREATE-VALID-GENERATED', 'a 2xx status: the pet is valid, and its id is new');
  }
  toString(): string {
    return `create ${keyOf(this.target)} ${JSON.stringify(this.pet)}`;
  }
}

class CreateInvalid implements Cmd {
  constructor(
    readonly target: Target,
    readonly pet: GeneratedPet,
    readonly mutation: Mutation,
  ) {}
  check = () => true;
  async run(m: SequenceModel, r: SequenceReal): Promise<void> {
    const valid = bodyOf(r, this.target, this.pet);
    // A mutated id is fresh (fresh.ts): what an earlier run left is never met as this case's answer.
    const body = applyMutation(valid, freshMutation(this.mutation));
    inTime(r);
    const res = await r.ctx.api.post('/pets', { json: body });
    const keepsId = typeof body === 'object' && body !== null && (body as { id?: unknown }).id === valid.id;
    r.steps.push({
      line: () =>
        scriptLine(res, keepsId ? this.target : undefined, keepsId ? r.range.id(this.target) : undefined),
      label: this.toString(),
      exchange: res.exchange,
    });
    const prior = m.pets.get(keyOf(this.target));
    if (isSuccess(res.status)) {
      report(
        r,
        res,
        'CREATE-INVALID-GENERATED',
        `a 4xx status: the body breaks the Pet schema (${this.mutation.why})`,
      );
      if (keepsId) m.pets.set(keyOf(this.target), { target: this.target, state: 'unknown' });
      return;
    }
    if (keepsId && !prior) m.pets.set(keyOf(this.target), { target: this.target, state: 'refused' });
  }
  toString(): string {
    return `create ${keyOf(this.target)} broken (${this.mutation.why})`;
  }
}

/** Shows the n-th pet the sequence created (as the model has them when the command runs). */
class ShowCreated implements Cmd {
  constructor(readonly n: number) {}
  check = (m: Readonly<SequenceModel>) => [...m.pets.values()].some((p) => p.state === 'created');
  async run(m: SequenceModel, r: SequenceReal): Promise<void> {
    const created = [...m.pets.values()].filter((p) => p.state === 'created');
    const pet = created[this.n % created.length]!;
    const id = r.range.id(pet.target);
    inTime(r);
    const res = await r.ctx.api.get(petPath(id));
    r.steps.push({
      line: () => scriptLine(res, pet.target, id),
      label: `show ${keyOf(pet.target)}`,
      exchange: res.exchange,
    });
    if (res.status === 404) {
      // Lost. A pet whose create overlapped another (of this sequence, of others, of other checks) may
      // be lost to a race, which is CREATE-CONCURRENT's to judge: it is not judged further. One created
      // while no other write was in flight is this rule's.
      const attempts = r.ctx.model
        .attemptsOf(id.toString())
        .filter((a) => a.status !== undefined && isSuccess(a.status));
      // A negative id not found may be a class the server never routes: SHOW-OK's, or the model's
      // finding of a lost pet when SHOW-OK shows such pets (model.ts).
      if (attempts.some((a) => a.overlapped) || id < 0n) {
        pet.state = 'unknown';
        return;
      }
      throw new Disagreement(
        `status 200 and pet ${id}, created earlier in the sequence (answered 2xx) while no other write was in flight`,
        `GET /pets/${id} answered ${describe(res)}`,
        r.steps,
      );
    }
    if (res.status !== 200) {
      report(r, res, 'SHOW-OK', `status 200 and pet ${id}, which exists`);
      return;
    }
    if (!isPet(r, res)) {
      report(r, res, 'ANY-PET-SCHEMA', 'a Pet (by the schema) in the 200 of a show');
      return;
    }
    own(res, m, r);
  }
  toString(): string {
    return `show created #${this.n}`;
  }
}

/** Shows an id of the range that the sequence never creates (slots from 100 on). */
class ShowUnknown implements Cmd {
  constructor(readonly target: Target) {}
  check = () => true;
  async run(_m: SequenceModel, r: SequenceReal): Promise<void> {
    const t = { ...this.target, slot: this.target.slot + 100 };
    const id = r.range.id(t);
    inTime(r);
    const res = await r.ctx.api.get(petPath(id));
    r.steps.push({ line: () => scriptLine(res, t, id), label: this.toString(), exchange: res.exchange });
    if (isSuccess(res.status)) {
      report(r, res, 'SHOW-UNKNOWN-NOT-2XX', 'a status other than 2xx (no pet has this id)');
      return;
    }
    if (res.status !== 404) report(r, res, 'SHOW-UNKNOWN-404', 'status 404 (no pet has this id)');
  }
  toString(): string {
    return `show unknown ${keyOf(this.target)}`;
  }
}

/** Shows the id of a create the sequence saw refused: no pet was made of it. */
class ShowRefused implements Cmd {
  constructor(readonly n: number) {}
  check = (m: Readonly<SequenceModel>) => [...m.pets.values()].some((p) => p.state === 'refused');
  async run(m: SequenceModel, r: SequenceReal): Promise<void> {
    const refused = [...m.pets.values()].filter((p) => p.state === 'refused');
    const pet = refused[this.n % refused.length]!;
    const id = r.range.id(pet.target);
    inTime(r);
    const res = await r.ctx.api.get(petPath(id));
    r.steps.push({
      line: () => scriptLine(res, pet.target, id),
      label: `show refused ${keyOf(pet.target)}`,
      exchange: res.exchange,
    });
    if (!isSuccess(res.status)) return;
    // Shown as it was sent: kept although refused, the create's fault. Shown otherwise: a pet made up
    // for an id no pet has.
    const attempts = r.ctx.model.attemptsOf(id.toString());
    const kept = attempts.some((a) => sentAsShown(a.sent.body, res));
    const invalid = attempts.some((a) => !a.fields);
    report(
      r,
      res,
      kept ? (invalid ? 'CREATE-INVALID-GENERATED' : 'CREATE-VALID-GENERATED') : 'SHOW-UNKNOWN-NOT-2XX',
      kept
        ? 'no pet with this id: its create was refused, so none was made of it'
        : 'a status other than 2xx (no pet has this id: its create was refused)',
    );
  }
  toString(): string {
    return `show refused #${this.n}`;
  }
}

class ShowMalformed implements Cmd {
  constructor(readonly id: string) {}
  check = () => true;
  async run(_m: SequenceModel, r: SequenceReal): Promise<void> {
    inTime(r);
    const res = await r.ctx.api.get(petPath(this.id));
    r.steps.push({ line: () => toCurl(res.request), label: this.toString(), exchange: res.exchange });
    if (res.status !== 400 && res.status !== 404)
      report(r, res, 'SHOW-ID-MALFORMED', 'status 400 or 404 (the id is not an integer)');
  }
  toString(): string {
    return `show ${JSON.stringify(this.id)}`;
  }
}

class List implements Cmd {
  constructor(readonly limit: number | undefined) {}
  check = () => true;
  async run(m: SequenceModel, r: SequenceReal): Promise<void> {
    inTime(r);
    const res = await r.ctx.api.get(
      '/pets',
      this.limit === undefined ? {} : { query: { limit: this.limit } },
    );
    r.steps.push({
      // A list shows the pets the server puts first: on a deployment holding more than the limit,
      // the replay's pets may be on another page.
      line: () =>
        `# GET /pets lists the pets its order puts first, at most ${this.limit ?? 100}\n${toCurl(res.request)}`,
      label: this.toString(),
      exchange: res.exchange,
    });
    const cap = this.limit ?? 100;
    if (cap > 100) {
      if (res.status < 400 || res.status > 499)
        report(r, res, 'LIST-LIMIT-OVER-MAX', 'a 4xx status (the limit is above 100)');
      return;
    }
    if (res.status !== 200) {
      report(
        r,
        res,
        cap === 100 && this.limit !== undefined ? 'LIST-LIMIT-MAX-ACCEPTED' : 'LIST-OK',
        'status 200 and a JSON array',
      );
      return;
    }
    const parsed = parseBody(res.body, res.text);
    if (!parsed.ok || !Array.isArray(parsed.value) || !Array.isArray(parsed.exact)) {
      report(r, res, 'LIST-OK', 'status 200 and a JSON array');
      return;
    }
    const items = parsed.value as unknown[];
    if (items.length > cap)
      report(
        r,
        res,
        this.limit === undefined ? 'LIST-LIMIT-DEFAULT' : 'LIST-LIMIT-AT-MOST',
        `a JSON array of at most ${cap} pets`,
        `200, a JSON array of ${items.length}`,
      );
    const exact = parsed.exact as unknown[];
    if (items.some((item, i) => r.ctx.contract.validate(r.petSchema, item, exact[i]).length > 0))
      report(r, res, 'ANY-PET-SCHEMA', 'a JSON array of Pets (by the schema)');
    own(res, m, r);
    // Which pets a page shorter than its limit must hold is LIST-LIMIT-FILLS's own check (list.checks.ts)
    // to judge: with more pets stored than a page holds, a short page need not hold these.
  }
  toString(): string {
    return this.limit === undefined ? 'list' : `list limit=${this.limit}`;
  }
}

/** Whether a show answers with the string fields a create body carried (at least one, all equal). */
function sentAsShown(body: Uint8Array | undefined, res: ApiResponse): boolean {
  if (!body) return false;
  const sent = parseBody(body, Buffer.from(body).toString('utf8'));
  const shown = parseBody(res.body, res.text);
  if (!sent.ok || !shown.ok || typeof sent.value !== 'object' || sent.value === null) return false;
  if (typeof shown.value !== 'object' || shown.value === null) return false;
  const fields = PET_FIELDS.filter((k) => typeof (sent.value as Record<string, unknown>)[k] === 'string');
  return (
    fields.length > 0 &&
    fields.every(
      (k) => (shown.value as Record<string, unknown>)[k] === (sent.value as Record<string, unknown>)[k],
    )
  );
}

function isPet(r: SequenceReal, res: ApiResponse): boolean {
  const parsed = parseBody(res.body, res.text);
  return parsed.ok && r.ctx.contract.validate(r.petSchema, parsed.value, parsed.exact).length === 0;
}

/**
 * Fails the sequence when the model found its own rule broken in this answer (model.ts) for a pet of
 * this sequence. A pet of another (an earlier sequence, another check) is the client's finding alone:
 * the sequence could not replay it from a range of its own.
 */
function own(res: ApiResponse, m: SequenceModel, r: SequenceReal): void {
  const ours = new Set([...m.pets.values()].map((p) => r.range.id(p.target).toString()));
  const found = res.findings.find(
    (f) => f.requirementId === OWN && f.petId !== undefined && ours.has(f.petId),
  );
  if (found) throw new Disagreement(found.expected, found.received, r.steps);
}

const MALFORMED = [
  'abc',
  '1.5',
  '12abc',
  ' 1',
  '1e3',
  '+1',
  '0x1F',
  '١٢',
  'Ｉ',
  '🐈',
  'null',
  '{id}',
  '1 2',
  '--1',
];

function commandsOf(mark: string, schema: Schema): fc.Arbitrary<Cmd>[] {
  const pet = petArbitrary(mark);
  const createValid = fc.tuple(target, pet).map(([t, p]): Cmd => new CreateValid(t, p));
  const createInvalid = fc
    .tuple(target, pet, mutationsOf(schema))
    .map(([t, p, mutation]): Cmd => new CreateInvalid(t, p, mutation));
  const showCreated = fc.nat(7).map((n): Cmd => new ShowCreated(n));
  const showRefused = fc.nat(3).map((n): Cmd => new ShowRefused(n));
  const showUnknown = target.map((t): Cmd => new ShowUnknown(t));
  const malformed = fc
    .oneof(
      fc.constantFrom(...MALFORMED),
      fc
        .string({ unit: 'grapheme', minLength: 1, maxLength: 6 })
        .filter((s) => !/^-?\d+$/.test(s.trim()) && s.trim() !== ''),
    )
    .map((id): Cmd => new ShowMalformed(id));
  // Mostly small pages: a page of 100 pets costs a hundred comparisons, and the pets a sequence
  // creates are on the first page only while few are stored.
  const list = fc
    .oneof(
      { weight: 1, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.constant(100) },
      { weight: 4, arbitrary: fc.integer({ min: 1, max: 12 }) },
      { weight: 1, arbitrary: fc.constant(101) },
    )
    .map((limit): Cmd => new List(limit));
  // Repeated entries weigh the choice: mostly creates and shows of what was created.
  return [
    createValid,
    createValid,
    createValid,
    createInvalid,
    showCreated,
    showCreated,
    showCreated,
    showRefused,
    showUnknown,
    malformed,
    list,
    list,
  ];
}

export interface SequenceOptions {
  /** Sequences run at once, each from a seed of its own (config.seed + seedOffset + its number). */
  readonly sequences: number;
  /** Requests one sequence sends at most. */
  readonly maxCommands: number;
  /** Added to config.seed. */
  readonly seedOffset?: number;
  /**
   * No request of a sequence (shrinks included) is sent after this long: the rest of that sequence
   * passes unjudged. Default GENERATED_BUDGET_FACTOR × timeoutMs.
   */
  readonly budgetMs?: number;
}

/**
 * Runs generated sequences against the deployment (fc.commands with fc.asyncModelRun), `sequences`
 * at once, each seeded from config.seed. A sequence whose answers break CREATE-PERSISTED's rule is
 * shrunk (one request at a time, as it ran) and thrown as a ConformanceError whose reproduce is the
 * sh script of the smallest one; what breaks other rules is reported as findings on the way. The
 * first failing sequence (by its number) is the one shown; a sequence that got no answer at all ends
 * the check with that.
 */
export async function checkSequences(
  ctx: CheckContext,
  options: SequenceOptions,
): Promise<{ requests: number }> {
  const { config } = ctx;
  const schema = ctx.contract.schema('Pet');
  const first = config.seed + (options.seedOffset ?? 0);
  const budgetMs = options.budgetMs ?? GENERATED_BUDGET_FACTOR * config.timeoutMs;
  const now = runClock(config);
  const endsAt = now() + budgetMs;
  const before = ctx.api.exchanges.length;
  let ended: unknown;
  const commands = fc.commands(commandsOf(runTag(config), schema), {
    maxCommands: options.maxCommands,
    size: 'max',
  });
  const property = fc.asyncProperty(commands, async (cmds) => {
    if (ended) return;
    const real: SequenceReal = { ctx, range: IdRange.fresh(), steps: [], petSchema: schema, endsAt, now };
    try {
      await fc.asyncModelRun(() => ({ model: { pets: new Map() }, real }), cmds);
    } catch (err) {
      if (err instanceof OutOfTime) return;
      if (endsTheCheck(err)) {
        ended ??= err;
        return;
      }
      throw err;
    }
  });
  const runs = await Promise.all(
    Array.from({ length: options.sequences }, (_, i) =>
      fc.check(property, { seed: first + i, numRuns: 1 }).then((details) => ({ seed: first + i, details })),
    ),
  );
  const requests = ctx.api.exchanges.length - before;
  const failed = runs.find((r) => r.details.failed);
  await ctx.note(
    `${requests} request(s) in ${options.sequences} generated sequences (seeds ${first} to ${first + options.sequences - 1}${failed ? `; seed ${failed.seed} failed, shrunk ${failed.details.numShrinks} time(s)` : ''})`,
  );
  if (ended) throw ended;
  if (!failed) return { requests };
  const { seed, details } = failed;
  const err = details.errorInstance;
  if (!(err instanceof Disagreement)) throw err;
  const labels = err.steps.map((s) => s.label);
  const heading = `${OWN}: a generated sequence of ${labels.length} request(s) (seed ${seed}, shrunk ${details.numShrinks} time(s)) whose last answer disagrees with what was created`;
  throw new ConformanceError({
    expected: err.expected,
    received: `${err.received} — after the generated sequence ${labels.join('; ')} (seed ${seed}, shrunk ${details.numShrinks} time(s))`,
    reproduce: script(err.steps, heading),
    exchanges: err.steps.slice(-3).map((s) => s.exchange),
  });
}
