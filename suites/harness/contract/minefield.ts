/**
 * Create bodies across the categories of JSONTestSuite (Nicolas Seriot, "Parsing JSON is a
 * Minefield", 2016), written for this suite (none of its files is copied): bodies that are not JSON,
 * which a reader must refuse (its `n_` cases), and bodies that are JSON in spellings readers get
 * wrong, which a reader must read as the pet they spell (its `y_` cases). Each is a pet but for its
 * fault, or a pet spelled otherwise, so that a lenient reader that takes a body which is not JSON
 * creates a pet, and one that trips on a valid spelling refuses or alters one.
 *
 * A body that is not JSON is read one of two ways by a reader that takes it. An extension a reader
 * accepts by design (RFC 8259 §9: a parser MAY accept non-JSON forms) reads the text as its author
 * meant it: content after the value ignored, comments skipped, single quotes, bare keys, trailing
 * commas, NaN, 01, escapes and white space of other grammars (JSON5, JSONC, Python's json, Jackson,
 * Go's json.Decoder). Any other reading completes or invents something: a bracket never closed, a
 * hole in a list, a literal cut short. The first is `lenient` (CREATE-JSON-EXTENSION-REFUSED, a
 * SHOULD), the second `invents` (CREATE-MALFORMED-JSON, a MUST).
 *
 * And a third kind, JSONTestSuite's `i_` cases, which RFC 8259 leaves to the reader (LEFT_TO_THE_READER):
 * bytes that are not UTF-8 inside a string, lone surrogates (§8.2: unpredictable), numbers beyond a
 * double (§6), nesting past a reader's own limit (§9), a byte order mark before the text (§8.1: a
 * reader MAY ignore it). Either answer is conformant; a pet taken is read back as the body spells it
 * where it spells it plainly. Not sent: UTF-16 and UTF-32 bodies, and a key repeated (§4: the names
 * SHOULD be unique, and what a reader makes of a repeat is unpredictable).
 *
 * A body is written as text with two placeholders, $ID (the pet's id, in digits) and $TAG (the run's
 * tag, as a JSON string); bytes that are not UTF-8 text are written as arrays of numbers between the
 * text. Every escape in a template is the TypeScript string's: '\\n' is the two characters a JSON
 * escape is written with, '\n' the line feed itself.
 */

/** The parts of a body: text with $ID and $TAG, and bytes written as they are. */
export type Template = string | readonly (string | readonly number[])[];

/**
 * How a reader that takes a body which is not JSON reads it: as its author meant it, by an extension
 * of JSON a reader accepts by design (`lenient`), or only by completing or inventing something (`invents`).
 */
export type Reading = 'lenient' | 'invents';

/** A body that is not JSON, though its intent is a pet: a reader refuses it (RFC 8259 §2). */
export interface NotJson {
  /** What is wrong with it, as a sentence fragment: "a comma after the last member". */
  readonly case: string;
  /** JSONTestSuite's category of the fault. */
  readonly category: Category;
  readonly reading: Reading;
  readonly body: Template;
  /**
   * The name a reader that takes the body reads: "Rex" unless said; null where readers differ (an
   * unknown escape \a is "a" to JSON5, BEL to C), so that a pet taken is not judged on it.
   */
  readonly name?: string | null;
}

/** A body that is JSON, and spells a valid pet whose name is `name` (its id $ID, its tag $TAG). */
export interface StillJson {
  readonly case: string;
  readonly category: Category;
  readonly body: Template;
  /** The name the body spells, as a reader must read it. */
  readonly name: string;
}

export type Category =
  | 'structure'
  | 'comment'
  | 'quotes'
  | 'commas and colons'
  | 'literal'
  | 'number'
  | 'string'
  | 'white space'
  | 'encoding'
  | 'nesting';

/** The pet each body that is not JSON would be, but for its fault. */
const PET = '{"id":$ID,"name":"Rex","tag":$TAG';

/**
 * Bodies that are not JSON. One that a reader can take only by inventing (`invents`) is refused with a
 * 4xx (CREATE-MALFORMED-JSON); one an extension of JSON reads as written (`lenient`) is not taken
 * (CREATE-JSON-EXTENSION-REFUSED), and if it is, the pet taken is the one it spells (CREATE-PERSISTED).
 */
export const NOT_JSON: readonly NotJson[] = [
  // Content after the value: a reader that stops at the end of the first value takes the pet.
  { reading: 'lenient', category: 'structure', case: 'text after the object', body: `${PET}}x` },
  {
    reading: 'lenient',
    category: 'structure',
    case: 'a second object after the first',
    body: `${PET}}${PET}}`,
  },
  { reading: 'lenient', category: 'structure', case: 'a closing bracket after the object', body: `${PET}}]` },
  { reading: 'lenient', category: 'structure', case: 'a closing brace too many', body: `${PET}}}` },
  { reading: 'lenient', category: 'structure', case: 'a comma after the object', body: `${PET}},` },
  {
    reading: 'lenient',
    category: 'structure',
    case: 'a NUL byte after the object',
    body: [`${PET}}`, [0x00]],
  },
  { reading: 'invents', category: 'structure', case: 'the object not closed', body: PET },
  {
    reading: 'invents',
    category: 'structure',
    case: 'an array closed by a brace',
    body: `${PET},"extra":[1}}`,
  },
  {
    reading: 'invents',
    category: 'nesting',
    case: 'brackets opened and never closed',
    body: `${PET},"extra":${'['.repeat(500)}`,
  },
  // Comments: JSON has none (JSONC, JSON5 and Hjson do).
  {
    reading: 'lenient',
    category: 'comment',
    case: 'a block comment between members',
    body: '{"id":$ID,/* c */"name":"Rex","tag":$TAG}',
  },
  {
    reading: 'lenient',
    category: 'comment',
    case: 'a line comment between members',
    body: '{"id":$ID, // c\n"name":"Rex","tag":$TAG}',
  },
  {
    reading: 'lenient',
    category: 'comment',
    case: 'a # comment between members',
    body: '{"id":$ID, # c\n"name":"Rex","tag":$TAG}',
  },
  { reading: 'lenient', category: 'comment', case: 'a comment after the object', body: `${PET}}/* c */` },
  // Quotes: strings and keys are in double quotes.
  {
    reading: 'lenient',
    category: 'quotes',
    case: 'a string in single quotes',
    body: `{"id":$ID,"name":'Rex',"tag":$TAG}`,
  },
  {
    reading: 'lenient',
    category: 'quotes',
    case: 'a key in single quotes',
    body: `{"id":$ID,'name':"Rex","tag":$TAG}`,
  },
  {
    reading: 'lenient',
    category: 'quotes',
    case: 'a key without quotes',
    body: '{"id":$ID,name:"Rex","tag":$TAG}',
  },
  {
    reading: 'invents',
    category: 'quotes',
    case: 'a string without quotes',
    body: `${PET},"status":available}`,
  },
  { reading: 'lenient', category: 'quotes', case: 'a number as a key', body: `${PET},1:2}` },
  // Commas and colons.
  {
    reading: 'lenient',
    category: 'commas and colons',
    case: 'a comma after the last member',
    body: `${PET},}`,
  },
  {
    reading: 'lenient',
    category: 'commas and colons',
    case: 'a comma after the last item of an array',
    body: `${PET},"extra":[1,2,]}`,
  },
  {
    reading: 'invents',
    category: 'commas and colons',
    case: 'two commas in a row',
    body: '{"id":$ID,,"name":"Rex","tag":$TAG}',
  },
  {
    reading: 'invents',
    category: 'commas and colons',
    case: 'an empty item in an array',
    body: `${PET},"extra":[1,,2]}`,
  },
  {
    reading: 'invents',
    category: 'commas and colons',
    case: 'no comma between members',
    body: '{"id":$ID "name":"Rex","tag":$TAG}',
  },
  {
    reading: 'invents',
    category: 'commas and colons',
    case: 'no colon after a key',
    body: '{"id" $ID,"name":"Rex","tag":$TAG}',
  },
  {
    reading: 'invents',
    category: 'commas and colons',
    case: 'an equals sign for a colon',
    body: '{"id"=$ID,"name":"Rex","tag":$TAG}',
  },
  {
    reading: 'invents',
    category: 'commas and colons',
    case: 'a member without a value',
    body: `${PET},"extra":}`,
  },
  // Literals: true, false and null, in lower case and whole.
  { reading: 'invents', category: 'literal', case: 'True with a capital', body: `${PET},"extra":True}` },
  { reading: 'invents', category: 'literal', case: "None, Python's null", body: `${PET},"extra":None}` },
  { reading: 'invents', category: 'literal', case: 'undefined', body: `${PET},"extra":undefined}` },
  { reading: 'invents', category: 'literal', case: 'a literal cut short', body: `${PET},"extra":tru}` },
  // Numbers: an optional minus, digits without a leading zero, an optional fraction and exponent.
  {
    reading: 'lenient',
    category: 'number',
    case: 'a plus sign before the id',
    body: '{"id":+$ID,"name":"Rex","tag":$TAG}',
  },
  {
    reading: 'lenient',
    category: 'number',
    case: 'a leading zero before the id',
    body: '{"id":0$ID,"name":"Rex","tag":$TAG}',
  },
  { reading: 'lenient', category: 'number', case: 'a hexadecimal number', body: `${PET},"extra":0x1F}` },
  {
    reading: 'lenient',
    category: 'number',
    case: 'a fraction without an integer part',
    body: `${PET},"extra":.5}`,
  },
  { reading: 'lenient', category: 'number', case: 'a point without a fraction', body: `${PET},"extra":1.}` },
  { reading: 'invents', category: 'number', case: 'an exponent without digits', body: `${PET},"extra":1e}` },
  { reading: 'lenient', category: 'number', case: 'NaN', body: `${PET},"extra":NaN}` },
  { reading: 'lenient', category: 'number', case: '-Infinity', body: `${PET},"extra":-Infinity}` },
  {
    reading: 'invents',
    category: 'number',
    case: 'digits grouped with an underscore',
    body: `${PET},"extra":1_000}`,
  },
  { reading: 'invents', category: 'number', case: 'a full-width digit', body: `${PET},"extra":\uff11}` },
  // Strings: control characters escaped, and only the escapes RFC 8259 §7 lists.
  {
    reading: 'lenient',
    category: 'string',
    case: 'a tab in a string, unescaped',
    body: '{"id":$ID,"name":"Rex\tRex","tag":$TAG}',
    name: 'Rex\tRex',
  },
  {
    reading: 'lenient',
    category: 'string',
    case: 'a line feed in a string, unescaped',
    body: '{"id":$ID,"name":"Rex\nRex","tag":$TAG}',
    name: 'Rex\nRex',
  },
  {
    reading: 'lenient',
    category: 'string',
    case: 'a NUL in a string, unescaped',
    body: '{"id":$ID,"name":"Rex\u0000","tag":$TAG}',
    name: 'Rex\u0000',
  },
  {
    reading: 'lenient',
    category: 'string',
    case: 'an unknown escape, \\a',
    body: '{"id":$ID,"name":"Rex\\a","tag":$TAG}',
    name: null,
  },
  {
    reading: 'lenient',
    category: 'string',
    case: 'a \\x escape',
    body: '{"id":$ID,"name":"Rex\\x41","tag":$TAG}',
    name: null,
  },
  {
    reading: 'lenient',
    category: 'string',
    case: 'an escaped single quote',
    body: `{"id":$ID,"name":"Rex\\'s","tag":$TAG}`,
    name: "Rex's",
  },
  {
    reading: 'invents',
    category: 'string',
    case: 'a \\u escape of two digits',
    body: '{"id":$ID,"name":"Rex\\u41","tag":$TAG}',
  },
  {
    reading: 'lenient',
    category: 'string',
    case: 'a \\U escape',
    body: '{"id":$ID,"name":"\\U0052ex","tag":$TAG}',
    name: null,
  },
  {
    reading: 'lenient',
    category: 'string',
    case: 'an escaped emoji',
    body: '{"id":$ID,"name":"Rex\\🐈","tag":$TAG}',
    name: null,
  },
  // White space: space, tab, line feed and carriage return only (RFC 8259 §2).
  {
    reading: 'lenient',
    category: 'white space',
    case: 'a form feed between members',
    body: '{"id":$ID,\f"name":"Rex","tag":$TAG}',
  },
  {
    reading: 'lenient',
    category: 'white space',
    case: 'a vertical tab between members',
    body: '{"id":$ID,\v"name":"Rex","tag":$TAG}',
  },
  {
    reading: 'lenient',
    category: 'white space',
    case: 'a no-break space between members',
    body: '{"id":$ID,\u00a0"name":"Rex","tag":$TAG}',
  },
  {
    reading: 'lenient',
    category: 'white space',
    case: 'a line separator between members',
    body: '{"id":$ID,\u2028"name":"Rex","tag":$TAG}',
  },
  {
    reading: 'lenient',
    category: 'white space',
    case: 'a byte order mark between members',
    body: '{"id":$ID,\ufeff"name":"Rex","tag":$TAG}',
  },
  {
    reading: 'lenient',
    category: 'white space',
    case: 'an ideographic space between members',
    body: '{"id":$ID,\u3000"name":"Rex","tag":$TAG}',
  },
  // Encodings: JSON text exchanged between systems is UTF-8 (RFC 8259 §8.1).
  {
    reading: 'invents',
    category: 'encoding',
    case: 'a byte that is not UTF-8 between members',
    body: ['{"id":$ID,', [0xe5], '"name":"Rex","tag":$TAG}'],
  },
  {
    reading: 'invents',
    category: 'encoding',
    case: 'a byte that is not UTF-8 after a backslash',
    body: ['{"id":$ID,"name":"Rex\\', [0xe5], '","tag":$TAG}'],
  },
  {
    reading: 'invents',
    category: 'encoding',
    case: 'a byte order mark cut short',
    body: [[0xef, 0xbb], `${PET}}`],
  },
  {
    reading: 'invents',
    category: 'encoding',
    case: 'a byte order mark and nothing else',
    body: [[0xef, 0xbb, 0xbf]],
  },
];

/** The bodies that are not JSON which a reader takes only by inventing something (CREATE-MALFORMED-JSON). */
export const MALFORMED: readonly NotJson[] = NOT_JSON.filter((kind) => kind.reading === 'invents');

/** The bodies in an extension of JSON, which a lenient reader takes as written (CREATE-JSON-EXTENSION-REFUSED). */
export const EXTENDED: readonly NotJson[] = NOT_JSON.filter((kind) => kind.reading === 'lenient');

/**
 * A body RFC 8259 leaves to the reader (JSONTestSuite's `i_` cases): taken or refused, either
 * conforms. `name` is the name every reader that takes it reads, null where readers differ.
 */
export interface LeftToTheReader {
  readonly case: string;
  readonly body: Template;
  readonly name: string | null;
}

/** Bodies JSON leaves to the reader, each a pet but for what is left; a pet taken is read back as spelled (CREATE-PERSISTED). */
export const LEFT_TO_THE_READER: readonly LeftToTheReader[] = [
  // §8.1 binds the sender to UTF-8; Go's encoding/json reads each byte that is not as U+FFFD.
  {
    case: 'a byte 0xFF inside the name, not UTF-8',
    body: ['{"id":$ID,"name":"Rex', [0xff], '","tag":$TAG}'],
    name: null,
  },
  {
    case: 'the UTF-8 of a surrogate inside the name (ED A0 80)',
    body: ['{"id":$ID,"name":"Rex', [0xed, 0xa0, 0x80], '","tag":$TAG}'],
    name: null,
  },
  // §8.2: a string holding a lone surrogate is unpredictable; Go reads it as U+FFFD, JavaScript keeps it.
  {
    case: 'a lone surrogate escaped in the name',
    body: '{"id":$ID,"name":"Rex\\uD800","tag":$TAG}',
    name: null,
  },
  // §6: numbers beyond a double's range or precision; where the schema declares nothing of them.
  {
    case: 'numbers beyond a double in a property the schema does not declare',
    body: `${PET},"extra":[1e400,-1e400,123456789012345678901234567890]}`,
    name: 'Rex',
  },
  // §9: a reader may limit the depth of nesting.
  {
    case: 'arrays nested 500 deep in a property the schema does not declare',
    body: `${PET},"extra":${'['.repeat(500)}${']'.repeat(500)}}`,
    name: 'Rex',
  },
  // §8.1: a reader MAY ignore a byte order mark rather than treating it as an error.
  { case: 'a byte order mark before the text', body: [[0xef, 0xbb, 0xbf], `${PET}}`], name: 'Rex' },
];

/** Bodies that are JSON, each a valid pet: created and read back as the pet it spells (CREATE-PERSISTED). */
export const STILL_JSON: readonly StillJson[] = [
  {
    category: 'white space',
    case: 'space, tab, line feed and carriage return around every token',
    body: ' \t\n\r{ \t"id"\n:\r$ID\t,\n"name" : "Rex"\r\n,"tag"\t:\t$TAG\n}\r\n ',
    name: 'Rex',
  },
  { category: 'structure', case: 'the id last', body: '{"tag":$TAG,"name":"Rex","id":$ID}', name: 'Rex' },
  {
    category: 'string',
    case: 'keys written with escapes',
    body: '{"\\u0069d":$ID,"n\\u0061me":"Rex","t\\u0061g":$TAG}',
    name: 'Rex',
  },
  {
    category: 'string',
    case: 'an escaped solidus',
    body: '{"id":$ID,"name":"a\\/b","tag":$TAG}',
    name: 'a/b',
  },
  {
    category: 'string',
    case: 'the escapes of quote, backslash and control characters',
    body: '{"id":$ID,"name":"\\"\\\\\\b\\f\\n\\r\\t.","tag":$TAG}',
    name: '"\\\b\f\n\r\t.',
  },
  {
    category: 'string',
    case: 'Unicode escapes in upper and lower case',
    body: '{"id":$ID,"name":"\\u0052\\u0065\\u0078 \\u00e9\\u00C9","tag":$TAG}',
    name: 'Rex éÉ',
  },
  {
    category: 'string',
    case: 'surrogate pairs escaped',
    body: '{"id":$ID,"name":"\\uD83D\\uDC08 \\ud83d\\udc08 \\uDBFF\\uDFFF","tag":$TAG}',
    name: '🐈 🐈 \u{10ffff}',
  },
  {
    category: 'string',
    case: 'an escaped NUL',
    body: '{"id":$ID,"name":"Rex\\u0000","tag":$TAG}',
    name: 'Rex\u0000',
  },
  {
    category: 'encoding',
    case: 'UTF-8 of two, three and four bytes',
    body: '{"id":$ID,"name":"Zoë 日本 🐈","tag":$TAG}',
    name: 'Zoë 日本 🐈',
  },
  {
    category: 'string',
    case: 'DEL, line and paragraph separators and U+FFFF, unescaped',
    body: '{"id":$ID,"name":"a\u007fb\u2028c\u2029d\uffff","tag":$TAG}',
    name: 'a\u007fb\u2028c\u2029d\uffff',
  },
  {
    category: 'number',
    case: 'extra properties of every JSON type and number form',
    body: '{"id":$ID,"name":"Rex","tag":$TAG,"n":[-0,0.5,1E2,1e-2,-1.5E+3],"o":{"":{},"a":[],"t":true,"f":false,"z":null}}',
    name: 'Rex',
  },
];

/** The bytes of a body for pet `id` with tag `tag` (the run's). */
export function bodyOf(template: Template, id: bigint, tag: string): Buffer {
  const fill = (text: string) =>
    Buffer.from(text.replaceAll('$ID', id.toString()).replaceAll('$TAG', JSON.stringify(tag)));
  const parts = typeof template === 'string' ? [template] : template;
  return Buffer.concat(parts.map((part) => (typeof part === 'string' ? fill(part) : Buffer.from(part))));
}

/**
 * Every byte of a body, for a reader: printable ASCII as it is, a backslash as \\, and every other
 * byte as \xNN, so that a tab, a NUL, a no-break space and a stray byte each show.
 */
export function showBytes(body: Uint8Array): string {
  let out = '';
  for (const byte of body) {
    if (byte === 0x5c) out += '\\\\';
    else if (byte >= 0x20 && byte <= 0x7e) out += String.fromCharCode(byte);
    else out += `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  return out;
}

/**
 * A POSIX sh command that prints exactly these bytes: printf with a format in single quotes, where
 * printable ASCII stands as it is and every other byte (a quote, a backslash and % among them) is an
 * octal escape. For a curl line's body (RequestOptions.bodyCommand) that a terminal would not carry.
 */
export function printfCommand(body: Uint8Array): string {
  let format = '';
  for (const byte of body) {
    const plain = byte >= 0x20 && byte <= 0x7e && byte !== 0x27 && byte !== 0x5c && byte !== 0x25;
    format += plain ? String.fromCharCode(byte) : `\\${byte.toString(8).padStart(3, '0')}`;
  }
  return `printf '${format}'`;
}
